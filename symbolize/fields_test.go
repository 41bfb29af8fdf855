package symbolize

import (
	"debug/dwarf"
	"debug/elf"
	"os"
	"path/filepath"
	"testing"
)

// goTestBinary is the path of a Go test binary of testdata, with its
// DWARF; the test is skipped when it is not built.
func goTestBinary(t *testing.T) string {
	t.Helper()
	path := filepath.Join("..", "testdata", "build", "go", "amd64", "bench.test")
	if _, err := os.Stat(path); err != nil {
		t.Skip("make testprogs")
	}
	return path
}

// TestFieldOffset: a Go test binary's DWARF gives testing.B's field N
// (from which icount reads a benchmark run's b.N) the offset debug/dwarf's
// type reader gives it; a field or a type that does not exist is not
// found.
func TestFieldOffset(t *testing.T) {
	path := goTestBinary(t)
	o := NewCache(DebugDirs{}, false).Open(path)
	off, ok := o.FieldOffset("testing.B", "N")
	if want := typedFieldOffset(t, path, "testing.B", "N"); !ok || off != want {
		t.Errorf("testing.B.N at %d (%v), want %d", off, ok, want)
	}
	if _, ok := o.FieldOffset("testing.B", "NoSuchField"); ok {
		t.Error("a missing field is found")
	}
	if _, ok := o.FieldOffset("no.Such", "N"); ok {
		t.Error("a missing type is found")
	}
}

// typedFieldOffset reads the offset of a struct's field with debug/dwarf's
// type reader.
func typedFieldOffset(t *testing.T, path, structName, field string) int64 {
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := f.DWARF()
	if err != nil {
		t.Fatal(err)
	}
	r := d.Reader()
	for e, err := r.Next(); err == nil && e != nil; e, err = r.Next() {
		if e.Tag != dwarf.TagStructType || e.Val(dwarf.AttrName) != structName {
			continue
		}
		typ, err := d.Type(e.Offset)
		if err != nil {
			t.Fatal(err)
		}
		for _, fl := range typ.(*dwarf.StructType).Field {
			if fl.Name == field {
				return fl.ByteOffset
			}
		}
	}
	t.Fatalf("%s: no %s.%s", path, structName, field)
	return 0
}
