package kernel

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/icount-dev/icount/emu"
)

// piece is a range for testing spans: off moves with its start, as a file
// mapping's offset does, so that a wrong clip shows.
type piece struct{ start, end, off uint64 }

func (p piece) bounds() (uint64, uint64) { return p.start, p.end }

func (p piece) clip(start, end uint64) piece {
	return piece{start, end, p.off + (start - p.start)}
}

// collect returns the ranges of s, in order.
func collect[T ranged[T]](s *spans[T]) []T {
	var out []T
	for v := range s.all() {
		out = append(out, *v)
	}
	return out
}

// refSpans is the model spans must agree with: a sorted slice, searched
// from the start every time.
type refSpans []piece

func (r refSpans) at(addr uint64) (piece, bool) {
	for _, p := range r {
		if p.start <= addr && addr < p.end {
			return p, true
		}
	}
	return piece{}, false
}

func (r refSpans) overlapping(lo, hi uint64) []piece {
	var out []piece
	for _, p := range r {
		if lo < hi && p.start < hi && lo < p.end {
			out = append(out, p)
		}
	}
	return out
}

func (r *refSpans) insert(p piece) {
	i := 0
	for i < len(*r) && (*r)[i].start < p.start {
		i++
	}
	*r = slices.Insert(*r, i, p)
}

func (r *refSpans) splitAt(at uint64) {
	for i, p := range *r {
		if p.start < at && at < p.end {
			*r = slices.Insert(*r, i+1, p.clip(at, p.end))
			(*r)[i] = p.clip(p.start, at)
			return
		}
	}
}

func (r *refSpans) cut(lo, hi uint64) []piece {
	var gone, kept []piece
	for _, p := range *r {
		if p.end <= lo || p.start >= hi {
			kept = append(kept, p)
			continue
		}
		if p.start < lo {
			kept = append(kept, p.clip(p.start, lo))
		}
		gone = append(gone, p.clip(max(p.start, lo), min(p.end, hi)))
		if p.end > hi {
			kept = append(kept, p.clip(hi, p.end))
		}
	}
	*r = kept
	return gone
}

func (r refSpans) bytesIn(lo, hi uint64) uint64 {
	var n uint64
	for _, p := range r {
		if a, b := max(p.start, lo), min(p.end, hi); a < b {
			n += b - a
		}
	}
	return n
}

func (r refSpans) lastBelow(addr uint64) (piece, bool) {
	for i := len(r) - 1; i >= 0; i-- {
		if r[i].start < addr {
			return r[i], true
		}
	}
	return piece{}, false
}

func (r refSpans) gapBelow(top, size uint64) (uint64, bool) {
	for i := len(r) - 1; i > 0; i-- {
		if r[i].start < top && r[i].start-r[i-1].end >= size {
			return r[i].start, true
		}
	}
	return 0, false
}

// checkTree checks what every node of the tree knows of its subtree,
// against what its ranges say, and the treap's order, and returns its
// ranges.
func checkTree(t *testing.T, root *spanNode[piece]) []piece {
	t.Helper()
	var all []piece
	// walk appends the ranges of n's subtree and returns what the node
	// should know of it.
	var walk func(n *spanNode[piece]) (spanNode[piece], error)
	walk = func(n *spanNode[piece]) (spanNode[piece], error) {
		if s, e := n.v.bounds(); s != n.start || e != n.end || s >= e {
			return spanNode[piece]{}, fmt.Errorf("node %+v: bounds %d-%d", n.v, n.start, n.end)
		}
		want := spanNode[piece]{lo: n.start, hi: n.end, bytes: n.end - n.start}
		if l := n.left; l != nil {
			sub, err := walk(l)
			if err != nil {
				return sub, err
			}
			if l.prio > n.prio || sub.hi > n.start {
				return sub, fmt.Errorf("node %+v: its left subtree is out of order", n.v)
			}
			want.lo, want.gap, want.bytes = sub.lo, max(sub.gap, n.start-sub.hi), want.bytes+sub.bytes
		}
		all = append(all, n.v)
		if r := n.right; r != nil {
			sub, err := walk(r)
			if err != nil {
				return sub, err
			}
			if r.prio > n.prio || sub.lo < n.end {
				return sub, fmt.Errorf("node %+v: its right subtree is out of order", n.v)
			}
			want.hi, want.gap, want.bytes = sub.hi, max(want.gap, sub.gap, sub.lo-n.end), want.bytes+sub.bytes
		}
		if n.lo != want.lo || n.hi != want.hi || n.gap != want.gap || n.bytes != want.bytes {
			return want, fmt.Errorf("node %+v knows lo %d hi %d gap %d bytes %d of its subtree, want %d %d %d %d",
				n.v, n.lo, n.hi, n.gap, n.bytes, want.lo, want.hi, want.gap, want.bytes)
		}
		return want, nil
	}
	if root != nil {
		if _, err := walk(root); err != nil {
			t.Fatal(err)
		}
	}
	return all
}

