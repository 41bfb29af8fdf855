package symbolize

import (
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
