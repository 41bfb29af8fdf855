package count

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/icount-dev/icount/symbolize"
)

// FuzzCode: no executable makes icount annotate's disassembly panic: the
// instructions of its code, named by its symbols and lines (symbolize's
// FuzzSymbols fuzzes their readers).
func FuzzCode(f *testing.F) {
	for _, p := range []string{"amd64/callgraph-g", "amd64/loop", "arm64/loop"} {
		if b, err := os.ReadFile(filepath.Join("..", "testdata", "build", p)); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "prog")
		if err := os.WriteFile(path, data, 0o755); err != nil {
			t.Fatal(err)
		}
		c, err := OpenCode(symbolize.NewCache(symbolize.DebugDirs{}, true).Open(path), 0)
		if err != nil {
			return
		}
		c.Disassemble(0x401000, 0x401100)
		for _, s := range c.segs {
			c.Starts(s.addr, uint32(min(len(s.data), 4096)))
		}
	})
}
