package count

import (
	"reflect"
	"testing"

	"github.com/icount-dev/icount/profile"
)

// TestCuts checks where cut executions are taken from: the decoder's record,
// and what the C table counted beyond it as few executions as can lose that
// many, each to the block's end; only that when the record has more.
func TestCuts(t *testing.T) {
	dec := &decodedBlock{cuts: map[int]uint64{3: 2, 1: 1}} // 2 x 2 + 1 x 4 = 8
	for _, c := range []struct {
		cut  uint64
		want []profile.Cut
	}{
		{8, []profile.Cut{{Index: 1, Executions: 1}, {Index: 3, Executions: 2}}},
		{0, nil},
		{3, []profile.Cut{{Index: 2, Executions: 1}}},                                                                                   // outside a --collect region: one execution lost its last 3
		{10, []profile.Cut{{Index: 1, Executions: 1}, {Index: 3, Executions: 3}}},                                                       // and one cut the decoder did not see: the last 2
		{19, []profile.Cut{{Index: 0, Executions: 2}, {Index: 1, Executions: 1}, {Index: 3, Executions: 2}, {Index: 4, Executions: 1}}}, // and two whole executions and the last 1 of another
		{20, []profile.Cut{{Index: 0, Executions: 2}, {Index: 1, Executions: 1}, {Index: 3, Executions: 3}}},
	} {
		var got []profile.Cut
		if c.cut > 0 {
			got = cutsOf(dec, 5, c.cut)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("cut %d: %v, want %v", c.cut, got, c.want)
		}
	}
	if got := cutsOf(nil, 5, 8); !reflect.DeepEqual(got, []profile.Cut{{Index: 0, Executions: 1}, {Index: 2, Executions: 1}}) {
		t.Errorf("without a record: %v", got)
	}
}

func TestInnermost(t *testing.T) {
	outerCall, innerCall, deepestCall, otherCall := srcPos{"a.c", 7}, srcPos{"b.h", 3}, srcPos{"b.h", 9}, srcPos{"a.c", 12}
	got := innermost([]span{
		{lo: 10, hi: 50, name: "outer", depth: 1, call: outerCall},
		{lo: 20, hi: 30, name: "inner", depth: 2, call: innerCall},
		{lo: 22, hi: 24, name: "deepest", depth: 3, call: deepestCall},
		{lo: 60, hi: 70, name: "other", depth: 1, call: otherCall},
	})
	outer := span{name: "outer", call: outerCall}
	inner := span{name: "inner", call: innerCall}
	deepest := span{name: "deepest", call: deepestCall}
	other := span{name: "other", call: otherCall}
	want := []span{
		{lo: 10, hi: 20, name: "outer", call: outerCall, chain: []span{outer}},
		{lo: 20, hi: 22, name: "inner", call: innerCall, chain: []span{outer, inner}},
		{lo: 22, hi: 24, name: "deepest", call: deepestCall, chain: []span{outer, inner, deepest}},
		{lo: 24, hi: 30, name: "inner", call: innerCall, chain: []span{outer, inner}},
		{lo: 30, hi: 50, name: "outer", call: outerCall, chain: []span{outer}},
		{lo: 60, hi: 70, name: "other", call: otherCall, chain: []span{other}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	di := &debugInfo{inlined: got}
	for addr, name := range map[uint64]string{5: "", 10: "outer", 23: "deepest", 29: "inner", 55: "", 69: "other", 70: ""} {
		n := ""
		if chain := di.inlinedChain(addr); len(chain) > 0 {
			n = chain[len(chain)-1].name
		}
		if n != name {
			t.Errorf("inlinedChain(%d) ends in %q, want %q", addr, n, name)
		}
	}
}

func TestLineLookup(t *testing.T) {
	di := &debugInfo{rows: []lineRow{
		{addr: 100, pos: srcPos{"a.c", 1}}, {addr: 104, pos: srcPos{"a.c", 2}}, {addr: 104, pos: srcPos{"a.c", 3}},
		{addr: 110, end: true}, {addr: 110, pos: srcPos{"b.c", 9}}, {addr: 120, end: true},
	}}
	for addr, want := range map[uint64]srcPos{99: {}, 100: {"a.c", 1}, 103: {"a.c", 1}, 104: {"a.c", 3}, 110: {"b.c", 9}, 125: {}} {
		if got, _ := di.line(addr); got != want {
			t.Errorf("line(%d) = %v, want %v", addr, got, want)
		}
	}
}
