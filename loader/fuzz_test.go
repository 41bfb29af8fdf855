package loader

import (
	"errors"
	"testing"
)

// FuzzParse checks that no input makes the ELF validation panic or accept
// an executable whose segments lie outside the file or user space.
func FuzzParse(f *testing.F) {
	f.Add(minimalELF())
	f.Add([]byte("\x7fELF"))
	f.Add([]byte("#!/bin/sh\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		exe, err := Parse("fuzz", data)
		if err != nil {
			var le *Error
			if !errors.As(err, &le) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		for _, s := range exe.Segs {
			if s.Offset+s.Filesz > uint64(len(data)) || s.Filesz > s.Memsz {
				t.Fatalf("accepted segment %+v of a %d-byte file", s, len(data))
			}
			if exe.Base()+s.Vaddr+s.Memsz > archUserTop[exe.Arch] {
				t.Fatalf("accepted segment %+v outside user space", s)
			}
		}
	})
}