// TestSpansAgreeWithReference makes 6,000 random changes to a set of
// spans and to the model, among up to hundreds of ranges, and checks the
// set's ranges, its subtrees' summaries and the answers of every query
// against the model's after each.
func TestSpansAgreeWithReference(t *testing.T) {
	var s spans[piece]
	var ref refSpans
	rng := rand.New(rand.NewPCG(14, 1))
	const space = 4000
	addr := func() uint64 { return uint64(rng.IntN(space + 20)) }
	for i := range 6000 {
		lo := addr()
		hi := lo + 1 + uint64(rng.IntN(24))
		what := ""
		switch op := rng.IntN(10); {
		case op < 5: // insert where nothing is, half as often as the others remove
			if len(ref.overlapping(lo, hi)) == 0 {
				p := piece{lo, hi, uint64(rng.IntN(1 << 20))}
				s.insert(p)
				ref.insert(p)
				what = fmt.Sprintf("insert %+v", p)
			}
		case op < 8:
			got, want := s.cut(lo, hi), ref.cut(lo, hi)
			if !slices.Equal(got, want) {
				t.Fatalf("op %d: cut %d-%d removed %+v, want %+v", i, lo, hi, got, want)
			}
			what = fmt.Sprintf("cut %d-%d", lo, hi)
		default:
			s.splitAt(lo)
			ref.splitAt(lo)
			what = fmt.Sprintf("split at %d", lo)
		}
		if got := checkTree(t, s.root); !slices.Equal(got, []piece(ref)) {
			t.Fatalf("op %d (%s): ranges\n%+v\nwant\n%+v", i, what, got, ref)
		}
		for range 4 {
			a, b := addr(), addr()
			lo, hi := min(a, b), max(a, b)
			p, ok := s.at(a)
			if wp, wok := ref.at(a); p != wp || ok != wok {
				t.Fatalf("op %d: at %d: %+v %v, want %+v %v", i, a, p, ok, wp, wok)
			}
			var got []piece
			for p := range s.overlapping(lo, hi) {
				got = append(got, *p)
			}
			if want := ref.overlapping(lo, hi); !slices.Equal(got, want) || s.overlaps(lo, hi) != (len(want) > 0) {
				t.Fatalf("op %d: overlapping %d-%d: %+v (overlaps %v), want %+v", i, lo, hi, got, s.overlaps(lo, hi), want)
			}
			if got, want := s.bytesIn(lo, hi), ref.bytesIn(lo, hi); got != want {
				t.Fatalf("op %d: bytesIn %d-%d: %d, want %d", i, lo, hi, got, want)
			}
			p, ok = s.lastBelow(a)
			if wp, wok := ref.lastBelow(a); p != wp || ok != wok {
				t.Fatalf("op %d: lastBelow %d: %+v %v, want %+v %v", i, a, p, ok, wp, wok)
			}
			size := uint64(1 + rng.IntN(40))
			at, ok := s.gapBelow(a, size)
			if wat, wok := ref.gapBelow(a, size); at != wat || ok != wok {
				t.Fatalf("op %d: gapBelow %d size %d: %d %v, want %d %v", i, a, size, at, ok, wat, wok)
			}
		}
		if got, want := s.bytesIn(0, ^uint64(0)), ref.bytesIn(0, ^uint64(0)); got != want {
			t.Fatalf("op %d: %d bytes in all, want %d", i, got, want)
		}
		if p, ok := s.first(); ok != (len(ref) > 0) || ok && p != ref[0] {
			t.Fatalf("op %d: first %+v %v", i, p, ok)
		}
	}
	if n := len(ref); n < 150 {
		t.Errorf("the test kept at most %d ranges at the end, too few to exercise the tree", n)
	}
}

