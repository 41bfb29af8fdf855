package report

import (
	"fmt"
	"io"
	"math/big"
	"strconv"
	"strings"

	"github.com/icount-dev/icount/profile"
)

// PerOp is a count per operation, kept exact as the fraction Count/Ops.
type PerOp struct {
	Count, Ops uint64
}

// Rat is the count per operation as a rational number.
func (q PerOp) Rat() *big.Rat {
	if q.Ops == 0 {
		return new(big.Rat)
	}
	return new(big.Rat).SetFrac(new(big.Int).SetUint64(q.Count), new(big.Int).SetUint64(q.Ops))
}

// Float is the count per operation as a float64.
func (q PerOp) Float() float64 {
	f, _ := q.Rat().Float64()
	return f
}

// String is the count per operation with thousands separators and, when
// it is not whole, two decimals: "394,202", "394,213.08".
func (q PerOp) String() string {
	if q.Ops == 0 {
		return "-"
	}
	whole := q.Count / q.Ops
	if q.Count%q.Ops == 0 {
		return Group(whole)
	}
	frac := q.Rat().FloatString(2)
	return Group(whole) + frac[strings.IndexByte(frac, '.'):]
}

// benchValue is the count per operation as a benchmark result writes it:
// a whole number, or the shortest decimal that reads back as the float64.
func (q PerOp) benchValue() string {
	if q.Ops != 0 && q.Count%q.Ops == 0 {
		return strconv.FormatUint(q.Count/q.Ops, 10)
	}
	return strconv.FormatFloat(q.Float(), 'f', -1, 64)
}

// GoResult is one result of a Go benchmark, as go test reports one: a run
// of the benchmark function (a part with iterations) with its counts per
// operation. A benchmark run more than once (the b.N = 1 probe go test
// starts with, then b.N iterations) has its counts per operation from the
// difference of a later run and the last probe before it, which leaves
// out what every run costs once (the function's setup, the call):
// (C - C1) / (N - 1). A
// benchmark run once (-benchtime=1x, or one using b.Loop, which runs all
// its iterations in one run) has C / N.
type GoResult struct {
	Name       string
	Process    int
	Part       int    // the run's index in the Profile's Parts
	Iterations uint64 // the run's b.N
	// Instructions and Blocks are per operation: instructions and block
	// executions.
	Instructions, Blocks PerOp
}

// GoResults derives the results of a Profile's Go benchmarks from its
// parts, as go test reports them, in the order they ended: the last run
// of each calibration (a run the next run of the benchmark does not
// exceed in iterations; go test calibrating to a time runs a benchmark
// with more and more iterations and reports the last), the probe aside,
// or the one run of a benchmark run once.
func GoResults(p *profile.Profile) []GoResult {
	type key struct {
		process int
		name    string
	}
	first := map[key]int{}
	runs := map[key]int{}
	next := map[int]int{} // a run's next run of the same benchmark
	last := map[key]int{}
	for i, pt := range p.Parts {
		if pt.Iterations == 0 {
			continue
		}
		k := key{pt.Process, pt.Name}
		if _, ok := first[k]; !ok {
			first[k] = i
		} else {
			next[last[k]] = i
		}
		last[k] = i
		runs[k]++
	}
	var out []GoResult
	probe := map[key]int{} // the benchmark's last probe: a run of b.N = 1
	for i, pt := range p.Parts {
		if pt.Iterations == 0 {
			continue
		}
		k := key{pt.Process, pt.Name}
		f, ok := probe[k]
		if pt.Iterations == 1 {
			probe[k] = i
		}
		if first[k] == i && runs[k] > 1 {
			continue // the probe: the others are measured against it
		}
		if n, ok := next[i]; ok && p.Parts[n].Iterations > pt.Iterations {
			continue // a step of the calibration, or a later round's probe (-count)
		}
		r := GoResult{Name: pt.Name, Process: pt.Process, Part: i, Iterations: pt.Iterations,
			Instructions: PerOp{pt.Totals.Instructions, pt.Iterations}, Blocks: PerOp{pt.Totals.Blocks, pt.Iterations}}
		if p0 := p.Parts[f]; ok && pt.Iterations > p0.Iterations &&
			pt.Totals.Instructions >= p0.Totals.Instructions && pt.Totals.Blocks >= p0.Totals.Blocks {
			ops := pt.Iterations - p0.Iterations
			r.Instructions = PerOp{pt.Totals.Instructions - p0.Totals.Instructions, ops}
			r.Blocks = PerOp{pt.Totals.Blocks - p0.Totals.Blocks, ops}
		}
		out = append(out, r)
	}
	return out
}

// maxPartLines bounds the parts the summary lists one by one.
const maxPartLines = 20

// partLines lists the run's parts in the summary (partTableRows).
func partLines(w io.Writer, p *profile.Profile) {
	if len(p.Parts) == 0 {
		return
	}
	fmt.Fprintf(w, "%s%s:\n", Prefix, plural(len(p.Parts), "part", "parts"))
	for _, line := range strings.SplitAfter(AlignTable(partTableRows(p, maxPartLines), 1, "  "), "\n") {
		if line != "" {
			fmt.Fprint(w, Prefix+"  "+line)
		}
	}
}

// partTableRows is the run's parts as a table, a header row first: each
// with its instructions and block executions, a Go benchmark's run with
// its iterations and, for a run go test reports, its instructions per
// operation; columns no part fills are left out, and parts past limit
// are counted in one last row.
func partTableRows(p *profile.Profile, limit int) [][]string {
	perOp := map[int]string{}
	for _, r := range GoResults(p) {
		perOp[r.Part] = r.Instructions.String()
	}
	rows := [][]string{{"part", "instructions", "blocks", "iterations", "per op"}}
	for i, pt := range p.Parts {
		if i == limit {
			rows = append(rows, []string{fmt.Sprintf("... %d more", len(p.Parts)-i), "", "", "", ""})
			break
		}
		iters := ""
		if pt.Iterations > 0 {
			iters = Group(pt.Iterations)
		}
		name := pt.Name
		if len(p.Processes) > 1 {
			name += fmt.Sprintf(" (pid %d)", p.Processes[pt.Process].PID)
		}
		rows = append(rows, []string{name, Group(pt.Totals.Instructions), Group(pt.Totals.Blocks), iters, perOp[i]})
	}
	// Drop the columns no part fills.
	keep := []int{0, 1, 2}
	for _, c := range []int{3, 4} {
		for _, r := range rows[1:] {
			if r[c] != "" {
				keep = append(keep, c)
				break
			}
		}
	}
	for i, r := range rows {
		var kept []string
		for _, c := range keep {
			kept = append(kept, r[c])
		}
		rows[i] = kept
	}
	return rows
}
