package symbolize

import (
	"bytes"
	"debug/elf"
	"os"
	"path/filepath"
	"testing"

	"github.com/icount-dev/icount/internal/mutate"
)

// mutationSeeds are the real binaries whose mutants the readers are given:
// static (musl and glibc, with and without -g), dynamic (PIE, and /bin's
// stripped ones), both arches.
var mutationSeeds = []string{
	"../testdata/build/c/callgraph-musl-g",
	"../testdata/build/c/crunch-musl-g",
	"../testdata/build/amd64/callgraph-g",
	"../testdata/build/c/callgraph-glibc",
	"../testdata/build/c/empty-dynamic",
	"../testdata/build/arm64/loop-pie",
	"/bin/true",
	"/bin/ls",
}

// loadSeeds reads the seeds that exist here (/bin's vary).
func loadSeeds(t testing.TB, paths []string) []*mutate.Seed {
	var seeds []*mutate.Seed
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		s, err := mutate.NewSeed(filepath.Base(p), b)
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, s)
	}
	if len(seeds) < 4 {
		t.Fatalf("only %d of the seed binaries exist: run make testprogs", len(seeds))
	}
	return seeds
}

// TestMutants gives the symbol, PLT, frame and DWARF readers
// mutants of real binaries (a few hundred in go test, 20,000 under
// ICOUNT_CONFORMANCE=1), in a process whose address space may grow by
// mutate.HeadRoom only: none may panic, hang or allocate by a corrupt
// count.
func TestMutants(t *testing.T) {
	if !mutate.InChild(t) {
		return
	}
	seeds := loadSeeds(t, mutationSeeds)
	mutate.Each(t, seeds, mutate.Count(400, 20000), func(m mutate.Mutant) error {
		return readObject(m.Data)
	})
}

// TestDebugFileMutants gives the debug-file lookup, and the readers of
// what a debug file adds, the stripped test programs with mutants of
// their debug files, and mutants of the stripped programs with their
// debug files (a few hundred in go test, 4,000 under
// ICOUNT_CONFORMANCE=1), each placed where the program looks for it: none
// may panic, hang or allocate by a corrupt count.
func TestDebugFileMutants(t *testing.T) {
	if !mutate.InChild(t) {
		return
	}
	pairs := debugPairs(t, t.TempDir())
	if len(pairs) < 2 {
		t.Fatal("the -g test programs are not built (make testprogs), or objcopy is missing")
	}
	n := mutate.Count(300, 4000) / (2 * len(pairs))
	scratch := t.TempDir()
	for _, pair := range pairs {
		intact, err := os.ReadFile(pair.debug)
		if err != nil {
			t.Fatal(err)
		}
		prog, err := os.ReadFile(pair.stripped)
		if err != nil {
			t.Fatal(err)
		}
		debug, err := mutate.NewSeed(filepath.Base(pair.debug), intact)
		if err != nil {
			t.Fatal(err)
		}
		obj, err := mutate.NewSeed(filepath.Base(pair.stripped), prog)
		if err != nil {
			t.Fatal(err)
		}
		try := func(prog, debug []byte) error {
			dir, err := os.MkdirTemp(scratch, "m")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			root := filepath.Join(dir, "root")
			path, err := placeDebugFile(pair, debug, dir, root)
			if err != nil {
				return err
			}
			if prog != nil {
				if err := os.WriteFile(path, prog, 0o644); err != nil {
					return err
				}
			}
			exercise(NewCache(DebugDirs{Roots: []string{root}}, true).Open(path))
			return nil
		}
		mutate.Each(t, []*mutate.Seed{debug}, n, func(m mutate.Mutant) error { return try(nil, m.Data) })
		mutate.Each(t, []*mutate.Seed{obj}, n, func(m mutate.Mutant) error { return try(m.Data, intact) })
	}
}

// readObject runs every reader of symbolize on data as an object file,
// and as its own debug file; it says where the debug file's symbols are
// read otherwise than debug/elf reads them.
func readObject(data []byte) error {
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return nil
	}
	syms := symbolsOf(f, nil, "mutant")
	for _, fn := range syms.funcs {
		syms.lookup(fn.start + 1)
	}
	symbolsOf(f, f, "mutant")
	readDWARF(f, uint64(len(data)))
	return sameDebugSymbols(f)
}
