package report

import (
	"fmt"
	"io"
	"math/bits"
	"sort"
	"strings"

	pprofile "github.com/google/pprof/profile"

	"github.com/icount-dev/icount/profile"
)

// Pprof converts the Profile to pprof's profile.proto: sample types
// instructions/count (the default) and blocks/count, one sample per node of
// the call tree with its full stack (one per function without a tree),
// mappings with file names and build IDs, functions with their raw and
// demangled names, file and first line. A location is a function's entry
// in one process.
//
// A run with per-line attribution and a call tree (its blocks counted per
// context) gives more: a location per instruction address, with its
// mapping, its source line and the calls inlined there as pprof's Line
// entries, innermost first; a sample per instruction and context, whose
// stack goes up through the call instructions that entered each context.
// -list, -disasm, -lines and -addresses then show each line's and each
// instruction's cost, as icount annotate does, and block executions are
// exact per context. -top shows inlined functions on their own, as pprof
// does; -top -noinlines gives icount's functions.
//
// Every sample carries the process it ran in: a numeric label "pid" and a
// string label "process" (its program's name), and with more than one
// process a root frame "pid PID NAME", so that -tagfocus, -tagignore and
// flame graphs tell the processes apart. What a part of the run counted
// is in samples of its own, labelled with it (labelParts).
//
// Instructions are exact per context. Block executions are exact per
// function; icount's tree does not count them per context, so a function
// with several contexts has its block executions shared among them in
// proportion to their instructions (the comments say so).
func Pprof(p *profile.Profile) (*pprofile.Profile, error) {
	out, stream := pprofOf(p)
	return out, whole(out, stream, p)
}

// whole gives out the samples of stream (when pprofOf left them in it),
// labelled by the parts, and checks it.
func whole(out *pprofile.Profile, stream sampleStream, p *profile.Profile) error {
	if stream != nil {
		stream.materialize(out)
		labelParts(out, p)
	}
	return out.CheckValid()
}

// pprofOf builds the pprof profile of a Profile: whole, or at full depth
// (a Profile with contexts) all but its samples, which the stream gives
// and labelParts has not labelled.
func pprofOf(p *profile.Profile) (*pprofile.Profile, sampleStream) {
	out := &pprofile.Profile{
		SampleType:        []*pprofile.ValueType{{Type: "instructions", Unit: "count"}, {Type: "blocks", Unit: "count"}},
		DefaultSampleType: "instructions",
		PeriodType:        &pprofile.ValueType{Type: "instructions", Unit: "count"},
		Period:            1,
		Comments: []string{
			fmt.Sprintf("icount %s, %s guest (%s)", p.Meta.IcountVersion, p.Meta.Arch, p.Meta.CPUModel),
			"command: " + strings.Join(p.Meta.Args, " "),
		},
	}
	contexts := hasContexts(p)
	if contexts {
		out.Comments = append(out.Comments, "a location per instruction, with its line and inlined calls; blocks/count is exact, at each block's first instruction")
	} else {
		out.Comments = append(out.Comments, "blocks/count is exact per function; split among a function's calling contexts in proportion to their instructions")
	}
	procs := p.Processes
	multi := len(procs) > 1
	if multi {
		out.Comments = append(out.Comments, fmt.Sprintf("%d processes: the labels pid and process and a root frame per process tell them apart", len(procs)))
	}
	hasLines := false
	for _, f := range p.Functions {
		hasLines = hasLines || f.File != ""
	}
	for i, m := range p.Mappings {
		out.Mapping = append(out.Mapping, &pprofile.Mapping{ID: uint64(i + 1), Start: m.Start, Limit: m.Limit,
			Offset: m.Offset, File: m.File, BuildID: m.BuildID,
			HasFunctions: true, HasFilenames: hasLines, HasLineNumbers: hasLines})
	}

	type fkey struct {
		process      int
		module, name string
	}
	type nkey struct{ module, name string }
	own := map[fkey]profile.FunctionCount{} // each process's own counts
	for i, pr := range procs {
		for _, f := range pr.Functions {
			own[fkey{i, f.Module, f.Name}] = f
		}
	}
	merged := map[nkey]profile.FunctionCount{}
	for _, f := range p.Functions {
		merged[nkey{f.Module, f.Name}] = f
	}
	fns := map[nkey]*pprofile.Function{}
	// function is the function named name in module; file is its file when
	// the Profile does not say (a function only inlined).
	function := func(module, name, file string) *pprofile.Function {
		k := nkey{module, name}
		if fn := fns[k]; fn != nil {
			return fn
		}
		f, ok := merged[k]
		if ok || file == "" {
			file = f.File
		}
		fn := &pprofile.Function{ID: uint64(len(out.Function) + 1), Name: DisplayName(name), SystemName: name,
			Filename: file, StartLine: int64(f.Line)}
		out.Function = append(out.Function, fn)
		fns[k] = fn
		return fn
	}
	newLocation := func(fn *pprofile.Function) *pprofile.Location {
		l := &pprofile.Location{ID: uint64(len(out.Location) + 1), Line: []pprofile.Line{{Function: fn, Line: fn.StartLine}}}
		out.Location = append(out.Location, l)
		return l
	}
	locs := map[fkey]*pprofile.Location{}
	location := func(process int, module, name string) *pprofile.Location {
		k := fkey{process, module, name}
		if l := locs[k]; l != nil {
			return l
		}
		l := newLocation(function(module, name, ""))
		l.Address = own[k].Addr
		for i, m := range p.Mappings {
			if m.Process == process && l.Address >= m.Start && l.Address < m.Limit {
				l.Mapping = out.Mapping[i]
			}
		}
		locs[k] = l
		return l
	}
	// Each process's root frame, and its labels.
	roots := make([]*pprofile.Location, len(procs))
	// Each process's labels, shared by its samples (a run with
	// instructions has millions).
	labels := make([]map[string][]string, len(procs))
	numLabels := make([]map[string][]int64, len(procs))
	for i, pr := range procs {
		labels[i] = map[string][]string{"process": {processName(pr)}}
		numLabels[i] = map[string][]int64{"pid": {int64(pr.PID)}}
	}
	label := func(process int, s *pprofile.Sample) *pprofile.Sample {
		pr := procs[process]
		s.Label, s.NumLabel = labels[process], numLabels[process]
		if multi {
			if roots[process] == nil {
				name := fmt.Sprintf("pid %d %s", pr.PID, processName(pr))
				roots[process] = newLocation(&pprofile.Function{ID: uint64(len(out.Function) + 1), Name: name, SystemName: name})
				out.Function = append(out.Function, roots[process].Line[0].Function)
			}
			s.Location = append(s.Location, roots[process])
		}
		return s
	}

	if len(p.CallTree) == 0 {
		for i, pr := range procs {
			for _, f := range pr.Functions {
				if f.Self > 0 || f.Blocks > 0 {
					out.Sample = append(out.Sample, label(i, &pprofile.Sample{Location: []*pprofile.Location{location(i, f.Module, f.Name)},
						Value: []int64{int64(f.Self), int64(f.Blocks)}}))
				}
			}
		}
		labelParts(out, p)
		return out, nil
	}
	if contexts {
		b := &pprofBuilder{p: p, out: out, function: function, locs: map[addrKey]*pprofile.Location{}}
		b.entry = func(process int, module, name string) *pprofile.Location {
			return b.instruction(process, own[fkey{process, module, name}].Addr, name, -1)
		}
		return out, b.instructionSamples(label)
	}
	for _, n := range p.CallTree {
		location(n.Process, n.Module, n.Function)
	}
	nodeBlocks := contextBlocks(p)
	for i, n := range p.CallTree {
		if n.Self == 0 && nodeBlocks[i] == 0 {
			continue
		}
		var stack []*pprofile.Location
		for j := i; j >= 0; j = p.CallTree[j].Parent {
			c := p.CallTree[j]
			stack = append(stack, locs[fkey{c.Process, c.Module, c.Function}])
		}
		out.Sample = append(out.Sample, label(n.Process, &pprofile.Sample{Location: stack, Value: []int64{int64(n.Self), int64(nodeBlocks[i])}}))
	}
	labelParts(out, p)
	return out, nil
}

