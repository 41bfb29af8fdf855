package report

import (
	"fmt"
	"strings"

	"github.com/icount-dev/icount/profile"
)

// ProcessRow is one program of the run on both sides: an entry of the
// base's Profile.Processes and the head's that takes its place, or one
// only a side ran.
type ProcessRow struct {
	Name   string `json:"name"`   // its command line, shortened: the head's, else the base's
	Depth  int    `json:"depth"`  // in the process tree: 0 for the first process
	Status string `json:"status"` // "changed", "unchanged", "new", "vanished"
	// Base and Head are its entries; nil on the side that did not run it.
	Base         *ProcessSide `json:"base,omitempty"`
	Head         *ProcessSide `json:"head,omitempty"`
	Instructions Delta        `json:"instructions"`
	Blocks       Delta        `json:"blocks"`
	Syscalls     Delta        `json:"system_calls"`
}

// ProcessSide is one side's entry of a ProcessRow.
type ProcessSide struct {
	Index int      `json:"index"` // in the Profile's processes
	PID   int      `json:"pid"`
	Argv  []string `json:"argv"`
	Exit  string   `json:"exit"`
}

// processRows matches the programs two runs ran, for runs of which either
// ran more than one: the first processes with each other, then the
// children of each matched pair (the programs they forked or exec'd): of
// those with one signature (fork or exec, the name, argv[0]'s base name
// else the binary's, and the names of the programs it exec'd in turn),
// first those with the same whole argv (theirs too), then the rest in the
// order they started. A program without a match is new or
// vanished, and so are its descendants. The rows are in the tree's order,
// depth first: each program, then its children matched, then the base's
// unmatched, then the head's.
func processRows(b, h *profile.Profile) []ProcessRow {
	bp, hp := b.Processes, h.Processes
	if len(bp) < 2 && len(hp) < 2 {
		return nil
	}
	bc, hc := childrenOf(bp), childrenOf(hp)
	var rows []ProcessRow
	var visit func(bi, hi, depth int)
	visit = func(bi, hi, depth int) {
		rows = append(rows, processRow(bp, hp, bi, hi, depth))
		var bk, hk []int
		if bi >= 0 {
			bk = bc[bi]
		}
		if hi >= 0 {
			hk = hc[hi]
		}
		pair := matchChildren(bp, hp, bc, hc, bk, hk)
		taken := map[int]bool{}
		for _, c := range bk {
			if m, ok := pair[c]; ok {
				taken[m] = true
				visit(c, m, depth+1)
			}
		}
		for _, c := range bk {
			if _, ok := pair[c]; !ok {
				visit(c, -1, depth+1)
			}
		}
		for _, c := range hk {
			if !taken[c] {
				visit(-1, c, depth+1)
			}
		}
	}
	visit(0, 0, 0)
	return rows
}

// childrenOf lists each entry's children in the order they started.
func childrenOf(ps []profile.Process) [][]int {
	out := make([][]int, len(ps))
	for i, pr := range ps {
		if i > 0 {
			out[pr.Parent] = append(out[pr.Parent], i)
		}
	}
	return out
}

// matchChildren pairs base children with head children (see processRows):
// base index to head index.
func matchChildren(bp, hp []profile.Process, bc, hc [][]int, bk, hk []int) map[int]int {
	pair := map[int]int{}
	taken := map[int]bool{}
	for _, sameArgv := range []bool{true, false} {
		for _, b := range bk {
			if _, ok := pair[b]; ok {
				continue
			}
			bn, ba := signature(bp, bc, b)
			for _, h := range hk {
				if taken[h] {
					continue
				}
				if hn, ha := signature(hp, hc, h); bn == hn && (!sameArgv || ba == ha) {
					pair[b] = h
					taken[h] = true
					break
				}
			}
		}
	}
	return pair
}

// signature is what matches an entry with another: whether it is an exec,
// and its program's name and argv, followed by those of the programs it
// exec'd in turn (a fork's copy of its parent is told apart by what it
// runs next).
func signature(ps []profile.Process, children [][]int, i int) (name, argv string) {
	names := []string{fmt.Sprint(ps[i].Exec)}
	var argvs []string
	for i >= 0 {
		names = append(names, processName(ps[i]))
		argvs = append(argvs, strings.Join(ps[i].Argv, "\x00"))
		next := -1
		for _, c := range children[i] {
			if ps[c].Exec {
				next = c
				break
			}
		}
		i = next
	}
	return strings.Join(names, " "), strings.Join(argvs, "\x01")
}

