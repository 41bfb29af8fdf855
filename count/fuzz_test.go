package count

import (
	"bytes"
	"debug/elf"
	"os"
	"path/filepath"
	"testing"
)

// FuzzSymbols: no executable makes the symbol, frame or DWARF readers
// that run on every binary icount counts (or annotates) panic. The loader
// validates the ELF first (loader's FuzzParse); these read the rest of it.
func FuzzSymbols(f *testing.F) {
	for _, p := range []string{"amd64/callgraph-g", "amd64/loop", "arm64/loop"} {
		if b, err := os.ReadFile(filepath.Join("..", "testdata", "build", p)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("\x7fELF\x02\x01\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "prog")
		if err := os.WriteFile(path, data, 0o755); err != nil {
			t.Fatal(err)
		}
		syms := loadSymbols(path, 0x1000)
		for _, fn := range syms.funcs {
			syms.name(fn.start + 1)
		}
		di := loadDebugInfo(path, true)
		if di != nil {
			di.line(0x401000)
			di.inlinedChain(0x401000)
		}
		if c, err := OpenCode(path, 0); err == nil {
			c.Disassemble(0x401000, 0x401100)
		}
	})
}

// FuzzDebugInfo: no object file makes the DWARF reader panic, hang or
// allocate by a corrupt count (the checks of dwarfcheck.go), from the
// -g binaries' DWARF (DWARF 5 line tables, inlined frames) on.
func FuzzDebugInfo(f *testing.F) {
	for _, p := range []string{"c/callgraph-musl-g", "amd64/callgraph-g"} {
		if b, err := os.ReadFile(filepath.Join("..", "testdata", "build", p)); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ef, err := elf.NewFile(bytes.NewReader(data))
		if err != nil {
			return
		}
		di := debugInfoOf(ef, uint64(len(data)), true)
		di.line(0x401000)
		di.inlinedChain(0x401000)
		di.funcPos(0x401000)
	})
}