// contextBlocks is the block executions of each node of the call tree:
// each function's in a process shared among its contexts there (see
// shareBlocks).
func contextBlocks(p *profile.Profile) []uint64 {
	type fkey struct {
		process      int
		module, name string
	}
	own := map[fkey]uint64{}
	for i, pr := range p.Processes {
		for _, f := range pr.Functions {
			own[fkey{i, f.Module, f.Name}] = f.Blocks
		}
	}
	return shareBlocks(p.CallTree, func(process int, module, name string) uint64 { return own[fkey{process, module, name}] })
}

// shareBlocks shares each function's block executions in a process among
// its contexts there in proportion to their instructions, by largest
// remainder, so that the shares of a function sum to its block executions
// exactly.
func shareBlocks(tree []profile.CallNode, blocksOf func(process int, module, name string) uint64) []uint64 {
	type fkey struct {
		process      int
		module, name string
	}
	nodes := map[fkey][]int{}
	var order []fkey
	for i, n := range tree {
		k := fkey{n.Process, n.Module, n.Function}
		if nodes[k] == nil {
			order = append(order, k)
		}
		nodes[k] = append(nodes[k], i)
	}
	share := make([]uint64, len(tree))
	for _, k := range order {
		idx := nodes[k]
		total := blocksOf(k.process, k.module, k.name)
		var self uint64
		for _, i := range idx {
			self += tree[i].Self
		}
		if self == 0 {
			share[idx[0]] = total
			continue
		}
		type rem struct {
			i int
			r uint64
		}
		var rems []rem
		var given uint64
		for _, i := range idx {
			q, r := mulDiv(total, tree[i].Self, self)
			share[i] = q
			given += q
			rems = append(rems, rem{i, r})
		}
		sort.SliceStable(rems, func(a, b int) bool { return rems[a].r > rems[b].r })
		for j := 0; given < total; j++ {
			share[rems[j%len(rems)].i]++
			given++
		}
	}
	return share
}

// mulDiv returns a*b/c and its remainder, in 128-bit arithmetic; b <= c,
// so the quotient fits.
func mulDiv(a, b, c uint64) (q, r uint64) {
	hi, lo := bits.Mul64(a, b)
	return bits.Div64(hi, lo, c)
}

// WritePprof writes the Profile as a gzipped profile.proto (see Pprof).
// At full depth without parts its samples are written as they are made
// (writeProto), not held: a Python run's millions of them took 4 GB.
func WritePprof(w io.Writer, p *profile.Profile) error {
	out, stream := pprofOf(p)
	if stream != nil && len(p.Parts) == 0 {
		if err := out.CheckValid(); err != nil {
			return fmt.Errorf("building the pprof profile: %w", err)
		}
		return writeProto(w, out, stream)
	}
	if err := whole(out, stream, p); err != nil {
		return fmt.Errorf("building the pprof profile: %w", err)
	}
	return out.Write(w)
}
