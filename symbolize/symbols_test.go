package symbolize

import (
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

// BenchmarkSymbols measures what a run pays to read the symbols of the
// host's glibc, alone and with those of its debug file (libc6-dbg): every
// dynamic program's first lookup in libc.
func BenchmarkSymbols(b *testing.B) {
	const libc = "/lib/x86_64-linux-gnu/libc.so.6"
	if _, err := os.Stat(libc); err != nil {
		b.Skip("no x86-64 glibc on this host")
	}
	for _, c := range []struct {
		name string
		dirs DebugDirs
	}{{"alone", DebugDirs{}}, {"debugfile", SystemDebugDirs("")}} {
		b.Run(c.name, func(b *testing.B) {
			if c.dirs.Roots != nil && openObject(libc, c.dirs, false).DebugFile() == "" {
				b.Skip("libc6-dbg is not installed")
			}
			for b.Loop() {
				openObject(libc, c.dirs, false).symbols()
			}
		})
	}
}

// sameDebugSymbols says whether debugSymbols reads the candidates of f as
// a debug file as debug/elf's Symbols gives them, when that reads the
// table at all; an error if not.
func sameDebugSymbols(f *elf.File) error {
	full, err := f.Symbols()
	if err != nil {
		return nil
	}
	var want, got candidates
	want.codeSymbols(execSections(f), full)
	ifuncs, err := got.debugSymbols(f)
	if err != nil {
		return fmt.Errorf("debugSymbols: %v, where debug/elf reads %d symbols", err, len(full))
	}
	// (An empty list is one, made or not: a mutant whose symbols all
	// name nothing gives nil on one side and [] on the other.)
	if !slices.Equal(got.list, want.list) || !slices.Equal(got.names, want.names) {
		return fmt.Errorf("debugSymbols reads %d candidates, debug/elf %d, or others", len(got.list), len(want.list))
	}
	if want := ifuncsOf(full); !reflect.DeepEqual(ifuncs, want) {
		return fmt.Errorf("debugSymbols reads %d IFUNC symbols, debug/elf %d, or others", len(ifuncs), len(want))
	}
	return nil
}

// TestDebugSymbols: the debug file's symbols read in place are those
// debug/elf reads, for the host's glibc debug file and the test programs.
func TestDebugSymbols(t *testing.T) {
	paths := []string{"/lib/x86_64-linux-gnu/libc.so.6"}
	if dbg := NewCache(SystemDebugDirs(""), false).Open(paths[0]).DebugFile(); dbg != "" {
		paths = append(paths, dbg)
	}
	for _, p := range []string{"amd64/callgraph-g", "c/crunch-musl-g", "c/qsort-dynamic"} {
		paths = append(paths, filepath.Join("..", "testdata", "build", p))
	}
	read := 0
	for _, p := range paths {
		f, err := elf.Open(p)
		if err != nil {
			continue
		}
		if full, err := f.Symbols(); err == nil && len(full) > 0 {
			read++
		}
		if err := sameDebugSymbols(f); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		f.Close()
	}
	if read < 2 {
		t.Fatalf("only %d of %v exist with a symbol table: make testprogs", read, paths)
	}
}
