package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/icount-dev/icount/profile"
)

// DiffSchema names the version of the diff's JSON form.
const DiffSchema = "icount-diff/2"

// Verdict kinds, from worst to best. A Report's verdict is its worst
// comparison's, except that a regression outranks "none".
const (
	VerdictRegression = "regression" // a gate failed
	VerdictNone       = "none"       // the profiles cannot be compared
	VerdictChanged    = "changed"    // counts grew, within the gates if any is set
	VerdictImproved   = "improved"   // the total fell and nothing failed
	VerdictUnchanged  = "unchanged"  // every count is exactly equal
)

// Side names one side of a comparison for the report header.
type Side struct {
	Label  string `json:"label"`            // "base.json", "HEAD~1", ...
	Commit string `json:"commit,omitempty"` // the commit it was built from
	// Tree is the directory the side's code was built and run in (icount
	// ab's): a file under it that changed is code, not an input.
	Tree string `json:"tree,omitempty"`
}

// Pair is one benchmark's two Profiles. Base is nil for a benchmark the
// base does not have.
type Pair struct {
	Name       string // the benchmark; "" for a lone pair
	Base, Head *profile.Profile
}

// Report is the comparison of one or more pairs of Profiles, with the
// gates applied. It is a pure function of its inputs (see Compare); every
// diff format renders a Report.
type Report struct {
	Schema      string       `json:"schema"`
	Base        Side         `json:"base"`
	Head        Side         `json:"head"`
	Gates       GateSummary  `json:"gates"`
	Verdict     Verdict      `json:"verdict"`
	Notes       []string     `json:"notes,omitempty"`
	Comparisons []Comparison `json:"benchmarks"`
	// pairs are the Profiles compared, one pair per comparison, for the
	// formats that draw them (HTML).
	pairs []Pair
}

// GateSummary says which gates were applied.
type GateSummary struct {
	FailAbove string            `json:"fail_above,omitempty"`
	Budgets   map[string]string `json:"budgets,omitempty"`
	Ignore    []string          `json:"ignore,omitempty"`
}

// Verdict is the outcome with the line that says it.
type Verdict struct {
	Kind string `json:"kind"`
	Line string `json:"line"`
}

// Comparison is one benchmark's diff.
type Comparison struct {
	Name    string     `json:"name,omitempty"`
	Base    *ProfileID `json:"base"` // nil: a new benchmark
	Head    ProfileID  `json:"head"`
	Verdict Verdict    `json:"verdict"`
	Totals  []CountRow `json:"totals"`
	// Processes compares the programs the runs ran, when either ran more
	// than one (see processRows); the totals are theirs summed.
	Processes []ProcessRow `json:"processes,omitempty"`
	// Parts compares the runs' parts by name (see partRows).
	Parts []PartRow `json:"parts,omitempty"`
	// Functions lists every function on either side but the ignored ones,
	// largest absolute change first.
	Functions []FunctionRow `json:"functions"`
	Ignored   []FunctionRow `json:"ignored,omitempty"`
	Renames   []Rename      `json:"possible_renames,omitempty"`
	// Inclusive and Calls say whether either Profile has those counts.
	Inclusive bool `json:"has_inclusive"`
	Calls     bool `json:"has_calls"`
	// Identical: both binaries have the same SHA-256.
	Identical bool `json:"identical_binaries"`
	// Incomparable says why there is no verdict; empty when there is one.
	Incomparable []string `json:"incomparable,omitempty"`
	// Failures are the gates that failed; Notes are everything else worth
	// saying (an unused budget, ...).
	Failures []string `json:"failures,omitempty"`
	Notes    []string `json:"notes,omitempty"`
}

// ProfileID says which run a side is.
type ProfileID struct {
	Binary string `json:"binary"`
	SHA256 string `json:"sha256"`
	Exit   string `json:"exit"`
}

// Delta is one count on both sides.
type Delta struct {
	Base uint64 `json:"base"`
	Head uint64 `json:"head"`
}

// Change is head minus base. Counts are at most profile.MaxCount (a
// Profile read is checked), so the difference fits; beyond, it saturates.
func (d Delta) Change() int64 {
	if d.Head >= d.Base {
		return int64(min(d.Head-d.Base, math.MaxInt64))
	}
	return -int64(min(d.Base-d.Head, math.MaxInt64))
}

