package symbolize

import (
	"slices"
	"sort"
)

// inlineSpan is the code [lo, hi) of a call inlined depth calls deep.
type inlineSpan struct {
	lo, hi uint64
	call   InlinedCall
	depth  int
}

// inlinePiece is a range of addresses [lo, hi) and the calls inlined
// there, outermost first.
type inlinePiece struct {
	lo, hi uint64
	chain  []InlinedCall
}

// nest turns nested inlined ranges into disjoint pieces, each with the
// chain of the ranges covering it.
func nest(spans []inlineSpan) []inlinePiece {
	sort.SliceStable(spans, func(i, j int) bool {
		a, b := spans[i], spans[j]
		if a.lo != b.lo {
			return a.lo < b.lo
		}
		if a.depth != b.depth {
			return a.depth < b.depth
		}
		return a.hi > b.hi
	})
	var out []inlinePiece
	var stack []inlineSpan
	var chain []InlinedCall // the stack's calls; nil when the stack changed since made
	var cur uint64
	emit := func(hi uint64) {
		if n := len(stack); n > 0 && cur < hi {
			if chain == nil {
				chain = make([]InlinedCall, n)
				for i, s := range stack {
					chain[i] = s.call
				}
			}
			if k := len(out); k > 0 && out[k-1].hi == cur && slices.Equal(out[k-1].chain, chain) {
				out[k-1].hi = hi
			} else {
				out = append(out, inlinePiece{lo: cur, hi: hi, chain: chain})
			}
		}
		if hi > cur {
			cur = hi
		}
	}
	closeTo := func(addr uint64) {
		for len(stack) > 0 && stack[len(stack)-1].hi <= addr {
			emit(stack[len(stack)-1].hi)
			stack, chain = stack[:len(stack)-1], nil
		}
	}
	for _, s := range spans {
		closeTo(s.lo)
		emit(s.lo)
		stack, chain = append(stack, s), nil
	}
	closeTo(^uint64(0))
	return out
}