// processRow compares base entry bi with head entry hi; -1 for none.
func processRow(bp, hp []profile.Process, bi, hi, depth int) ProcessRow {
	r := ProcessRow{Depth: depth}
	side := func(pr profile.Process, i int) *ProcessSide {
		return &ProcessSide{Index: i, PID: pr.PID, Argv: pr.Argv, Exit: exitText(pr.Exit)}
	}
	if bi >= 0 {
		pr := bp[bi]
		r.Name, r.Base = argvLine(pr), side(pr, bi)
		r.Instructions.Base, r.Blocks.Base, r.Syscalls.Base = pr.Totals.Instructions, pr.Totals.Blocks, pr.Totals.Syscalls
	}
	if hi >= 0 {
		pr := hp[hi]
		r.Name, r.Head = argvLine(pr), side(pr, hi)
		r.Instructions.Head, r.Blocks.Head, r.Syscalls.Head = pr.Totals.Instructions, pr.Totals.Blocks, pr.Totals.Syscalls
	}
	switch {
	case r.Base == nil:
		r.Status = "new"
	case r.Head == nil:
		r.Status = "vanished"
	case r.Instructions.Abs() != 0 || r.Blocks.Abs() != 0 || r.Syscalls.Abs() != 0 || r.Base.Exit != r.Head.Exit:
		r.Status = "changed"
	default:
		r.Status = "unchanged"
	}
	return r
}

// maxProcessRows bounds the processes a text or markdown diff lists.
const maxProcessRows = 20

// processTable is a header and a row per process shown: the first
// process, every other one that did not stay unchanged, up to
// maxProcessRows, and their parents; left is how many changed ones were
// left out.
func processTable(rows []ProcessRow, md bool) (table [][]string, unchanged, left int) {
	show := make([]bool, len(rows))
	shown := 0
	for i, r := range rows {
		if i == 0 || r.Status != "unchanged" {
			if shown == maxProcessRows {
				left++
				continue
			}
			show[i] = true
			shown++
		}
	}
	// Rows are depth first: a row's parent is the nearest one before it
	// one level up.
	need := -1
	for i := len(rows) - 1; i >= 0; i-- {
		switch {
		case show[i]:
			need = rows[i].Depth
		case rows[i].Depth < need:
			show[i] = true
			need = rows[i].Depth
		}
	}
	table = [][]string{{"process", "pid", "base", "head", "delta", ""}}
	for i, r := range rows {
		if !show[i] {
			if r.Status == "unchanged" {
				unchanged++
			}
			continue
		}
		name := r.Name
		if md {
			name = strings.Repeat("&nbsp;&nbsp;", r.Depth) + mdCode(clip(name, mdNameMax))
		} else {
			name = strings.Repeat("  ", r.Depth) + name
		}
		switch {
		case r.Status == "new" || r.Status == "vanished":
			name += " (" + r.Status + ")"
		case r.Base.Exit != r.Head.Exit:
			name += fmt.Sprintf(" (%s, was %s)", r.Head.Exit, r.Base.Exit)
		}
		table = append(table, []string{name, pidText(r), Group(r.Instructions.Base), Group(r.Instructions.Head),
			SignedGroup(r.Instructions.Change()), Percent(r.Instructions)})
	}
	return table, unchanged, left
}

// pidText is a process's pid, or its pids on the two sides when they
// differ.
func pidText(r ProcessRow) string {
	switch {
	case r.Base == nil:
		return fmt.Sprint(r.Head.PID)
	case r.Head == nil || r.Base.PID == r.Head.PID:
		return fmt.Sprint(r.Base.PID)
	}
	return fmt.Sprintf("%d -> %d", r.Base.PID, r.Head.PID)
}

// processSummary is one line on the processes: how many on each side and
// how many of them changed.
func processSummary(rows []ProcessRow) string {
	n := map[string]int{}
	var base, head int
	for _, r := range rows {
		n[r.Status]++
		if r.Base != nil {
			base++
		}
		if r.Head != nil {
			head++
		}
	}
	s := fmt.Sprintf("%s in the base, %d in the head", plural(base, "program", "programs"), head)
	var parts []string
	for _, k := range []string{"changed", "new", "vanished", "unchanged"} {
		if n[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[k], k))
		}
	}
	return s + ": " + strings.Join(parts, ", ")
}