// TestFindFreeAgreesWithScan checks findFree, which searches the gaps the
// tree knows of, against a scan of every mapping from the top down, 8,000
// times among up to thousands of random mappings, some straddling mmapTop and some below the
// heap's end.
func TestFindFreeAgreesWithScan(t *testing.T) {
	m := newAddressSpace(nopCPU{})
	const top = 0x10000000
	m.mmapTop = top
	rng := rand.New(rand.NewPCG(14, 2))
	var vmas []vma
	scan := func(size uint64) (uint64, bool) {
		vmas = vmas[:0]
		for v := range m.vmas.all() {
			vmas = append(vmas, *v)
		}
		end := m.mmapTop
		for i := len(vmas) - 1; i >= 0; i-- {
			v := vmas[i]
			if v.start >= end {
				continue
			}
			if v.end <= end && end-v.end >= size {
				return end - size, true
			}
			end = min(end, v.start)
		}
		if end >= size+emu.PageSize*16 && end-size >= m.brk+mmapGap/4 {
			return end - size, true
		}
		return 0, false
	}
	for i := range 8000 {
		start := uint64(rng.IntN(top/pg+64)) * pg
		if rng.IntN(8) == 0 {
			start = top - uint64(rng.IntN(64))*pg // near the top
		}
		end := start + uint64(1+rng.IntN(16))*pg
		if rng.IntN(3) == 0 {
			if err := m.unmap(start, end); err != nil {
				t.Fatal(err)
			}
		} else if !m.overlaps(start, end) {
			if err := m.Map(start, end-start, emu.ProtRead, ""); err != nil {
				t.Fatal(err)
			}
		}
		m.brk = uint64(rng.IntN(4)) * (top / 8)
		size := uint64(1+rng.IntN(64)) * pg
		if rng.IntN(16) == 0 {
			size = uint64(rng.IntN(top/pg)) * pg
		}
		got, ok := m.findFree(size)
		if want, wok := scan(size); got != want || ok != wok {
			t.Fatalf("op %d: findFree(%#x) = %#x %v, the scan says %#x %v", i, size, got, ok, want, wok)
		}
	}
	if n := len(collect(&m.vmas)); n < 1000 {
		t.Errorf("the test kept %d mappings at the end, want thousands", n)
	}
}

// refProvenance is the model provenance must agree with: its regions in a
// sorted slice that every change rebuilds.
type refProvenance struct {
	regions []region
	log     []ExecMapping
}

func (v *refProvenance) cut(start, end uint64) {
	var out []region
	for _, r := range v.regions {
		if r.end <= start || r.start >= end {
			out = append(out, r)
			continue
		}
		if r.start < start {
			out = append(out, r.clip(r.start, start))
		}
		if r.end > end {
			out = append(out, r.clip(end, r.end))
		}
	}
	v.regions = out
}

func (v *refProvenance) insert(r region) {
	v.cut(r.start, r.end)
	r.log = -1
	if r.exec {
		r.log = len(v.log)
		v.log = append(v.log, ExecMapping{Start: r.start, End: r.end, Path: r.path, Offset: r.offset})
	}
	i := 0
	for i < len(v.regions) && v.regions[i].start < r.start {
		i++
	}
	v.regions = slices.Insert(v.regions, i, r)
}

