package loader

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/icount-dev/icount/internal/mutate"
)

// TestMutants gives Parse and Load mutants of real binaries (a few
// hundred in go test, 20,000 under ICOUNT_CONFORMANCE=1) in a process
// whose address space may grow by mutate.HeadRoom only: each is refused
// with a loader Error, or loads within the file and user space, mapping
// only a few runs of pages and writing only file bytes.
func TestMutants(t *testing.T) {
	if !mutate.InChild(t) {
		return
	}
	var seeds []*mutate.Seed
	for _, p := range []string{"c/callgraph-musl-g", "c/callgraph-glibc", "c/empty-dynamic", "amd64/callgraph-g", "arm64/loop-pie"} {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "build", p))
		if err != nil {
			t.Fatalf("%v: run make testprogs", err)
		}
		s, err := mutate.NewSeed(filepath.Base(p), b)
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, s)
	}
	mutate.Each(t, seeds, mutate.Count(400, 20000), func(m mutate.Mutant) error {
		exe, err := Parse("mutant", m.Data)
		if err != nil {
			var le *Error
			if !errors.As(err, &le) {
				return fmt.Errorf("error of type %T: %v", err, err)
			}
			return nil
		}
		mem := &ranges{}
		if _, err := exe.Load(mem); err != nil {
			return fmt.Errorf("load: %v", err)
		}
		if len(mem.maps) > 2*len(exe.Segs) || mem.written > uint64(len(m.Data))*uint64(len(exe.Segs)) {
			return fmt.Errorf("%d mappings and %d bytes written for %d segments of a %d-byte file", len(mem.maps), mem.written, len(exe.Segs), len(m.Data))
		}
		return nil
	})
}
