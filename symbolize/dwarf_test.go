package symbolize

import (
	"bytes"
	"debug/dwarf"
	"debug/elf"
	"path/filepath"
	"reflect"
	"testing"
)

func TestNest(t *testing.T) {
	call := func(name string, line int) InlinedCall {
		return InlinedCall{Function: name, CallFile: "a.c", CallLine: line}
	}
	outer, inner, deepest, other := call("outer", 1), call("inner", 2), call("deepest", 3), call("other", 4)
	got := nest([]inlineSpan{
		{lo: 10, hi: 50, call: outer, depth: 1},
		{lo: 20, hi: 30, call: inner, depth: 2},
		{lo: 22, hi: 24, call: deepest, depth: 3},
		{lo: 60, hi: 70, call: other, depth: 1},
	})
	want := []inlinePiece{
		{lo: 10, hi: 20, chain: []InlinedCall{outer}},
		{lo: 20, hi: 22, chain: []InlinedCall{outer, inner}},
		{lo: 22, hi: 24, chain: []InlinedCall{outer, inner, deepest}},
		{lo: 24, hi: 30, chain: []InlinedCall{outer, inner}},
		{lo: 30, hi: 50, chain: []InlinedCall{outer}},
		{lo: 60, hi: 70, chain: []InlinedCall{other}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	u := &unit{inlined: got}
	for addr, name := range map[uint64]string{5: "", 10: "outer", 23: "deepest", 29: "inner", 55: "", 69: "other", 70: ""} {
		chain := u.inlinedAt(addr)
		n := ""
		if len(chain) > 0 {
			n = chain[len(chain)-1].Function
		}
		if n != name {
			t.Errorf("inlinedAt(%d) = %v, want %q innermost", addr, chain, name)
		}
	}
}

func TestLineLookup(t *testing.T) {
	u := &unit{rows: []lineRow{
		{addr: 100, pos: Position{"a.c", 1}}, {addr: 104, pos: Position{"a.c", 2}}, {addr: 104, pos: Position{"a.c", 3}},
		{addr: 110, end: true}, {addr: 110, pos: Position{"b.c", 9}}, {addr: 120, end: true},
	}}
	for addr, want := range map[uint64]Position{99: {}, 100: {"a.c", 1}, 103: {"a.c", 1}, 104: {"a.c", 3}, 110: {"b.c", 9}, 125: {}} {
		if got, _ := u.line(addr); got != want {
			t.Errorf("line(%d) = %v, want %v", addr, got, want)
		}
	}
}

// TestLoadDWARF: loadDWARF reads the DWARF f.DWARF reads (the same
// entries and line tables), for the -g test programs and the host glibc's
// debug file (its first units).
func TestLoadDWARF(t *testing.T) {
	var paths []string
	for _, p := range []string{"amd64/callgraph-g", "c/crunch-musl-g", "c/callgraph-musl-g"} {
		paths = append(paths, filepath.Join("..", "testdata", "build", p))
	}
	if dbg := NewCache(SystemDebugDirs(""), false).Open("/lib/x86_64-linux-gnu/libc.so.6").DebugFile(); dbg != "" {
		paths = append(paths, dbg)
	}
	read := 0
	for _, p := range paths {
		f, err := elf.Open(p)
		if err != nil {
			continue
		}
		read++
		want, err := f.DWARF()
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		got, line, err := loadDWARF(f)
		if err != nil {
			t.Fatalf("%s: loadDWARF: %v", p, err)
		}
		if wantLine, err := lineSection(f); err != nil || !bytes.Equal(line, wantLine) {
			t.Errorf("%s: loadDWARF's line section is not lineSection's (%v)", p, err)
		}
		gr, wr := got.Reader(), want.Reader()
		for n := 0; n < 200000; n++ {
			g, gerr := gr.Next()
			w, werr := wr.Next()
			if !reflect.DeepEqual(g, w) || (gerr == nil) != (werr == nil) {
				t.Fatalf("%s: entry %d: %+v (%v), want %+v (%v)", p, n, g, gerr, w, werr)
			}
			if w == nil {
				break
			}
			if w.Tag == dwarf.TagCompileUnit && !sameLines(t, got, want, g, w) {
				t.Fatalf("%s: the line table of the unit at %#x differs", p, w.Offset)
			}
		}
		f.Close()
	}
	if read < 2 {
		t.Fatal("the -g test programs are not built: make testprogs")
	}
}

// sameLines says whether the line tables of units g of got and w of want
// are the same.
func sameLines(t *testing.T, got, want *dwarf.Data, g, w *dwarf.Entry) bool {
	gl, gerr := got.LineReader(g)
	wl, werr := want.LineReader(w)
	if gerr != nil || werr != nil || gl == nil || wl == nil {
		return (gerr == nil) == (werr == nil) && (gl == nil) == (wl == nil)
	}
	var ge, we dwarf.LineEntry
	for {
		gerr, werr := gl.Next(&ge), wl.Next(&we)
		if (gerr == nil) != (werr == nil) || !reflect.DeepEqual(ge, we) {
			return false
		}
		if werr != nil {
			return true
		}
	}
}