// Abs is the size of the change.
func (d Delta) Abs() uint64 {
	if d.Head >= d.Base {
		return d.Head - d.Base
	}
	return d.Base - d.Head
}

// MarshalJSON adds the change, so that a reader need not subtract.
func (d Delta) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Base   uint64 `json:"base"`
		Head   uint64 `json:"head"`
		Change int64  `json:"change"`
	}{d.Base, d.Head, d.Change()})
}

// CountRow is one total.
type CountRow struct {
	Name string `json:"name"`
	Delta
}

// MarshalJSON keeps the name beside the counts (Delta's own method would
// hide it).
func (c CountRow) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Name   string `json:"name"`
		Base   uint64 `json:"base"`
		Head   uint64 `json:"head"`
		Change int64  `json:"change"`
	}{c.Name, c.Base, c.Head, c.Change()})
}

// FunctionRow is one function's counts on both sides.
type FunctionRow struct {
	Name      string `json:"name"`
	Module    string `json:"module,omitempty"` // only when not the main binary
	Status    string `json:"status"`           // "changed", "unchanged", "new", "vanished"
	Self      Delta  `json:"self"`
	Inclusive Delta  `json:"inclusive"`
	Calls     Delta  `json:"calls"`
	Budget    string `json:"budget,omitempty"`      // as configured
	OverBy    string `json:"over_budget,omitempty"` // what failed
	ignored   bool   // matched an ignore pattern
	size      Delta  // bytes of its code on each side, as its symbols give them (0: unknown)
}

// Rename is a vanished and a new function with exactly the same costs.
type Rename struct {
	From string `json:"from"`
	To   string `json:"to"`
	Self uint64 `json:"self"`
}

// Compare diffs each pair and applies the gates (nil for none).
func Compare(base, head Side, pairs []Pair, g *Gates) *Report {
	r := &Report{Schema: DiffSchema, Base: base, Head: head, Gates: summarize(g), pairs: pairs}
	used := map[string]bool{}
	var roots []string
	if base.Tree != "" && base.Tree == head.Tree {
		roots = []string{base.Tree}
	}
	for _, p := range pairs {
		c := compareOne(p, g, roots)
		for _, f := range c.Functions {
			used[f.Name] = used[f.Name] || f.Budget != ""
		}
		for _, pt := range c.Parts {
			used[pt.Name] = used[pt.Name] || pt.Budget != ""
		}
		r.Comparisons = append(r.Comparisons, c)
	}
	r.Verdict = overall(r.Comparisons, g)
	if g != nil {
		var unused []string
		for fn := range g.Budgets {
			if !used[fn] {
				unused = append(unused, fn)
			}
		}
		slices.Sort(unused)
		for _, fn := range unused {
			r.Notes = append(r.Notes, fmt.Sprintf("the budget for %q matches no function or part on either side", fn))
		}
	}
	return r
}

func summarize(g *Gates) GateSummary {
	var s GateSummary
	if g == nil {
		return s
	}
	if g.FailAbove != nil {
		s.FailAbove = g.FailAbove.String()
	}
	if len(g.Budgets) > 0 {
		s.Budgets = map[string]string{}
		for fn, b := range g.Budgets {
			s.Budgets[fn] = b.String()
		}
	}
	s.Ignore = g.Ignore
	return s
}

// String is the budget as the report shows it.
func (b Budget) String() string {
	var parts []string
	if b.Self != nil {
		parts = append(parts, "self "+b.Self.String())
	}
	if b.Inclusive != nil {
		parts = append(parts, "inclusive "+b.Inclusive.String())
	}
	return strings.Join(parts, ", ")
}

func identify(p *profile.Profile) ProfileID {
	exit := fmt.Sprintf("exit %d", p.Exit.Status)
	switch {
	case !p.Exit.Complete:
		exit = "stopped early"
	case p.Exit.Signal != "":
		exit = "killed by " + p.Exit.Signal
	}
	return ProfileID{Binary: p.Meta.Binary.Path, SHA256: p.Meta.Binary.SHA256, Exit: exit}
}

