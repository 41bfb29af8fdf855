package kernel

import "iter"

// The address space (memory.go) and the provenance of mappings
// (mappings.go) each keep a set of disjoint ranges of guest memory, and a
// program may keep thousands of mappings while it maps and unmaps others:
// every operation on the set costs O(log n + k) for n ranges of which k
// are touched, never O(n).
//
// The set is a treap ordered by start: a binary search tree whose nodes
// also carry random priorities, a parent's above its children's, which
// keeps its depth O(log n) in expectation whatever the order of changes.
// Each subtree knows its lowest start, its highest end, the bytes its
// ranges cover and the widest gap between two of its consecutive ranges,
// so that a range query, a byte count and the search for a free range of
// some size (mmap's) each descend one or two paths. The priorities come
// from a fixed sequence: the tree's shape, like everything else, is the
// same on every run.

// ranged is what a set of spans holds: a value covering [start, end)
// that can be cut down to a part of its range.
type ranged[T any] interface {
	bounds() (start, end uint64)
	// clip returns the value for [start, end), which lies within its
	// bounds (a file mapping's offset moves with its start).
	clip(start, end uint64) T
}

// spans is a set of disjoint, non-empty ranges, ordered by address. The
// zero value is an empty set.
type spans[T ranged[T]] struct {
	root *spanNode[T]
	seed uint64 // the state of the priority sequence
}

// spanNode is a range of a set and the root of a subtree.
type spanNode[T any] struct {
	v           T
	start, end  uint64 // v's bounds
	prio        uint64
	left, right *spanNode[T]
	// Of the subtree:
	lo, hi uint64 // the lowest start and the highest end
	gap    uint64 // the widest gap between two consecutive ranges
	bytes  uint64 // the bytes its ranges cover
}

// newNode returns a node for v, with the next priority of the set's
// sequence (splitmix64).
func (s *spans[T]) newNode(v T) *spanNode[T] {
	s.seed += 0x9e3779b97f4a7c15
	z := s.seed
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	n := &spanNode[T]{v: v, prio: z ^ z>>31}
	n.start, n.end = v.bounds()
	n.fix()
	return n
}

// fix recomputes what n knows of its subtree from its children.
func (n *spanNode[T]) fix() {
	n.lo, n.hi, n.gap, n.bytes = n.start, n.end, 0, n.end-n.start
	if l := n.left; l != nil {
		n.lo, n.gap, n.bytes = l.lo, max(l.gap, n.start-l.hi), n.bytes+l.bytes
	}
	if r := n.right; r != nil {
		n.hi, n.gap, n.bytes = r.hi, max(n.gap, r.gap, r.lo-n.end), n.bytes+r.bytes
	}
}

// splitTree splits the tree t into the ranges that start below at and the
// rest.
func splitTree[T any](t *spanNode[T], at uint64) (below, rest *spanNode[T]) {
	if t == nil {
		return nil, nil
	}
	if t.start < at {
		t.right, rest = splitTree(t.right, at)
		t.fix()
		return t, rest
	}
	below, t.left = splitTree(t.left, at)
	t.fix()
	return below, t
}

// mergeTrees joins two trees, every range of l below every range of r.
func mergeTrees[T any](l, r *spanNode[T]) *spanNode[T] {
	switch {
	case l == nil:
		return r
	case r == nil:
		return l
	case l.prio > r.prio:
		l.right = mergeTrees(l.right, r)
		l.fix()
		return l
	default:
		r.left = mergeTrees(l, r.left)
		r.fix()
		return r
	}
}

// at returns the range holding addr.
func (s *spans[T]) at(addr uint64) (T, bool) {
	for n := s.root; n != nil; {
		switch {
		case addr < n.start:
			n = n.left
		case addr >= n.end:
			n = n.right
		default:
			return n.v, true
		}
	}
	var none T
	return none, false
}

// overlapping yields the ranges that overlap [lo, hi), in order. The
// caller may change what they hold, not their bounds, and must not change
// the set meanwhile.
func (s *spans[T]) overlapping(lo, hi uint64) iter.Seq[*T] {
	return func(yield func(*T) bool) {
		if lo < hi {
			visit(s.root, lo, hi, yield)
		}
	}
}

// all yields every range, in order, as overlapping does.
func (s *spans[T]) all() iter.Seq[*T] { return s.overlapping(0, ^uint64(0)) }

// visit yields the ranges of n's subtree that overlap [lo, hi), in order,
// and reports whether yield asked for more. The subtrees wholly outside
// are skipped, so it visits O(depth + k) nodes.
func visit[T any](n *spanNode[T], lo, hi uint64, yield func(*T) bool) bool {
	if n == nil || n.hi <= lo || n.lo >= hi {
		return true
	}
	return visit(n.left, lo, hi, yield) &&
		(n.end <= lo || n.start >= hi || yield(&n.v)) &&
		visit(n.right, lo, hi, yield)
}

