package report

import (
	"strings"

	pprofile "github.com/google/pprof/profile"

	"github.com/icount-dev/icount/profile"
)

// labelParts splits the samples of a run's pprof profile by the run's
// parts: what a part counted in a calling context moves from the context's
// samples to copies labelled "part" (its name) and, for a Go benchmark's
// run, "iterations" (its b.N), so that -tagfocus=part=NAME shows one part
// and -tagignore=part what ran outside every part; the samples still sum
// to the run's counts. A context's part is shared among the context's
// samples in proportion to their instructions, and its block executions
// with it. Without a call tree, the contexts are the functions.
func labelParts(out *pprofile.Profile, p *profile.Profile) {
	if len(p.Parts) == 0 {
		return
	}
	multi := len(p.Processes) > 1
	type skey struct {
		pid   int64
		stack string
	}
	bySt := map[skey][]int{}
	for i, s := range out.Sample {
		var names []string
		locs := s.Location
		if multi && len(locs) > 0 {
			locs = locs[:len(locs)-1] // the process's root frame
		}
		for _, l := range locs {
			if len(l.Line) > 0 {
				names = append(names, l.Line[len(l.Line)-1].Function.SystemName)
			}
		}
		k := skey{s.NumLabel["pid"][0], strings.Join(names, "\x00")}
		bySt[k] = append(bySt[k], i)
	}
	for _, pt := range p.Parts {
		pid := int64(p.Processes[pt.Process].PID)
		move := func(stack []string, self uint64) {
			samples := bySt[skey{pid, strings.Join(stack, "\x00")}]
			var have uint64
			for _, i := range samples {
				have += uint64(out.Sample[i].Value[0])
			}
			// Shared in turn: each sample takes its proportion of what is
			// left, the last all of it.
			take := min(self, have)
			for _, i := range samples {
				s := out.Sample[i]
				v := uint64(s.Value[0])
				if v == 0 || have == 0 {
					continue
				}
				share, _ := mulDiv(take, v, have)
				take, have = take-share, have-v
				if share == 0 {
					continue
				}
				blocks, _ := mulDiv(uint64(s.Value[1]), share, v)
				c := *s
				c.Value = []int64{int64(share), int64(blocks)}
				c.Label = map[string][]string{"part": {pt.Name}}
				c.NumLabel = map[string][]int64{}
				for k, v := range s.Label {
					c.Label[k] = v
				}
				for k, v := range s.NumLabel {
					c.NumLabel[k] = v
				}
				if pt.Iterations > 0 {
					c.NumLabel["iterations"] = []int64{int64(pt.Iterations)}
				}
				s.Value = []int64{s.Value[0] - int64(share), s.Value[1] - int64(blocks)}
				out.Sample = append(out.Sample, &c)
			}
		}
		if len(pt.CallTree) == 0 {
			for _, f := range pt.Functions {
				move([]string{f.Name}, f.Self)
			}
			continue
		}
		for i, n := range pt.CallTree {
			if n.Self == 0 {
				continue
			}
			var stack []string
			for j := i; j >= 0; j = pt.CallTree[j].Parent {
				stack = append(stack, pt.CallTree[j].Function)
			}
			move(stack, n.Self)
		}
	}
	kept := out.Sample[:0]
	for _, s := range out.Sample {
		if s.Value[0] != 0 || s.Value[1] != 0 {
			kept = append(kept, s)
		}
	}
	out.Sample = kept
}
