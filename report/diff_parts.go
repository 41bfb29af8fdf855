package report

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"

	"github.com/icount-dev/icount/profile"
)

// PartRow is one part of the runs (profile.Part) on both sides, matched
// by name: a dump's counts, or a Go benchmark's counts per operation
// (GoResults), whatever b.N each side ran. A name that ends several parts
// on a side (a dump named twice, a Go benchmark run with -count) is
// matched by its order among them: NAME, NAME#2, ...
type PartRow struct {
	Name   string `json:"name"`
	Status string `json:"status"` // "changed", "unchanged", "new", "vanished"
	// PerOp says the counts are per operation (a Go benchmark's).
	PerOp        bool      `json:"per_op,omitempty"`
	Instructions PartDelta `json:"instructions"`
	Blocks       PartDelta `json:"blocks"`
	Budget       string    `json:"budget,omitempty"`      // as configured
	OverBy       string    `json:"over_budget,omitempty"` // what failed
}

// PartDelta is one count of a part on both sides, exact (a count per
// operation is a fraction); a side without the part has Ops 0.
type PartDelta struct {
	Base, Head PerOp
}

// MarshalJSON writes the two counts as numbers (exact when whole) and the
// change as a fraction of the base.
func (d PartDelta) MarshalJSON() ([]byte, error) {
	num := func(q PerOp) json.RawMessage { return json.RawMessage(q.benchValue()) }
	return json.Marshal(struct {
		Base json.RawMessage `json:"base"`
		Head json.RawMessage `json:"head"`
	}{num(d.Base), num(d.Head)})
}

// equal says whether both sides count the same.
func (d PartDelta) equal() bool { return d.Base.Rat().Cmp(d.Head.Rat()) == 0 }

// change is head minus base.
func (d PartDelta) change() *big.Rat { return new(big.Rat).Sub(d.Head.Rat(), d.Base.Rat()) }

// changeText is the change as the tables show it: "+1,234", "-12.50".
func (d PartDelta) changeText() string {
	c := d.change()
	sign := "+"
	switch c.Sign() {
	case 0:
		return "0"
	case -1:
		sign = "-"
		c.Neg(c)
	}
	return sign + ratText(c)
}

// percent is the change relative to the base, as Percent writes it.
func (d PartDelta) percent() string {
	if d.equal() {
		return "0%"
	}
	if d.Base.Rat().Sign() == 0 {
		return "new"
	}
	p, _ := new(big.Rat).Mul(new(big.Rat).Quo(d.change(), d.Base.Rat()), big.NewRat(100, 1)).Float64()
	return percentText(p)
}

// ratText is a non-negative count with thousands separators, and two
// decimals when not whole.
func ratText(r *big.Rat) string {
	if r.IsInt() {
		return Group(r.Num().Uint64())
	}
	whole := new(big.Int).Quo(r.Num(), r.Denom())
	frac := r.FloatString(2)
	return Group(whole.Uint64()) + frac[strings.IndexByte(frac, '.'):]
}

// sideParts is a Profile's parts as the diff compares them, by key.
type sideParts struct {
	keys  []string
	perOp map[string]bool
	insns map[string]PerOp
	execs map[string]PerOp
}

// partsOf returns a Profile's parts by key: each dump's totals (a part
// with no iterations), and each Go benchmark's results per operation.
func partsOf(p *profile.Profile) sideParts {
	s := sideParts{perOp: map[string]bool{}, insns: map[string]PerOp{}, execs: map[string]PerOp{}}
	seen := map[string]int{}
	key := func(name string) string {
		seen[name]++
		if n := seen[name]; n > 1 {
			return fmt.Sprintf("%s#%d", name, n)
		}
		return name
	}
	for _, pt := range p.Parts {
		if pt.Iterations > 0 {
			continue
		}
		k := key(pt.Name)
		s.keys = append(s.keys, k)
		s.insns[k], s.execs[k] = PerOp{pt.Totals.Instructions, 1}, PerOp{pt.Totals.Blocks, 1}
	}
	for _, r := range GoResults(p) {
		k := key(r.Name)
		s.keys = append(s.keys, k)
		s.perOp[k] = true
		s.insns[k], s.execs[k] = r.Instructions, r.Blocks
	}
	return s
}