func compareOne(p Pair, g *Gates, roots []string) Comparison {
	c := Comparison{Name: p.Name, Head: identify(p.Head)}
	if p.Base == nil {
		c.Verdict = Verdict{Kind: VerdictNone, Line: "new benchmark: nothing to compare it with"}
		c.Incomparable = []string{"the base has no such benchmark"}
		return c
	}
	b, h := p.Base, p.Head
	id := identify(b)
	c.Base = &id
	c.Identical = b.Meta.Binary.SHA256 != "" && b.Meta.Binary.SHA256 == h.Meta.Binary.SHA256
	c.Totals = []CountRow{
		{"instructions", Delta{b.Totals.Instructions, h.Totals.Instructions}},
		{"block executions", Delta{b.Totals.Blocks, h.Totals.Blocks}},
		{"distinct blocks", Delta{b.Totals.DistinctBlocks, h.Totals.DistinctBlocks}},
		{"system calls", Delta{b.Totals.Syscalls, h.Totals.Syscalls}},
	}
	c.Processes = processRows(b, h)
	c.Parts = partRows(b, h)
	selfOnly := b.Meta.CountOnly || h.Meta.CountOnly
	c.Functions, c.Ignored = functionRows(b, h, g, selfOnly)
	if selfOnly {
		c.Notes = append(c.Notes, fmt.Sprintf("the %s run was --count-only: the functions' self costs are compared, not their inclusive costs or calls", countOnlySides(b, h)))
	}
	for _, f := range append(slices.Clone(c.Functions), c.Ignored...) {
		c.Inclusive = c.Inclusive || f.Inclusive.Base != 0 || f.Inclusive.Head != 0
		c.Calls = c.Calls || f.Calls.Base != 0 || f.Calls.Head != 0
	}
	if b.Meta.Arch == h.Meta.Arch {
		c.Renames = renames(c.Functions)
	}
	var notes []string
	c.Incomparable, notes = Comparability(b, h, roots)
	c.Notes = append(c.Notes, notes...)
	// A --count-only side finds functions only by their symbols, the
	// other also by the calls it saw: only the totals must then agree.
	if c.Identical && (selfOnly && !sameTotals(c) || !selfOnly && !sameCounts(c)) && len(c.Incomparable) == 0 && len(notes) == 0 {
		c.Incomparable = append(c.Incomparable,
			"the binaries, the settings and every input icount records are identical but the counts differ: the runs were not deterministic, an icount bug (please report it), unless an input icount cannot record changed (what a pipe, a socket or a device gave)")
	}
	c.applyGates(g)
	c.Verdict = c.verdict(g)
	return c
}

// functionKey identifies a function across Profiles: its name, and its
// module unless that is the main binary (whose file name may differ).
func functionKey(p *profile.Profile, f profile.FunctionCount) (key, module string) {
	if f.Module == "" || f.Module == filepath.Base(p.Meta.Binary.Path) {
		return f.Name, ""
	}
	return f.Module + "\x00" + f.Name, f.Module
}

// countOnlySides says which side was --count-only.
func countOnlySides(b, h *profile.Profile) string {
	switch {
	case b.Meta.CountOnly && h.Meta.CountOnly:
		return "base and the head"
	case b.Meta.CountOnly:
		return "base"
	}
	return "head"
}

// functionRows matches the functions of two runs; selfOnly compares only
// their self costs (a side was --count-only).
func functionRows(b, h *profile.Profile, g *Gates, selfOnly bool) (rows, ignored []FunctionRow) {
	byKey := map[string]*FunctionRow{}
	var order []string
	add := func(p *profile.Profile, f profile.FunctionCount, head bool) {
		key, mod := functionKey(p, f)
		r := byKey[key]
		if r == nil {
			r = &FunctionRow{Name: f.Name, Module: mod}
			byKey[key] = r
			order = append(order, key)
		}
		incl, calls := f.Inclusive, f.Calls
		if selfOnly {
			incl, calls = 0, 0
		}
		if head {
			r.size.Head = max(r.size.Head, f.Size)
			r.Self.Head += f.Self
			r.Inclusive.Head += incl
			r.Calls.Head += calls
		} else {
			r.size.Base = max(r.size.Base, f.Size)
			r.Self.Base += f.Self
			r.Inclusive.Base += incl
			r.Calls.Base += calls
		}
	}
	inBase, inHead := map[string]bool{}, map[string]bool{}
	for _, f := range b.Functions {
		add(b, f, false)
		k, _ := functionKey(b, f)
		inBase[k] = true
	}
	for _, f := range h.Functions {
		add(h, f, true)
		k, _ := functionKey(h, f)
		inHead[k] = true
	}
	for _, key := range order {
		r := byKey[key]
		switch {
		case !inBase[key]:
			r.Status = "new"
		case !inHead[key]:
			r.Status = "vanished"
		case r.Self.Abs() != 0 || r.Inclusive.Abs() != 0 || r.Calls.Abs() != 0:
			r.Status = "changed"
		default:
			r.Status = "unchanged"
		}
		if g.Ignored(r.Name) {
			r.ignored = true
			ignored = append(ignored, *r)
		} else {
			rows = append(rows, *r)
		}
	}
	sortRows(rows)
	sortRows(ignored)
	return rows, ignored
}

