package report

import (
	"bufio"
	"fmt"
	"io"

	"github.com/icount-dev/icount/profile"
)

// WriteCallgrindRunPart writes part i of the run (Profile.Parts) as a
// callgrind file of its own, as callgrind writes each dump: "part: N"
// (PartNumber),
// the trigger that ended it ("Client Request: NAME", or the Go benchmark
// run), its summary and totals, its functions' self costs and its call
// arcs. A part has no per-line costs: each function's self cost is at its
// first line.
func WriteCallgrindRunPart(w io.Writer, p *profile.Profile, i int) error {
	if i < 0 || i >= len(p.Parts) {
		return fmt.Errorf("no part %d: the run has %d", i, len(p.Parts))
	}
	pt := p.Parts[i]
	if pt.Process < 0 || pt.Process >= len(p.Processes) {
		return fmt.Errorf("part %d (%s) names process %d of %d", i, pt.Name, pt.Process, len(p.Processes))
	}
	q := partProfile(p, pt)
	bw := bufio.NewWriter(w)
	cw := &callgrindWriter{w: bw, ids: map[string]map[string]int{}, runPart: PartNumber(p, i), trigger: partTrigger(pt)}
	fmt.Fprintf(bw, "# callgrind format\nversion: 1\ncreator: icount %s\n", p.Meta.IcountVersion)
	cw.part(q, pt.Process, len(p.Processes) > 1)
	return bw.Flush()
}

// PartNumber is part i's number among its process's parts, from 1, as
// callgrind numbers a process's dumps.
func PartNumber(p *profile.Profile, i int) int {
	n := 0
	for _, pt := range p.Parts[:i+1] {
		if pt.Process == p.Parts[i].Process {
			n++
		}
	}
	return n
}

// partTrigger says what ended a part, in the words of callgrind's
// "desc: Trigger:" line.
func partTrigger(pt profile.Part) string {
	if pt.Iterations > 0 {
		return fmt.Sprintf("Go benchmark run: %s, b.N = %d", pt.Name, pt.Iterations)
	}
	if pt.Name == "exit" {
		return "Program termination"
	}
	return "Client Request: " + pt.Name
}

// partProfile returns the Profile with part pt's counts in place of the
// run's: its functions, call tree and totals, in the run's and its
// process's, and no per-line costs or blocks.
func partProfile(p *profile.Profile, pt profile.Part) *profile.Profile {
	q := *p
	q.Functions, q.Totals, q.Lines, q.Blocks, q.Positions, q.Parts = pt.Functions, pt.Totals, nil, nil, nil, nil
	q.CallTree = make([]profile.CallNode, len(pt.CallTree))
	for i, n := range pt.CallTree {
		n.Process = pt.Process
		q.CallTree[i] = n
	}
	q.Processes = append([]profile.Process(nil), p.Processes...)
	q.Processes[pt.Process].Functions, q.Processes[pt.Process].Totals = pt.Functions, pt.Totals
	return &q
}