// overlaps reports whether any range overlaps [lo, hi).
func (s *spans[T]) overlaps(lo, hi uint64) bool {
	for range s.overlapping(lo, hi) {
		return true
	}
	return false
}

// insert adds v, which must overlap no range of the set.
func (s *spans[T]) insert(v T) {
	n := s.newNode(v)
	l, r := splitTree(s.root, n.start)
	s.root = mergeTrees(mergeTrees(l, n), r)
}

// splitAt splits the range holding at in two there, if at is inside it.
func (s *spans[T]) splitAt(at uint64) {
	v, ok := s.at(at)
	if start, _ := v.bounds(); !ok || start == at {
		return
	}
	l, r := splitTree(s.root, at)
	l, n := popLast(l) // the range holding at
	hi := s.newNode(n.v.clip(at, n.end))
	n.v, n.end = n.v.clip(n.start, at), at
	n.fix()
	s.root = mergeTrees(mergeTrees(l, n), mergeTrees(hi, r))
}

// popLast removes the last range of the non-empty tree t and returns the
// rest and its node, alone.
func popLast[T any](t *spanNode[T]) (rest, last *spanNode[T]) {
	if t.right == nil {
		rest, t.left = t.left, nil
		t.fix()
		return rest, t
	}
	t.right, last = popLast(t.right)
	t.fix()
	return t, last
}

// cut removes [lo, hi) from the set, clipping the ranges that cross its
// bounds, and returns the pieces it removed, in order.
func (s *spans[T]) cut(lo, hi uint64) []T {
	if lo >= hi || !s.overlaps(lo, hi) {
		return nil
	}
	s.splitAt(lo)
	s.splitAt(hi)
	l, rest := splitTree(s.root, lo)
	gone, r := splitTree(rest, hi)
	s.root = mergeTrees(l, r)
	var out []T
	visit(gone, 0, ^uint64(0), func(v *T) bool {
		out = append(out, *v)
		return true
	})
	return out
}

// bytesIn returns the bytes of [lo, hi) the ranges cover.
func (s *spans[T]) bytesIn(lo, hi uint64) uint64 {
	if lo >= hi {
		return 0
	}
	return s.bytesBelow(hi) - s.bytesBelow(lo)
}

// bytesBelow returns the bytes below addr the ranges cover.
func (s *spans[T]) bytesBelow(addr uint64) uint64 {
	var sum uint64
	for n := s.root; n != nil; {
		if addr <= n.start {
			n = n.left
			continue
		}
		sum += min(n.end, addr) - n.start
		if n.left != nil {
			sum += n.left.bytes
		}
		n = n.right
	}
	return sum
}

// first returns the lowest range.
func (s *spans[T]) first() (T, bool) {
	var none T
	n := s.root
	if n == nil {
		return none, false
	}
	for n.left != nil {
		n = n.left
	}
	return n.v, true
}

// lastBelow returns the last range that starts below addr.
func (s *spans[T]) lastBelow(addr uint64) (T, bool) {
	var found *spanNode[T]
	for n := s.root; n != nil; {
		if n.start < addr {
			found, n = n, n.right
		} else {
			n = n.left
		}
	}
	if found == nil {
		var none T
		return none, false
	}
	return found.v, true
}

// gapBelow returns the start of the range after the highest gap of at
// least size bytes between two consecutive ranges that both start below
// top.
func (s *spans[T]) gapBelow(top, size uint64) (uint64, bool) {
	return lastGap(s.root, top, size)
}

// lastGap is gapBelow in n's subtree. Off the path to top a subtree's
// ranges all start below top, so its widest gap says whether it holds
// one: it descends O(depth) nodes.
func lastGap[T any](n *spanNode[T], top, size uint64) (uint64, bool) {
	if n == nil || n.gap < size || n.lo >= top {
		return 0, false
	}
	if n.start < top {
		if at, ok := lastGap(n.right, top, size); ok {
			return at, true
		}
		if r := n.right; r != nil && r.lo < top && r.lo-n.end >= size {
			return r.lo, true
		}
		if l := n.left; l != nil && n.start-l.hi >= size {
			return n.start, true
		}
	}
	return lastGap(n.left, top, size)
}

// clone returns a copy of the set (a fork's), sharing nothing with it.
func (s *spans[T]) clone() spans[T] {
	return spans[T]{root: cloneTree(s.root), seed: s.seed}
}

func cloneTree[T any](n *spanNode[T]) *spanNode[T] {
	if n == nil {
		return nil
	}
	c := *n
	c.left, c.right = cloneTree(n.left), cloneTree(n.right)
	return &c
}