// partRows matches the parts of two Profiles by name, in the head's
// order, then those only the base has.
func partRows(b, h *profile.Profile) []PartRow {
	bs, hs := partsOf(b), partsOf(h)
	var rows []PartRow
	for _, k := range hs.keys {
		r := PartRow{Name: k, PerOp: hs.perOp[k], Status: "new",
			Instructions: PartDelta{Head: hs.insns[k]}, Blocks: PartDelta{Head: hs.execs[k]}}
		if _, ok := bs.insns[k]; ok && bs.perOp[k] == hs.perOp[k] {
			r.Instructions.Base, r.Blocks.Base = bs.insns[k], bs.execs[k]
			r.Status = "changed"
			if r.Instructions.equal() && r.Blocks.equal() {
				r.Status = "unchanged"
			}
		}
		rows = append(rows, r)
	}
	for _, k := range bs.keys {
		if _, ok := hs.insns[k]; ok && bs.perOp[k] == hs.perOp[k] {
			continue
		}
		rows = append(rows, PartRow{Name: k, PerOp: bs.perOp[k], Status: "vanished",
			Instructions: PartDelta{Base: bs.insns[k]}, Blocks: PartDelta{Base: bs.execs[k]}})
	}
	return rows
}

// applyPartGates checks the budgets that name a part: its instructions
// (per operation for a Go benchmark) may grow by the budget's limit, self
// or inclusive alike (a part has one count).
func (c *Comparison) applyPartGates(g *Gates) {
	for i := range c.Parts {
		r := &c.Parts[i]
		b, ok := g.Budgets[r.Name]
		if !ok || r.Status == "new" || r.Status == "vanished" {
			continue
		}
		r.Budget = b.String()
		var over []string
		for _, l := range []*Limit{b.Self, b.Inclusive} {
			if l != nil && !l.allowsRat(r.Instructions.Base.Rat(), r.Instructions.Head.Rat()) {
				over = append(over, fmt.Sprintf("instructions %s (%s) is over its budget %s", r.Instructions.changeText(), r.Instructions.percent(), l))
				break
			}
		}
		if len(over) > 0 {
			r.OverBy = strings.Join(over, "; ")
			c.Failures = append(c.Failures, "part "+r.Name+": "+r.OverBy)
		}
	}
}

// allowsRat is Allows for exact fractions (counts per operation).
func (l *Limit) allowsRat(base, head *big.Rat) bool {
	if head.Cmp(base) <= 0 {
		return true
	}
	grow := new(big.Rat).Sub(head, base)
	if !l.Relative {
		return grow.Cmp(new(big.Rat).SetInt(new(big.Int).SetUint64(l.Abs))) <= 0
	}
	lhs := new(big.Rat).Mul(grow, big.NewRat(100, 1))
	rhs := new(big.Rat).Mul(l.Percent, base)
	return lhs.Cmp(rhs) <= 0
}

// partTable is the parts that changed, as a table: name, base, head,
// change, percent, and how many did not change.
func partTable(rows []PartRow) (table [][]string, unchanged int) {
	table = [][]string{{"part", "base", "head", "delta", ""}}
	for _, r := range rows {
		if r.Status == "unchanged" {
			unchanged++
			continue
		}
		name := r.Name
		if r.PerOp {
			name += " (per op)"
		}
		side := func(q PerOp) string {
			if q.Ops == 0 {
				return "-"
			}
			return ratText(q.Rat())
		}
		pct := r.Instructions.percent()
		if r.OverBy != "" {
			pct += " over budget " + r.Budget
		}
		table = append(table, []string{name, side(r.Instructions.Base), side(r.Instructions.Head), r.Instructions.changeText(), pct})
	}
	return table, unchanged
}
