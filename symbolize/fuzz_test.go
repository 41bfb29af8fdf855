package symbolize

import (
	"bytes"
	"debug/elf"
	"os"
	"path/filepath"
	"testing"
)

// exercise asks every lookup of o, at a bias, about each function it
// names and about the addresses of the -g test programs: what count and
// annotate ask.
func exercise(o *Object) {
	const bias = 0x1000
	l := o.At(bias)
	for _, fn := range o.symbols().funcs {
		l.Function(bias + fn.start + 1)
		l.Name(bias + fn.start)
		l.Declaration(bias + fn.start)
		l.Line(bias + fn.start)
		l.Inlined(bias + fn.start)
	}
	l.Entry("main")
	for _, a := range []uint64{0x401000, 0x401100} {
		l.Line(bias + a)
		l.Inlined(bias + a)
		l.Declaration(bias + a)
	}
	o.Problems()
	o.Code()
}

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
		exercise(NewCache(DebugDirs{}, true).Open(path))
	})
}

// FuzzDebugInfo: no object file makes the DWARF reader panic, hang or
// allocate by a corrupt count (the checks of dwarfcheck.go), from the
// -g binaries' DWARF (DWARF 5 line tables, inlined frames) on. Every unit
// is read, not only those a lookup reaches.
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
		readDWARF(ef, uint64(len(data)))
	})
}

// readDWARF reads all of f's DWARF, every unit, and looks up an address.
func readDWARF(f *elf.File, size uint64) {
	di := openDebugInfo(f, "fuzzed", size, true)
	if di == nil {
		return
	}
	for _, u := range di.units {
		di.resolve(u)
	}
	di.line(0x401000)
	di.inlinedAt(0x401000)
	di.declaration(0x401000)
}

// FuzzDebugFile: no separate debug file makes the debug-file lookup, or
// the readers of the symbols and DWARF it adds, panic, hang or allocate by
// a corrupt count. Each input is placed where the stripped callgraph
// programs look for their debug file, by build ID and by .gnu_debuglink.
func FuzzDebugFile(f *testing.F) {
	pairs := debugPairs(f, f.TempDir())
	if len(pairs) == 0 {
		f.Skip("no test program to split (make testprogs) or no objcopy")
	}
	for _, p := range pairs {
		b, err := os.ReadFile(p.debug)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	obj := pairs[0]
	f.Fuzz(func(t *testing.T, data []byte) {
		root := t.TempDir()
		prog, err := placeDebugFile(obj, data, t.TempDir(), root)
		if err != nil {
			t.Fatal(err)
		}
		exercise(NewCache(DebugDirs{Roots: []string{root}}, true).Open(prog))
	})
}