func (v *refProvenance) protected(start, end uint64, exec bool) {
	var changed []region
	at := start
	for _, r := range v.regions {
		if r.end <= start || r.start >= end {
			continue
		}
		if r.start > at && exec {
			changed = append(changed, region{start: at, end: r.start, exec: true})
		}
		at = r.end
		if r.exec != exec {
			lo, hi := max(r.start, start), min(r.end, end)
			changed = append(changed, region{start: lo, end: hi, path: r.path, offset: r.offset + (lo - r.start), exec: exec})
		}
	}
	if at < end && exec {
		changed = append(changed, region{start: at, end: end, exec: true})
	}
	for _, r := range changed {
		v.insert(r)
	}
}

func (v *refProvenance) moved(old, size, new uint64) {
	var pieces []region
	for _, r := range v.regions {
		if lo, hi := max(r.start, old), min(r.end, old+size); lo < hi {
			pieces = append(pieces, region{start: lo - old + new, end: hi - old + new, path: r.path, offset: r.offset + (lo - r.start), exec: r.exec})
		}
	}
	v.cut(old, old+size)
	for _, r := range pieces {
		v.insert(r)
	}
}

func (v *refProvenance) grown(end, newEnd uint64) {
	for _, r := range v.regions {
		if r.end == end {
			v.insert(region{start: end, end: newEnd, path: r.path, offset: r.offset + (end - r.start), exec: r.exec})
			return
		}
	}
}

// TestProvenanceAgreesWithReference maps, unmaps, protects, moves and
// grows ranges at random, 4,000 times among hundreds of regions, and
// checks the regions, the log and ExecMappingAt against the model after
// each change.
func TestProvenanceAgreesWithReference(t *testing.T) {
	p := &Image{prov: &provenance{}}
	v := p.prov
	var ref refProvenance
	rng := rand.New(rand.NewPCG(14, 3))
	const npages = 1000
	page := func() uint64 { return uint64(rng.IntN(npages)) * pg }
	prots := []emu.Prot{emu.ProtRead, emu.ProtRead | emu.ProtWrite, emu.ProtRead | emu.ProtExec}
	paths := []string{"", "/lib/libc.so.6", "/bin/prog"}
	for i := range 4000 {
		start := page()
		end := start + uint64(1+rng.IntN(12))*pg
		prot := prots[rng.IntN(len(prots))]
		what := ""
		switch rng.IntN(6) {
		case 0, 1:
			path, off := paths[rng.IntN(len(paths))], page()
			v.mapped(start, end, prot, path, off)
			ref.insert(region{start: start, end: end, path: path, offset: off, exec: prot&emu.ProtExec != 0})
			what = fmt.Sprintf("map %#x-%#x %v %s+%#x", start, end, prot, path, off)
		case 2:
			v.cut(start, end)
			ref.cut(start, end)
			what = fmt.Sprintf("cut %#x-%#x", start, end)
		case 3:
			v.protected(start, end, prot)
			ref.protected(start, end, prot&emu.ProtExec != 0)
			what = fmt.Sprintf("protect %#x-%#x %v", start, end, prot)
		case 4:
			to := uint64(npages+rng.IntN(npages)) * pg
			v.moved(start, end-start, to)
			ref.moved(start, end-start, to)
			what = fmt.Sprintf("move %#x-%#x to %#x", start, end, to)
		case 5:
			v.grown(start, end)
			ref.grown(start, end)
			what = fmt.Sprintf("grow %#x to %#x", start, end)
		}
		if got := collect(&v.regions); !slices.Equal(got, ref.regions) {
			t.Fatalf("op %d (%s): regions\n%+v\nwant\n%+v", i, what, got, ref.regions)
		}
		// The log only grows: its last entry is the one to check.
		if log := p.ExecMappings(); len(log) != len(ref.log) || len(log) > 0 && log[len(log)-1] != ref.log[len(log)-1] {
			t.Fatalf("op %d (%s): log ends %+v\nwant %+v", i, what, log[max(0, len(log)-2):], ref.log[max(0, len(ref.log)-2):])
		}
		for range 4 {
			addr := uint64(rng.IntN(2*npages*pg + pg))
			got, ok := p.ExecMappingAt(addr)
			want, wok := 0, false
			for _, r := range ref.regions {
				if r.start <= addr && addr < r.end && r.exec {
					want, wok = r.log, true
				}
			}
			if got != want || ok != wok {
				t.Fatalf("op %d (%s): ExecMappingAt(%#x) = %d %v, want %d %v", i, what, addr, got, ok, want, wok)
			}
		}
	}
	if !slices.Equal(p.ExecMappings(), ref.log) {
		t.Errorf("log %+v\nwant %+v", p.ExecMappings(), ref.log)
	}
	if n := len(ref.regions); n < 200 {
		t.Errorf("the test kept %d regions at the end, too few to exercise the tree", n)
	}
}

