package report

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/icount-dev/icount/internal/browser"
	"github.com/icount-dev/icount/profile"
)

// maxPageBytes is what a page may weigh, whatever the Profile.
const maxPageBytes = 10 << 20

// bigProfile is a Profile of n functions in 20 modules, called in 1.3 n
// contexts of a random tree (each node's parent any node before it, as a
// random recursive tree: a few dozen levels deep), with heavy-tailed self
// counts, as a large C++ program's.
func bigProfile(n int, seed uint64) *profile.Profile {
	rng := rand.New(rand.NewPCG(seed, 20))
	p := sample()
	p.Functions = make([]profile.FunctionCount, n)
	for i := range p.Functions {
		p.Functions[i] = profile.FunctionCount{
			Name:   fmt.Sprintf("subsystem%d::Component%d::handle_request_%d", i%97, i%1009, i),
			Module: fmt.Sprintf("lib%d.so", i%20),
			File:   fmt.Sprintf("/src/subsystem%d/component%d.cc", i%97, i%1009), Line: 1 + i%2000,
		}
	}
	nodes := n + 3*n/10
	p.CallTree = make([]profile.CallNode, nodes)
	var total uint64
	for i := range p.CallTree {
		fn := i
		if i >= n {
			fn = rng.IntN(n)
		}
		parent := -1
		if i > 0 {
			parent = rng.IntN(i)
		}
		self := uint64(math.Exp(rng.NormFloat64()*2.5 + 6))
		f := &p.Functions[fn]
		p.CallTree[i] = profile.CallNode{Parent: parent, Function: f.Name, Module: f.Module, Self: self, Inclusive: self, Calls: 1 + self%7}
		f.Self += self
		f.Blocks += self / 4
		f.Calls += p.CallTree[i].Calls
		total += self
	}
	for i := nodes - 1; i > 0; i-- {
		p.CallTree[p.CallTree[i].Parent].Inclusive += p.CallTree[i].Inclusive
	}
	p.Totals.Instructions = total
	p.Processes[0].Functions, p.Processes[0].Totals = p.Functions, p.Totals
	return p
}

// TestHTMLBigProfile writes the page of a Profile of 200,000 functions (and
// a comparison of two), checks that it weighs under 10 MB and loads without
// an error in headless Chromium, and logs its size and how long it took
// to write and to draw (measured, not asserted: this machine is shared).
func TestHTMLBigProfile(t *testing.T) {
	b := browser.ForTest(t)
	head := bigProfile(200000, 1)
	base := bigProfile(200000, 1)
	for i := 0; i < len(base.CallTree); i += 997 { // the base did less in a few hundred contexts
		base.CallTree[i].Self /= 2
	}
	pages := []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"run", func(w *bytes.Buffer) error { return WriteHTML(w, head, HTMLOptions{MinShare: DefaultMinShare}) }},
		{"run-all-frames", func(w *bytes.Buffer) error { return WriteHTML(w, head, HTMLOptions{}) }},
		{"diff", func(w *bytes.Buffer) error {
			r := Compare(Side{Label: "base"}, Side{Label: "head"}, []Pair{{Base: base, Head: head}}, nil)
			return DiffHTML(w, r, HTMLOptions{MinShare: DefaultMinShare})
		}},
	}
	for _, pg := range pages {
		t.Run(pg.name, func(t *testing.T) {
			var buf bytes.Buffer
			start := time.Now()
			if err := pg.write(&buf); err != nil {
				t.Fatal(err)
			}
			wrote := time.Since(start)
			file := filepath.Join(t.TempDir(), pg.name+".html")
			if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			if buf.Len() >= maxPageBytes {
				t.Errorf("the page weighs %d bytes, not under %d", buf.Len(), maxPageBytes)
			}
			d := pageOf(t, func(w *bytes.Buffer) error { _, err := w.Write(buf.Bytes()); return err })
			v := d.Views[0]
			p, took, err := b.Open(file, 1400, 1000, `document.documentElement.dataset.ready === 'true'`, 2*time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			loadMs, err := browser.Eval[string](p, `document.documentElement.dataset.loadMs`)
			if err != nil {
				t.Fatal(err)
			}
			drawn, err := browser.Eval[string](p, `document.getElementById('flame-graph').dataset.drawn`)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d functions, %d contexts: page of %.2f MB (%d frames kept, %d in %d \"other\" frames, %d table rows) written in %v; drawn in %v (the page's own clock: %s ms after navigation), %s frames drawn",
				len(head.Functions), len(head.CallTree), float64(buf.Len())/(1<<20), v.Bound.Kept, v.Bound.Merged, v.Bound.Others,
				len(v.Table.Rows), wrote.Round(time.Millisecond), took.Round(time.Millisecond), loadMs, drawn)
			if n, _ := browser.Eval[string](p, `document.getElementById('flame-graph').dataset.frames`); n != strconv.Itoa(len(v.Tree.Parent)) {
				t.Errorf("the graph holds %s frames, the page's data %d", n, len(v.Tree.Parent))
			}
			named := map[int]bool{}
			for _, f := range v.Tree.Fn {
				named[f] = f >= 0
			}
			if v.Bound.Kept > maxFrames || len(v.Table.Rows) > max(maxRows, len(named)) {
				t.Errorf("%d frames and %d rows embedded, over the bounds %d and %d", v.Bound.Kept, len(v.Table.Rows), maxFrames, max(maxRows, len(named)))
			}
			searched, err := browser.Eval[float64](p, `(() => {
				const s = document.getElementById('search'), t0 = performance.now();
				s.value = 'handle_request_1';
				s.dispatchEvent(new Event('input'));
				return new Promise(ok => { const wait = () => document.getElementById('search-status').dataset.frames ? ok(performance.now() - t0) : setTimeout(wait, 5); wait(); });
			})()`)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("a search marked its frames %.0f ms after the input (120 ms of them waiting for more keys)", searched)
			if errs := p.Errors(); len(errs) > 0 {
				t.Errorf("the page's console has errors: %v", errs)
			}
		})
	}
}