// sortRows puts the largest absolute change first (see compareRows).
func sortRows(rows []FunctionRow) {
	slices.SortStableFunc(rows, compareRows)
}

// compareRows orders function rows by the largest absolute change (self,
// then inclusive), then the largest function, then by name.
func compareRows(a, b FunctionRow) int {
	if c := cmp.Compare(b.Self.Abs(), a.Self.Abs()); c != 0 {
		return c
	}
	if c := cmp.Compare(b.Inclusive.Abs(), a.Inclusive.Abs()); c != 0 {
		return c
	}
	if c := cmp.Compare(max(b.Self.Base, b.Self.Head), max(a.Self.Base, a.Self.Head)); c != 0 {
		return c
	}
	if c := strings.Compare(a.Name, b.Name); c != 0 {
		return c
	}
	return strings.Compare(a.Module, b.Module)
}

// renames pairs each vanished function with a new one of the same module,
// exactly the same costs and a similar size (similarSize), when exactly
// one such new function exists. (Only between Profiles of one arch: the
// instructions of two arches do not compare.)
func renames(rows []FunctionRow) []Rename {
	type cost struct {
		module            string
		self, incl, calls uint64
	}
	type fn struct {
		name string
		size uint64
	}
	news, olds := map[cost][]fn{}, map[cost][]fn{}
	for _, r := range rows {
		switch {
		case r.Status == "new" && r.Self.Head > 0:
			c := cost{r.Module, r.Self.Head, r.Inclusive.Head, r.Calls.Head}
			news[c] = append(news[c], fn{r.Name, r.size.Head})
		case r.Status == "vanished" && r.Self.Base > 0:
			c := cost{r.Module, r.Self.Base, r.Inclusive.Base, r.Calls.Base}
			olds[c] = append(olds[c], fn{r.Name, r.size.Base})
		}
	}
	var out []Rename
	for c, from := range olds {
		if to := news[c]; len(from) == 1 && len(to) == 1 && similarSize(from[0].size, to[0].size) {
			out = append(out, Rename{From: from[0].name, To: to[0].name, Self: c.self})
		}
	}
	slices.SortFunc(out, func(a, b Rename) int {
		if c := cmp.Compare(b.Self, a.Self); c != 0 {
			return c
		}
		return strings.Compare(a.From, b.From)
	})
	return out
}

// similarSize says whether two functions' sizes in bytes, both known,
// differ by at most a quarter of the larger: a renamed function keeps
// its code.
func similarSize(a, b uint64) bool {
	if a == 0 || b == 0 {
		return false
	}
	lo, hi := min(a, b), max(a, b)
	return 4*(hi-lo) <= hi
}

func sameTotals(c Comparison) bool {
	for _, t := range c.Totals {
		if t.Abs() != 0 {
			return false
		}
	}
	return true
}

func sameCounts(c Comparison) bool {
	if !sameTotals(c) {
		return false
	}
	for _, f := range append(slices.Clone(c.Functions), c.Ignored...) {
		if f.Status != "unchanged" {
			return false
		}
	}
	for _, pr := range c.Processes {
		if pr.Status != "unchanged" {
			return false
		}
	}
	for _, pt := range c.Parts {
		if pt.Status != "unchanged" {
			return false
		}
	}
	return true
}

