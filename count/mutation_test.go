package count

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

// TestMutants gives the symbol, PLT, frame, DWARF and code readers
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
		readObject(m.Data)
		return nil
	})
}

// readObject runs every reader of count on data as an object file.
func readObject(data []byte) {
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return
	}
	syms := symbolsOf(f, "mutant", 0x1000)
	for _, fn := range syms.funcs {
		syms.name(fn.start + 1)
	}
	di := debugInfoOf(f, uint64(len(data)), true)
	di.line(0x401000)
	di.inlinedChain(0x401000)
}
