package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/icount-dev/icount/profile"
)

// treeProfile is a Profile of one process whose call tree is given as
// "parent function self" lines (parent -1 for the root); each function's
// counts are summed from its nodes.
func treeProfile(spec string) *profile.Profile {
	p := sample()
	p.Functions = nil
	at := map[string]int{}
	var total uint64
	for _, line := range strings.Split(strings.TrimSpace(spec), "\n") {
		var n profile.CallNode
		fmt.Sscan(line, &n.Parent, &n.Function, &n.Self)
		n.Module, n.Calls = "prog", 1
		p.CallTree = append(p.CallTree, n)
		total += n.Self
		i, ok := at[n.Function]
		if !ok {
			i = len(p.Functions)
			at[n.Function] = i
			p.Functions = append(p.Functions, profile.FunctionCount{Name: n.Function, Module: "prog"})
		}
		p.Functions[i].Self += n.Self
		p.Functions[i].Calls++
		p.Functions[i].Blocks += n.Self / 4
	}
	for i := len(p.CallTree) - 1; i >= 0; i-- {
		p.CallTree[i].Inclusive += p.CallTree[i].Self
		if par := p.CallTree[i].Parent; par >= 0 {
			p.CallTree[par].Inclusive += p.CallTree[i].Inclusive
		}
	}
	p.Totals.Instructions = total
	p.Processes[0].Functions = p.Functions
	p.Processes[0].Totals = p.Totals
	return p
}

// pageOf decodes the data of a page written by write.
func pageOf(t *testing.T, write func(*bytes.Buffer) error) pageData {
	t.Helper()
	var b bytes.Buffer
	if err := write(&b); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	const open = `<script type="application/json" id="icount-data">`
	i := strings.Index(s, open) + len(open)
	j := i + strings.Index(s[i:], "</script>")
	var d pageData
	if err := json.Unmarshal([]byte(s[i:j]), &d); err != nil {
		t.Fatalf("the page's data: %v", err)
	}
	return d
}

// frames writes a page's tree as "name self [base self, base incl]" lines
// in its order (parents first, the "other" frames last), each indented by
// its depth.
func frames(v pageView) string {
	var b strings.Builder
	depth := make([]int, len(v.Tree.Parent))
	for i, par := range v.Tree.Parent {
		name := v.Tree.Labels[fmt.Sprint(i)]
		switch {
		case v.Tree.Fn[i] >= 0:
			name = v.Table.Rows[v.Tree.Fn[i]][0].(string)
		case name == "":
			name = fmt.Sprintf("other(%d)", v.Tree.Merged[fmt.Sprint(i)])
		}
		if par >= 0 {
			depth[i] = depth[par] + 1
		}
		fmt.Fprintf(&b, "%s%s %d", strings.Repeat("  ", depth[i]), name, v.Tree.Self[i])
		if v.Tree.BaseSelf != nil {
			fmt.Fprintf(&b, " [%d %d]", v.Tree.BaseSelf[i], v.Tree.BaseIncl[i])
		}
		b.WriteString("\n")
	}
	return b.String()
}

const smallTree = `
-1 main 10
0 big 600
1 leaf 300
1 tiny 2
0 small1 40
0 small2 30
4 deep 20
`

// TestHTMLBound: the frames below the share merge into one "other" frame
// per parent, holding all they held, and the page says how many.
func TestHTMLBound(t *testing.T) {
	p := treeProfile(smallTree) // 1,002 instructions
	d := pageOf(t, func(b *bytes.Buffer) error { return WriteHTML(b, p, HTMLOptions{MinShare: 0.1}) })
	v := d.Views[0]
	want := `all 0
  main 10
    big 600
      leaf 300
    other(3) 90
      other(1) 2
`
	if got := frames(v); got != want {
		t.Errorf("the tree at 10%%:\n%s\nwant:\n%s", got, want)
	}
	if b := v.Bound; b.Frames != 8 || b.Kept != 4 || b.Others != 2 || b.Merged != 4 || b.Least != 300 {
		t.Errorf("bound %+v, want 8 frames, 4 kept, 2 others of 4 merged, least 300", b)
	}
	d = pageOf(t, func(b *bytes.Buffer) error { return WriteHTML(b, p, HTMLOptions{}) })
	if v := d.Views[0]; v.Bound.Merged != 0 || len(v.Tree.Parent) != 8 {
		t.Errorf("share 0 keeps %d frames, merged %d; want all 8", len(v.Tree.Parent), v.Bound.Merged)
	}
}

