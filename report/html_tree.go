package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/icount-dev/icount/profile"
)

// Kinds of a frame of the page's tree.
const (
	frameFunction = iota // a node of the Profile's calling-context tree
	frameAll             // the root: the whole run
	frameProcess         // one program the run's processes ran
)

// flameNode is one frame of the calling-context tree as the page draws
// it. Frames are keyed by what they are (the function, or the process),
// so that the same frame is found in another run's tree.
type flameNode struct {
	parent int
	key    string
	kind   int
	label  string // a process frame's text
	proc   int    // a process frame's entry in Profile.Processes
	module string
	name   string
	// self and blocks are the instructions and block executions in the
	// frame's own code; incl and blocksIncl with its descendants'.
	self, incl, blocks, blocksIncl, calls uint64
}

// childKey finds a frame by its parent and key.
type childKey struct {
	parent int
	key    string
}

// flameTree is a run's calling-context tree under one root frame (the
// whole run), with one frame per process between the root and each
// process's tree when the run had more than one: parents before their
// children, siblings of one key merged (two functions of one name in one
// module), so that a path of keys names at most one frame.
type flameTree struct {
	nodes []flameNode
	child map[childKey]int
}

// processKey names a process frame: its entry in the head's Processes
// (the base's entries are named by the head's entry they were matched
// with).
func processKey(i int) string { return fmt.Sprintf("\x01process %d", i) }

// newFlameTree builds the page's tree of p; with multi, a frame for each
// process, named by procKey (see processKey). A Profile without a call
// tree (--count-only) gives the root alone.
func newFlameTree(p *profile.Profile, multi bool, procKey func(int) string) *flameTree {
	size := 1 + len(p.Processes) + len(p.CallTree)
	t := &flameTree{child: make(map[childKey]int, size), nodes: make([]flameNode, 0, size)}
	t.nodes = append(t.nodes, flameNode{parent: -1, key: "\x01all", kind: frameAll, label: "all"})
	procFrame := make([]int, len(p.Processes))
	if multi {
		for i, pr := range p.Processes {
			procFrame[i] = t.add(0, flameNode{key: procKey(i), kind: frameProcess, proc: i,
				label: fmt.Sprintf("pid %d %s", pr.PID, argvLine(pr))})
		}
	}
	blocks := contextBlocks(p)
	at := make([]int, len(p.CallTree))
	for i, n := range p.CallTree {
		parent := 0
		switch {
		case n.Parent >= 0:
			parent = at[n.Parent]
		case multi && n.Process >= 0 && n.Process < len(procFrame):
			parent = procFrame[n.Process]
		}
		key, _ := functionKey(p, profile.FunctionCount{Name: n.Function, Module: n.Module})
		at[i] = t.add(parent, flameNode{key: key, kind: frameFunction, module: n.Module, name: n.Function})
		f := &t.nodes[at[i]]
		f.self += n.Self
		f.blocks += blocks[i]
		f.calls += n.Calls
	}
	for i := range t.nodes {
		t.nodes[i].incl, t.nodes[i].blocksIncl = t.nodes[i].self, t.nodes[i].blocks
	}
	for i := len(t.nodes) - 1; i > 0; i-- {
		n := t.nodes[i]
		t.nodes[n.parent].incl += n.incl
		t.nodes[n.parent].blocksIncl += n.blocksIncl
	}
	return t
}

// add returns the frame of key under parent, made from n if there is none.
func (t *flameTree) add(parent int, n flameNode) int {
	k := childKey{parent, n.key}
	if i, ok := t.child[k]; ok {
		return i
	}
	n.parent = parent
	t.nodes = append(t.nodes, n)
	t.child[k] = len(t.nodes) - 1
	return len(t.nodes) - 1
}

// keep chooses the frames the page embeds: the root, and every frame whose
// inclusive instructions are at least minShare of the root's, at most
// maxFrames of them, the largest. A parent's inclusive count is at least
// its child's and it comes first, so the frames kept are closed under
// their ancestors. It returns the smallest inclusive count kept.
func (t *flameTree) keep(minShare float64, maxFrames int) (kept []bool, least uint64) {
	kept = make([]bool, len(t.nodes))
	floor := uint64(math.Ceil(minShare * float64(t.nodes[0].incl)))
	var cands []int
	for i, n := range t.nodes {
		if i == 0 || n.incl >= floor {
			cands = append(cands, i)
		}
	}
	if len(cands) > maxFrames {
		slices.SortStableFunc(cands, func(a, b int) int { return cmp.Compare(t.nodes[b].incl, t.nodes[a].incl) })
		cands = cands[:maxFrames]
	}
	least = t.nodes[0].incl
	for _, i := range cands {
		kept[i] = true
		least = min(least, t.nodes[i].incl)
	}
	return kept, least
}