func (c *Comparison) applyGates(g *Gates) {
	if g == nil {
		return
	}
	total := c.Totals[0].Delta
	if g.FailAbove != nil && !g.FailAbove.Allows(total.Base, total.Head) {
		c.Failures = append(c.Failures, fmt.Sprintf("total instructions %s (%s) is above the limit %s",
			SignedGroup(total.Change()), Percent(total), g.FailAbove))
	}
	for i := range c.Functions {
		r := &c.Functions[i]
		b, ok := g.Budgets[r.Name]
		if !ok {
			continue
		}
		r.Budget = b.String()
		var over []string
		if b.Self != nil && !b.Self.Allows(r.Self.Base, r.Self.Head) {
			over = append(over, fmt.Sprintf("self %s (%s) is over its budget %s", SignedGroup(r.Self.Change()), Percent(r.Self), b.Self))
		}
		if b.Inclusive != nil {
			if !c.Inclusive {
				c.Notes = append(c.Notes, fmt.Sprintf("the inclusive budget for %s was not checked: these profiles have no inclusive counts", r.Name))
			} else if !b.Inclusive.Allows(r.Inclusive.Base, r.Inclusive.Head) {
				over = append(over, fmt.Sprintf("inclusive %s (%s) is over its budget %s", SignedGroup(r.Inclusive.Change()), Percent(r.Inclusive), b.Inclusive))
			}
		}
		if len(over) > 0 {
			r.OverBy = strings.Join(over, "; ")
			c.Failures = append(c.Failures, r.Name+": "+r.OverBy)
		}
	}
	c.applyPartGates(g)
}

func (c *Comparison) verdict(g *Gates) Verdict {
	total := c.Totals[0].Delta
	if len(c.Incomparable) > 0 {
		return Verdict{VerdictNone, "no verdict: the profiles cannot be compared: " + strings.Join(c.Incomparable, "; ")}
	}
	if len(c.Failures) > 0 {
		return Verdict{VerdictRegression, "regression: " + strings.Join(c.Failures, "; ")}
	}
	if sameCounts(*c) {
		line := "no change: every count is exactly equal"
		if c.Identical {
			line = "no change: the binaries are identical, so every count must be equal, and every count is equal"
		}
		return Verdict{VerdictUnchanged, line}
	}
	moved := fmt.Sprintf("%s instructions (%s)", SignedGroup(total.Change()), Percent(total))
	switch {
	case total.Head < total.Base:
		return Verdict{VerdictImproved, "improvement: " + moved}
	case total.Head == total.Base:
		return Verdict{VerdictChanged, "total unchanged; functions moved (see below)"}
	case !g.set():
		return Verdict{VerdictChanged, moved + "; no gate is set"}
	default:
		return Verdict{VerdictChanged, moved + ", within the gates"}
	}
}

// set reports whether g sets a gate that can fail: a limit on the total
// or a function's budget (ignore patterns only leave functions out).
func (g *Gates) set() bool {
	return g != nil && (g.FailAbove != nil || len(g.Budgets) > 0)
}

// overall is the Report's verdict: a regression anywhere wins, then no
// verdict, then growth, improvement, no change. Growth is called within
// the gates only when a gate is set (g).
func overall(cs []Comparison, g *Gates) Verdict {
	rank := map[string]int{VerdictRegression: 0, VerdictNone: 1, VerdictChanged: 2, VerdictImproved: 3, VerdictUnchanged: 4}
	if len(cs) == 0 {
		return Verdict{VerdictNone, "no verdict: nothing was compared"}
	}
	if len(cs) == 1 {
		return cs[0].Verdict
	}
	worst := cs[0].Verdict.Kind
	count := map[string][]string{}
	for _, c := range cs {
		count[c.Verdict.Kind] = append(count[c.Verdict.Kind], c.Name)
		if rank[c.Verdict.Kind] < rank[worst] {
			worst = c.Verdict.Kind
		}
	}
	var parts []string
	for _, k := range []string{VerdictRegression, VerdictNone, VerdictChanged, VerdictImproved, VerdictUnchanged} {
		if names := count[k]; len(names) > 0 {
			parts = append(parts, fmt.Sprintf("%s: %s", kindWord(k), strings.Join(names, ", ")))
		}
	}
	lead := map[string]string{
		VerdictRegression: "regression",
		VerdictNone:       "no verdict for some benchmarks",
		VerdictChanged:    "counts grew; no gate is set",
		VerdictImproved:   "improvement",
		VerdictUnchanged:  "no change in any benchmark",
	}[worst]
	if worst == VerdictChanged && g.set() {
		lead = "counts grew, within the gates"
	}
	return Verdict{worst, fmt.Sprintf("%s (%d benchmarks; %s)", lead, len(cs), strings.Join(parts, "; "))}
}

func kindWord(k string) string {
	return map[string]string{VerdictRegression: "regressed", VerdictNone: "no verdict",
		VerdictChanged: "grew", VerdictImproved: "improved", VerdictUnchanged: "unchanged"}[k]
}
