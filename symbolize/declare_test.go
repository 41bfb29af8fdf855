package symbolize

import (
	"sync"
	"testing"
)

// TestReadDeclaration has the declarations of every function of a Go
// program with DWARF (a test binary of testdata) read on the object's
// goroutine (ReadDeclaration), in the order of its symbols, while
// Declaration asks for them from the end backwards on several goroutines;
// each must be what a fresh object's Declaration alone gives (and the
// race detector, with -race, must find no race).
func TestReadDeclaration(t *testing.T) {
	exe := goTestBinary(t)
	const bias = 0x10000
	alone := NewCache(DebugDirs{}, false).Open(exe)
	syms := alone.symbols()
	if len(syms.funcs) < 1000 {
		t.Fatalf("%s has %d functions, want a Go program's thousands", exe, len(syms.funcs))
	}
	want := make([]Position, len(syms.funcs))
	declared := 0
	for i, f := range syms.funcs {
		if want[i] = alone.At(bias).Declaration(bias + f.start); want[i].File != "" {
			declared++
		}
	}
	if declared < len(want)/2 {
		t.Fatalf("%d of %d functions have a declaration, want most", declared, len(want))
	}

	// Three fresh objects: the goroutines' interleaving differs each time.
	for range 3 {
		l := NewCache(DebugDirs{}, false).Open(exe).At(bias)
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, f := range syms.funcs {
				l.ReadDeclaration(bias + f.start)
			}
		}()
		const askers = 4
		got := make([]Position, len(want))
		for k := range askers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := len(want) - 1 - k; i >= 0; i -= askers {
					got[i] = l.Declaration(bias + syms.funcs[i].start)
				}
			}()
		}
		wg.Wait()
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s: declared at %+v, want %+v", syms.funcs[i].name, got[i], want[i])
			}
		}
	}
}