// TestHTMLDiffTree: the head's frames carry the base's counts of the same
// path, -1 where the base has none; an "other" frame the rest of its
// parent's count on each side; a frame only the base has is listed as
// vanished.
func TestHTMLDiffTree(t *testing.T) {
	base := treeProfile(smallTree)
	head := treeProfile(`
-1 main 10
0 big 600
1 leaf 330
1 tiny 2
0 small1 40
0 fresh 30
4 deep 20
`)
	r := Compare(Side{Label: "base"}, Side{Label: "head"}, []Pair{{Base: base, Head: head}}, nil)
	d := pageOf(t, func(b *bytes.Buffer) error { return DiffHTML(b, r, HTMLOptions{MinShare: 0.1}) })
	v := d.Views[0]
	want := `all 0 [0 1002]
  main 10 [10 1002]
    big 600 [600 902]
      leaf 330 [300 300]
    other(3) 90 [90 90]
      other(1) 2 [2 2]
`
	if got := frames(v); got != want {
		t.Errorf("the tree at 10%%:\n%s\nwant:\n%s", got, want)
	}
	d = pageOf(t, func(b *bytes.Buffer) error { return DiffHTML(b, r, HTMLOptions{}) })
	v = d.Views[0]
	want = `all 0 [0 1002]
  main 10 [10 1002]
    big 600 [600 902]
      leaf 330 [300 300]
      tiny 2 [2 2]
    small1 40 [40 60]
    fresh 30 [-1 -1]
      deep 20 [20 20]
`
	if got := frames(v); got != want {
		t.Errorf("the whole tree:\n%s\nwant:\n%s", got, want)
	}
	if v.Vanished == nil || len(v.Vanished.Frames) != 1 || strings.Join(v.Vanished.Frames[0].Path, " > ") != "main (prog) > small2 (prog)" ||
		v.Vanished.Frames[0].Incl != 30 {
		t.Errorf("vanished: %+v, want main > small2 of 30 instructions", v.Vanished)
	}
	if v.Comparison == nil || v.Comparison.Changed != 3 {
		t.Errorf("comparison %+v, want 3 functions changed (leaf, small2, fresh)", v.Comparison)
	}
}

// speedscopeSelf replays an evented profile: each stack of frame names
// (root first) with the count run while it was on top, in the order
// first seen; it fails on unbalanced or decreasing events.
func speedscopeSelf(t *testing.T, f speedscopeFile, sp speedscopeProfile) (order []string, self map[string]uint64) {
	t.Helper()
	self = map[string]uint64{}
	var stack []string
	var last uint64
	for _, e := range sp.Events {
		if e.At < last {
			t.Fatalf("event %+v goes back from %d", e, last)
		}
		if len(stack) > 0 {
			self[strings.Join(stack, ";")] += e.At - last
		}
		last = e.At
		name := f.Shared.Frames[e.Frame].Name
		switch e.Type {
		case "O":
			stack = append(stack, name)
			k := strings.Join(stack, ";")
			if _, ok := self[k]; !ok {
				order = append(order, k)
				self[k] = 0
			}
		case "C":
			if len(stack) == 0 || stack[len(stack)-1] != name {
				t.Fatalf("event %+v closes %v", e, stack)
			}
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) != 0 || last != sp.EndValue {
		t.Fatalf("open at the end: %v; the last event at %d, the profile ends at %d", stack, last, sp.EndValue)
	}
	return order, self
}

// TestSpeedscope: every node of the call tree is a frame open for its
// inclusive count, its own count run on top; the counts sum to the run's.
func TestSpeedscope(t *testing.T) {
	p := treeProfile(smallTree)
	var b bytes.Buffer
	if err := WriteSpeedscope(&b, p); err != nil {
		t.Fatal(err)
	}
	var f speedscopeFile
	if err := json.Unmarshal(b.Bytes(), &f); err != nil {
		t.Fatal(err)
	}
	if f.Schema != SpeedscopeSchema || len(f.Profiles) != 2 {
		t.Fatalf("schema %q, %d profiles; want %q and 2 (instructions, blocks)", f.Schema, len(f.Profiles), SpeedscopeSchema)
	}
	sp := f.Profiles[0]
	order, self := speedscopeSelf(t, f, sp)
	var stacks []string
	for _, k := range order {
		stacks = append(stacks, fmt.Sprintf("%s %d", k, self[k]))
	}
	want := "main 10|main;big 600|main;big;leaf 300|main;big;tiny 2|main;small1 40|main;small1;deep 20|main;small2 30"
	if got := strings.Join(stacks, "|"); got != want || sp.EndValue != p.Totals.Instructions || sp.Type != "evented" || sp.Unit != "none" {
		t.Errorf("stacks %s (end %d, %s, %s)\nwant %s (end %d, evented, none)", got, sp.EndValue, sp.Type, sp.Unit, want, p.Totals.Instructions)
	}
	var blocks uint64
	for _, fc := range p.Functions {
		blocks += fc.Blocks
	}
	if end := f.Profiles[1].EndValue; end != blocks {
		t.Errorf("the block profile ends at %d, the functions' blocks sum to %d", end, blocks)
	}
	speedscopeSelf(t, f, f.Profiles[1])
}