// baseOf finds each of the head's frames in the base's tree by its path
// of keys: -1 where the base has no such frame.
func baseOf(head, base *flameTree) []int {
	at := make([]int, len(head.nodes))
	at[0] = 0
	for i := 1; i < len(head.nodes); i++ {
		at[i] = -1
		if p := at[head.nodes[i].parent]; p >= 0 {
			if j, ok := base.child[childKey{p, head.nodes[i].key}]; ok {
				at[i] = j
			}
		}
	}
	return at
}

// treeJSON is the tree the page draws, column by column: parents before
// their children. Inclusive counts are the page's to sum (an "other"
// frame's self count is all it stands for). A comparison's base columns
// hold -1 for a frame the base does not have.
type treeJSON struct {
	Parent []int             `json:"parent"`
	Fn     []int             `json:"fn"`     // the function's row in the table; -1 for a frame that is none
	Labels map[string]string `json:"labels"` // what a frame that is no function is: the root, a process
	Merged map[string]int    `json:"merged"` // an "other" frame: how many frames it stands for
	Self   []uint64          `json:"self"`
	Blocks []uint64          `json:"blocks"`
	Calls  []uint64          `json:"calls"`

	BaseSelf       []int64 `json:"base_self,omitempty"`
	BaseIncl       []int64 `json:"base_incl,omitempty"`
	BaseBlocks     []int64 `json:"base_blocks,omitempty"`
	BaseBlocksIncl []int64 `json:"base_blocks_incl,omitempty"`
}

// rootJSON is a root the page offers to draw the tree from: the whole
// run, and each process of a run of several. (Each is a frame of the tree:
// other kinds of roots, such as a benchmark's parts, become frames too.)
type rootJSON struct {
	Label   string `json:"label"`
	Node    int    `json:"node"`
	Process *int   `json:"process,omitempty"` // its entry in the head's processes
}

// vanishedJSON lists the frames of the base that the head's tree does not
// have (the outermost of each vanished subtree), largest first.
type vanishedJSON struct {
	Frames []vanishedFrame `json:"frames"`
	More   int             `json:"more"` // left out of the list
}

type vanishedFrame struct {
	Path []string `json:"path"` // from the root's child to the frame
	Self uint64   `json:"self"`
	Incl uint64   `json:"incl"`
}

// flameGraph is a view's tree with what the page says of it; fnKeys
// are each frame's function key ("" for a frame that is none), for the
// table to give the rows.
type flameGraph struct {
	tree     treeJSON
	fnKeys   []string
	roots    []rootJSON
	bound    boundInfo
	vanished *vanishedJSON
}

