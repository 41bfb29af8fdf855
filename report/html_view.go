package report

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/icount-dev/icount/profile"
)

// pageView is one run, or one benchmark's two runs, as the page shows it.
type pageView struct {
	Name       string          `json:"name,omitempty"` // the benchmark; "" for a lone run or pair
	Run        runHead         `json:"run"`            // the run, or a comparison's head
	Base       *runHead        `json:"base,omitempty"` // a comparison's base
	Comparison *comparisonHead `json:"comparison,omitempty"`
	Bound      boundInfo       `json:"bound"`
	Tree       treeJSON        `json:"tree"`
	Roots      []rootJSON      `json:"roots"`
	Vanished   *vanishedJSON   `json:"vanished,omitempty"`
	Table      tableJSON       `json:"table"`
	Mix        *mixJSON        `json:"mix,omitempty"`
	Objects    []objectJSON    `json:"objects,omitempty"`
}

// runHead is what the header says of one run.
type runHead struct {
	Binary       string   `json:"binary"`
	SHA256       string   `json:"sha256"`
	Arch         string   `json:"arch"`
	CPUModel     string   `json:"cpu_model"`
	Args         string   `json:"args"`
	Env          int      `json:"env"` // variables set with --env
	Clock        string   `json:"clock"`
	Icount       string   `json:"icount"`
	Unicorn      string   `json:"unicorn"`
	Exit         string   `json:"exit"`
	CountOnly    bool     `json:"count_only,omitempty"`
	Lines        bool     `json:"lines,omitempty"` // saved with --lines
	Processes    int      `json:"processes"`
	Threads      int      `json:"threads"`
	Instructions uint64   `json:"instructions"`
	Blocks       uint64   `json:"blocks"`
	Distinct     uint64   `json:"distinct_blocks"`
	Syscalls     uint64   `json:"syscalls"`
	Warnings     []string `json:"warnings,omitempty"`
	// Parts is the run's parts as the summary's table, a header row first.
	Parts [][]string `json:"parts,omitempty"`
}

// diffHead is what the header says of a comparison as a whole.
type diffHead struct {
	Base    string   `json:"base"`
	Head    string   `json:"head"`
	Verdict Verdict  `json:"verdict"`
	Gates   []string `json:"gates,omitempty"`
	Notes   []string `json:"notes,omitempty"`
}

// comparisonHead is what the header says of one benchmark's comparison.
type comparisonHead struct {
	Verdict      Verdict       `json:"verdict"`
	Binary       string        `json:"binary"`
	Totals       []CountRow    `json:"totals,omitempty"`
	Processes    []processJSON `json:"processes,omitempty"`
	Failures     []string      `json:"failures,omitempty"`
	Incomparable []string      `json:"incomparable,omitempty"`
	Notes        []string      `json:"notes,omitempty"`
	Renames      []Rename      `json:"renames,omitempty"`
	Changed      int           `json:"changed"` // functions whose counts changed
	Functions    int           `json:"functions"`
	// Parts is the parts that changed as the text report's table, a
	// header row first, and how many did not.
	Parts          [][]string `json:"parts,omitempty"`
	PartsUnchanged int        `json:"parts_unchanged,omitempty"`
}

// processJSON is one program of a comparison's runs.
type processJSON struct {
	Name   string `json:"name"`
	Depth  int    `json:"depth"`
	Status string `json:"status"`
	Base   uint64 `json:"base"`
	Head   uint64 `json:"head"`
}

// boundInfo says what the page left out of the tree.
type boundInfo struct {
	MinShare float64 `json:"min_share"`
	Least    uint64  `json:"least"`  // the smallest inclusive count of a frame kept
	Frames   int     `json:"frames"` // frames of the whole tree
	Kept     int     `json:"kept"`   // frames embedded as they are
	Others   int     `json:"others"` // "other" frames
	Merged   int     `json:"merged"` // frames merged into them
}

// mixJSON is the instruction mix on each side.
type mixJSON struct {
	Kinds     []string `json:"kinds"`
	Head      []uint64 `json:"head"`
	Base      []uint64 `json:"base,omitempty"`
	HeadTotal uint64   `json:"head_total"`
	BaseTotal uint64   `json:"base_total,omitempty"`
}

// objectJSON is one object's instructions on each side.
type objectJSON struct {
	Module string `json:"module"`
	File   string `json:"file,omitempty"`
	Head   uint64 `json:"head"`
	Base   uint64 `json:"base"`
}

// newView builds one view: of head alone, or of head against base (c the
// comparison; base nil for a benchmark the base does not have).
func newView(o HTMLOptions, name string, c *Comparison, head, base *profile.Profile) pageView {
	v := pageView{Name: name, Run: newRunHead(head)}
	if base != nil {
		b := newRunHead(base)
		v.Base = &b
	}
	if c != nil {
		v.Comparison = newComparisonHead(c)
	}
	fg := buildFlame(o, c, head, base)
	table, rowOf := buildTable(o, c, head, base, fg.fnKeys)
	fg.tree.Fn = make([]int, len(fg.fnKeys))
	for i, k := range fg.fnKeys {
		fg.tree.Fn[i] = -1 // a process, the root or "other"
		if r, ok := rowOf[k]; ok && k != "" {
			fg.tree.Fn[i] = r
		}
	}
	v.Bound, v.Tree, v.Roots, v.Vanished, v.Table = fg.bound, fg.tree, fg.roots, fg.vanished, table
	v.Mix = newMixJSON(head, base)
	v.Objects = objectRows(head, base)
	return v
}