// nopCPU maps and unmaps nothing, for the address space alone.
type nopCPU struct{ CPU }

func (nopCPU) Map(addr, size uint64, prot emu.Prot) error     { return nil }
func (nopCPU) Unmap(addr, size uint64) error                  { return nil }
func (nopCPU) Protect(addr, size uint64, prot emu.Prot) error { return nil }
func (nopCPU) InvalidateCode(addr, size uint64) error         { return nil }

// BenchmarkMappings measures what mmap and munmap do to the address space
// and the provenance among n mappings kept, one page each and alternately
// read-only and writable as mmapstress keeps them: an anonymous mapping
// placed below them, then unmapped; a kept one protected and back; one
// unmapped and mapped again in place. Each iteration does all three: its
// time must not grow with n (but as log n).
func BenchmarkMappings(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			m := newAddressSpace(nopCPU{})
			var prov provenance
			const top = 0x7ffffffff000
			if err := m.Map(top-(8<<20), 8<<20, emu.ProtRead|emu.ProtWrite, "[stack]"); err != nil {
				b.Fatal(err)
			}
			m.setBrk(0x500000)
			rw := emu.ProtRead | emu.ProtWrite
			mmap := func(size uint64, prot emu.Prot) uint64 {
				addr, ok := m.findFree(size)
				if !ok {
					b.Fatal("no room")
				}
				if err := m.Map(addr, size, prot, ""); err != nil {
					b.Fatal(err)
				}
				prov.mapped(addr, addr+size, prot, "", 0)
				return addr
			}
			munmap := func(addr, size uint64) {
				prov.cut(addr, addr+size)
				if err := m.unmap(addr, addr+size); err != nil {
					b.Fatal(err)
				}
			}
			kept := make([]uint64, n)
			for i := range kept {
				kept[i] = mmap(pg, rw&^(emu.Prot(i%2)*emu.ProtWrite))
			}
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				size := uint64(1+i%16) * pg
				munmap(mmap(size, rw), size)
				k := kept[i%n]
				if err := m.protect(k, k+pg, emu.ProtRead|emu.ProtExec); err != nil {
					b.Fatal(err)
				}
				prov.protected(k, k+pg, emu.ProtRead|emu.ProtExec)
				if err := m.protect(k, k+pg, rw); err != nil {
					b.Fatal(err)
				}
				prov.protected(k, k+pg, rw)
				munmap(k, pg)
				if err := m.Map(k, pg, rw, ""); err != nil {
					b.Fatal(err)
				}
				prov.mapped(k, k+pg, rw, "", 0)
				if m.vmas.bytesIn(0, ^uint64(0)) != 8<<20+uint64(n)*pg {
					b.Fatal("mapped bytes")
				}
			}
		})
	}
}
