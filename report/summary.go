package report

import (
	"fmt"
	"io"
	"sort"
	"strconv"

	"github.com/icount-dev/icount/profile"
)

// Prefix starts every line icount prints on stderr, so that its own output
// is told apart from the guest's.
const Prefix = "icount: "

// Summary writes the short human summary of a run, with the top functions
// by instructions executed in their own code and, when the run kept the
// call tree, by inclusive cost (see topFunctions).
func Summary(w io.Writer, p *profile.Profile, top int) {
	t := p.Totals
	end := fmt.Sprintf("exit %d", p.Exit.Status)
	if p.Exit.Signal != "" {
		end = "killed by " + p.Exit.Signal
	}
	if !p.Exit.Complete {
		end = "stopped early, counts are partial"
	}
	fmt.Fprintf(w, "%s%s instructions (%s, %s)\n", Prefix, Group(t.Instructions), p.Meta.Arch, end)
	fmt.Fprintf(w, "%s%s block executions, %s distinct blocks, %s system calls\n",
		Prefix, Group(t.Blocks), Group(t.DistinctBlocks), Group(t.Syscalls))
	processLines(w, p)
	objectLines(w, p)
	threadLines(w, p)
	topFunctions(w, p, top)
	partLines(w, p)
	clockLine(w, p)
	for _, warn := range p.Warnings {
		fmt.Fprintf(w, "%swarning: %s\n", Prefix, warn)
	}
}

// maxProcessLines bounds the processes the summary lists one by one.
const maxProcessLines = 8

// processLines lists the programs the run's processes ran, when there was
// more than one, most instructions first (then in the order they started):
// each with its share, pid, how it ended and its command line; those past
// maxProcessLines summed on one line.
func processLines(w io.Writer, p *profile.Profile) {
	ps := p.Processes
	if len(ps) < 2 {
		return
	}
	order := make([]int, len(ps))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return ps[order[a]].Totals.Instructions > ps[order[b]].Totals.Instructions })
	total := p.Totals.Instructions
	share := func(n uint64) float64 {
		if total == 0 {
			return 0
		}
		return 100 * float64(n) / float64(total)
	}
	pids := map[int]bool{}
	for _, pr := range ps {
		pids[pr.PID] = true
	}
	fmt.Fprintf(w, "%sinstructions by process (%s in %s):\n", Prefix,
		plural(len(ps), "program", "programs"), plural(len(pids), "process", "processes"))
	for k, i := range order {
		if k == maxProcessLines {
			var rest uint64
			for _, j := range order[k:] {
				rest += ps[j].Totals.Instructions
			}
			fmt.Fprintf(w, "%s%16s %5.1f%%  ... %d more\n", Prefix, Group(rest), share(rest), len(order)-k)
			break
		}
		pr := ps[i]
		fmt.Fprintf(w, "%s%16s %5.1f%%  pid %-6d %-18s %s\n", Prefix, Group(pr.Totals.Instructions), share(pr.Totals.Instructions),
			pr.PID, exitText(pr.Exit), argvLine(pr))
	}
}

// maxThreadLines bounds the threads the summary lists one by one.
const maxThreadLines = 8

// threadLines lists a multi-threaded program's threads with their shares.
func threadLines(w io.Writer, p *profile.Profile) {
	if len(p.Threads) == 0 {
		return
	}
	fmt.Fprintf(w, "%s%d threads (quantum %s instructions):\n", Prefix, len(p.Threads), Group(p.Meta.Quantum))
	var all uint64 // what every thread ran: more than the total with --collect
	for _, t := range p.Threads {
		all += t.Instructions
	}
	for i, t := range p.Threads {
		if i == maxThreadLines {
			fmt.Fprintf(w, "%s  ... %d threads more\n", Prefix, len(p.Threads)-i)
			break
		}
		share := 0.0
		if all > 0 {
			share = 100 * float64(t.Instructions) / float64(all)
		}
		fmt.Fprintf(w, "%s  thread %d  %-16s %16s %5.1f%%\n", Prefix, t.TID, t.Name, Group(t.Instructions), share)
	}
}

// Group writes n with thousands separators: 1,234,567.
func Group(n uint64) string {
	s := strconv.FormatUint(n, 10)
	out := make([]byte, 0, len(s)+len(s)/3)
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}