func newRunHead(p *profile.Profile) runHead {
	exit := fmt.Sprintf("exit %d", p.Exit.Status)
	switch {
	case !p.Exit.Complete:
		exit = "stopped early (" + string(p.Exit.Reason) + "): counts are partial"
	case p.Exit.Signal != "":
		exit = "killed by " + p.Exit.Signal
	}
	return runHead{
		Binary: p.Meta.Binary.Path, SHA256: p.Meta.Binary.SHA256, Arch: p.Meta.Arch, CPUModel: p.Meta.CPUModel,
		Args: cut(oneLine(strings.Join(p.Meta.Args, " ")), maxHeaderArgLen), Env: len(p.Meta.Env),
		Clock: clockText(p.Meta.Clock), Icount: p.Meta.IcountVersion, Unicorn: p.Meta.UnicornVersion,
		Exit: exit, CountOnly: p.Meta.CountOnly, Lines: len(p.Lines) > 0,
		Processes: len(p.Processes), Threads: max(1, len(p.Threads)),
		Instructions: p.Totals.Instructions, Blocks: p.Totals.Blocks, Distinct: p.Totals.DistinctBlocks,
		Syscalls: p.Totals.Syscalls, Warnings: p.Warnings, Parts: runPartRows(p),
	}
}

// runPartRows is the run's parts as the page's table, nil without parts.
func runPartRows(p *profile.Profile) [][]string {
	if len(p.Parts) == 0 {
		return nil
	}
	return partTableRows(p, maxPartRows)
}

// clockText says where the guest's time came from.
func clockText(c profile.Clock) string {
	switch {
	case c.Mode != "fixed":
		return "the host's clock"
	case c.Table != "":
		return fmt.Sprintf("fixed: table %s (%d values)", c.Table, c.TableValues)
	}
	return fmt.Sprintf("fixed: from %d ns by %v", startOf(c), time.Duration(c.StepNs))
}

func newDiffHead(r *Report) *diffHead {
	d := &diffHead{Base: sideText(r.Base), Head: sideText(r.Head), Verdict: r.Verdict, Notes: r.Notes}
	g := r.Gates
	if g.FailAbove != "" {
		d.Gates = append(d.Gates, "total instructions at most "+g.FailAbove)
	}
	for _, fn := range sortedNames(g.Budgets) {
		d.Gates = append(d.Gates, fmt.Sprintf("budget of %s: %s", DisplayName(fn), g.Budgets[fn]))
	}
	for _, pat := range g.Ignore {
		d.Gates = append(d.Gates, "ignored: "+pat)
	}
	return d
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func newComparisonHead(c *Comparison) *comparisonHead {
	h := &comparisonHead{Verdict: c.Verdict, Totals: c.Totals, Failures: c.Failures, Incomparable: c.Incomparable,
		Notes: c.Notes, Renames: c.Renames, Functions: len(c.Functions) + len(c.Ignored)}
	if c.Base != nil {
		h.Binary = binaryLine(*c)
	} else {
		h.Binary = fmt.Sprintf("new benchmark: %s (sha256 %s), %s", c.Head.Binary, short(c.Head.SHA256), c.Head.Exit)
	}
	for _, f := range c.Functions {
		if f.Status != "unchanged" {
			h.Changed++
		}
	}
	for _, r := range c.Processes {
		h.Processes = append(h.Processes, processJSON{Name: r.Name, Depth: r.Depth, Status: r.Status,
			Base: r.Instructions.Base, Head: r.Instructions.Head})
	}
	if len(c.Parts) > 0 {
		h.Parts, h.PartsUnchanged = partTable(c.Parts)
		if len(h.Parts) == 1 {
			h.Parts = nil // a header alone
		}
	}
	return h
}

// mixKinds are the kinds of the instruction mix, in the order shown.
var mixKinds = []string{"loads", "stores", "branches", "calls", "returns", "syscalls", "SIMD/FP", "other"}

func mixValues(m *profile.Mix) []uint64 {
	return []uint64{m.Loads, m.Stores, m.Branches, m.Calls, m.Returns, m.Syscalls, m.SIMDFP, m.Other}
}

func newMixJSON(head, base *profile.Profile) *mixJSON {
	if head.Mix == nil {
		return nil
	}
	m := &mixJSON{Kinds: mixKinds, Head: mixValues(head.Mix), HeadTotal: head.Totals.Instructions}
	if base != nil && base.Mix != nil {
		m.Base, m.BaseTotal = mixValues(base.Mix), base.Totals.Instructions
	}
	return m
}

// objectRows are the instructions by object on each side, the head's
// objects first, in its order.
func objectRows(head, base *profile.Profile) []objectJSON {
	var out []objectJSON
	at := map[string]int{}
	for _, o := range Objects(head) {
		at[o.Module] = len(out)
		out = append(out, objectJSON{Module: o.Module, File: o.File, Head: o.Instructions})
	}
	if base != nil {
		for _, o := range Objects(base) {
			i, ok := at[o.Module]
			if !ok {
				i = len(out)
				at[o.Module] = i
				out = append(out, objectJSON{Module: o.Module, File: o.File})
			}
			out[i].Base += o.Instructions
		}
	}
	return out
}
