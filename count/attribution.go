package count

import (
	"sort"

	"github.com/icount-dev/icount/emu"
	"github.com/icount-dev/icount/profile"
)

// attribute turns the C calling-context tree into the Profile's tree and
// per-function costs. A function's inclusive cost counts each instruction
// once however deep it recurses: only its outermost contexts are summed.
func attribute(nodes []emu.Node, mods *modules) ([]profile.CallNode, []profile.FunctionCount) {
	tree := make([]profile.CallNode, len(nodes))
	for i, n := range nodes {
		parent := n.Parent
		if i == 0 {
			parent = -1
		}
		q := mods.nameOf(n.Func)
		tree[i] = profile.CallNode{Parent: parent, Function: q.name, Module: q.module,
			Self: n.Instructions, Inclusive: n.Instructions, Calls: n.Calls}
	}
	// Parents come before their children: one backward pass sums subtrees.
	for i := len(tree) - 1; i > 0; i-- {
		tree[tree[i].Parent].Inclusive += tree[i].Inclusive
	}
	byFunc := map[uint64]*profile.FunctionCount{}
	var order []uint64
	for i, n := range nodes {
		f := byFunc[n.Func]
		if f == nil {
			f = &profile.FunctionCount{Name: tree[i].Function, Module: tree[i].Module, Addr: n.Func, Size: mods.sizeOf(n.Func)}
			byFunc[n.Func] = f
			order = append(order, n.Func)
		}
		f.Self += n.Instructions
		f.Calls += n.Calls
		if !hasAncestor(nodes, i, n.Func) {
			f.Inclusive += tree[i].Inclusive
		}
	}
	funcs := make([]profile.FunctionCount, 0, len(order))
	for _, entry := range order {
		funcs = append(funcs, *byFunc[entry])
	}
	sortFunctions(funcs)
	return tree, funcs
}

// hasAncestor reports whether a proper ancestor of node i is a context of
// the function at entry.
func hasAncestor(nodes []emu.Node, i int, entry uint64) bool {
	for i != 0 {
		i = nodes[i].Parent
		if nodes[i].Func == entry {
			return true
		}
	}
	return false
}

// sortFunctions orders functions by self cost, then inclusive, then name.
func sortFunctions(fs []profile.FunctionCount) {
	sort.Slice(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Self != b.Self {
			return a.Self > b.Self
		}
		if a.Inclusive != b.Inclusive {
			return a.Inclusive > b.Inclusive
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		// Functions of one name in two modules (each object's _init):
		// an order that does not depend on map iteration.
		if a.Module != b.Module {
			return a.Module < b.Module
		}
		return a.Addr < b.Addr
	})
}