// buildFlame builds the page's tree of head, bounded by o.MinShare and
// maxFrames, and with base its frames' base counts and the frames that
// vanished. A comparison's processes are matched as its rows match them.
func buildFlame(o HTMLOptions, c *Comparison, head, base *profile.Profile) flameGraph {
	multi := len(head.Processes) > 1 || base != nil && len(base.Processes) > 1
	ht := newFlameTree(head, multi, processKey)
	kept, least := ht.keep(o.MinShare, maxFrames)
	var bt *flameTree
	var at []int
	if base != nil {
		match := map[int]int{} // base entry to head entry
		if c != nil && len(c.Processes) > 0 {
			for _, r := range c.Processes {
				if r.Base != nil && r.Head != nil {
					match[r.Base.Index] = r.Head.Index
				}
			}
		} else {
			match[0] = 0
		}
		bt = newFlameTree(base, multi, func(i int) string {
			if h, ok := match[i]; ok {
				return processKey(h)
			}
			return fmt.Sprintf("\x01base process %d", i)
		})
		at = baseOf(ht, bt)
	}

	var g flameGraph
	g.bound = boundInfo{MinShare: o.MinShare, Least: least, Frames: len(ht.nodes)}
	t := &g.tree
	t.Labels, t.Merged = map[string]string{}, map[string]int{}
	out := make([]int, len(ht.nodes)) // frame to the page's frame
	push := func(parent int, fnKey string, self, blocks, calls uint64) int {
		t.Parent = append(t.Parent, parent)
		t.Self = append(t.Self, self)
		t.Blocks = append(t.Blocks, blocks)
		t.Calls = append(t.Calls, calls)
		g.fnKeys = append(g.fnKeys, fnKey)
		return len(t.Parent) - 1
	}
	pushBase := func(self, incl, blocks, blocksIncl int64) {
		t.BaseSelf = append(t.BaseSelf, self)
		t.BaseIncl = append(t.BaseIncl, incl)
		t.BaseBlocks = append(t.BaseBlocks, blocks)
		t.BaseBlocksIncl = append(t.BaseBlocksIncl, blocksIncl)
	}
	for i, n := range ht.nodes {
		if !kept[i] {
			continue
		}
		parent := -1
		if i > 0 {
			parent = out[n.parent]
		}
		key := ""
		if n.kind == frameFunction {
			key = n.key
		}
		out[i] = push(parent, key, n.self, n.blocks, n.calls)
		g.bound.Kept++
		if n.kind != frameFunction {
			t.Labels[fmt.Sprint(out[i])] = n.label
			switch n.kind {
			case frameAll:
				g.roots = append(g.roots, rootJSON{Label: "the whole run", Node: out[i]})
			case frameProcess:
				g.roots = append(g.roots, rootJSON{Label: n.label, Node: out[i], Process: &n.proc})
			}
		}
		if bt != nil {
			if j := at[i]; j >= 0 {
				b := bt.nodes[j]
				pushBase(int64(b.self), int64(b.incl), int64(b.blocks), int64(b.blocksIncl))
			} else {
				pushBase(-1, -1, -1, -1)
			}
		}
	}
	// One "other" frame per parent for the children left out: the rest of
	// the parent's inclusive count, on each side.
	type rest struct {
		incl, blocks uint64
		frames       int    // frames left out below the parent
		baseKept     uint64 // the base's counts of the kept children's frames
		baseKeptBl   uint64
	}
	rests := map[int]*rest{}
	restOf := func(i int) *rest {
		r := rests[i]
		if r == nil {
			r = &rest{}
			rests[i] = r
		}
		return r
	}
	owner := make([]int, len(ht.nodes)) // a frame left out: the kept frame whose "other" holds it
	for i := 1; i < len(ht.nodes); i++ {
		n := ht.nodes[i]
		switch {
		case kept[i]:
			if bt != nil && at[i] >= 0 {
				r := restOf(n.parent)
				r.baseKept += bt.nodes[at[i]].incl
				r.baseKeptBl += bt.nodes[at[i]].blocksIncl
			}
			continue
		case kept[n.parent]:
			owner[i] = n.parent
			r := restOf(n.parent)
			r.incl += n.incl
			r.blocks += n.blocksIncl
		default:
			owner[i] = owner[n.parent]
		}
		restOf(owner[i]).frames++
	}
	for i := range ht.nodes {
		r := rests[i]
		if r == nil || r.frames == 0 {
			continue
		}
		g.bound.Merged += r.frames
		if r.incl == 0 && r.blocks == 0 && (bt == nil || at[i] < 0 || bt.nodes[at[i]].incl == bt.nodes[at[i]].self+r.baseKept) {
			continue // nothing to draw on either side
		}
		o := push(out[i], "", r.incl, r.blocks, 0)
		t.Merged[fmt.Sprint(o)] = r.frames
		g.bound.Others++
		if bt == nil {
			continue
		}
		if j := at[i]; j >= 0 {
			// The base's rest: its parent's inclusive count less its own
			// and that of the children the head's kept frames match.
			b := bt.nodes[j]
			incl, blocks := int64(b.incl-b.self-r.baseKept), int64(b.blocksIncl-b.blocks-r.baseKeptBl)
			pushBase(incl, incl, blocks, blocks)
		} else {
			pushBase(-1, -1, -1, -1)
		}
	}
	if bt != nil {
		g.vanished = vanishedFrames(ht, bt, at)
	}
	return g
}

// vanishedFrames lists the base's frames whose path the head's tree does
// not have, the outermost of each such subtree, largest first.
func vanishedFrames(ht, bt *flameTree, at []int) *vanishedJSON {
	inHead := make([]bool, len(bt.nodes))
	for _, j := range at {
		if j >= 0 {
			inHead[j] = true
		}
	}
	var gone []int
	for j := 1; j < len(bt.nodes); j++ {
		if !inHead[j] && inHead[bt.nodes[j].parent] {
			gone = append(gone, j)
		}
	}
	if len(gone) == 0 {
		return nil
	}
	slices.SortStableFunc(gone, func(a, b int) int { return cmp.Compare(bt.nodes[b].incl, bt.nodes[a].incl) })
	v := &vanishedJSON{More: max(0, len(gone)-maxVanished)}
	for _, j := range gone[:min(len(gone), maxVanished)] {
		var path []string
		for k := j; k > 0; k = bt.nodes[k].parent {
			path = append(path, frameName(bt.nodes[k]))
		}
		slices.Reverse(path)
		n := bt.nodes[j]
		v.Frames = append(v.Frames, vanishedFrame{Path: path, Self: n.self, Incl: n.incl})
	}
	return v
}

// frameName is how the page names a frame: a function demangled, with
// its module.
func frameName(n flameNode) string {
	if n.kind != frameFunction {
		return n.label
	}
	s := cut(DisplayName(n.name), maxNameLen)
	if n.module != "" {
		s += " (" + n.module + ")"
	}
	return s
}
