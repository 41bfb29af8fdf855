package report

import (
	"bufio"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"

	"github.com/icount-dev/icount/profile"
)

// unknownFile names code without line information, as valgrind does.
const unknownFile = "???"

// WriteCallgrind writes the Profile in callgrind's profile format, for
// callgrind_annotate and KCachegrind. The one event, Ir, is instructions
// executed. Each function's self cost is given by source line (from the
// Profile's Lines; a function without them has its whole cost at its first
// line), lines of code inlined from another file under fi=. Each call arc
// of the call tree (caller to callee, summed over their contexts) gives the
// calls and their inclusive cost; icount does not record call sites, so
// they are placed at the caller's first line. A function calling itself
// directly is one context in icount's tree: its calls from its caller then
// include its recursive calls.
//
// A run of more than one process is one part per program run (entry of
// Profile.Processes), in order, each with its pid, command, summary and
// totals, as the format allows; KCachegrind reads each part, but
// callgrind_annotate only the first: WriteCallgrindPart writes one part
// alone.
func WriteCallgrind(w io.Writer, p *profile.Profile) error {
	bw := bufio.NewWriter(w)
	cw := &callgrindWriter{w: bw, ids: map[string]map[string]int{}}
	fmt.Fprintf(bw, "# callgrind format\nversion: 1\ncreator: icount %s\n", p.Meta.IcountVersion)
	procs := p.Processes
	if len(procs) == 1 {
		cw.part(p, 0, false)
	} else {
		for i := range procs {
			cw.part(p, i, true)
		}
	}
	return bw.Flush()
}

// WriteCallgrindPart writes one program of the run, the entry process of
// Profile.Processes, as a callgrind file of one part (see WriteCallgrind).
func WriteCallgrindPart(w io.Writer, p *profile.Profile, process int) error {
	procs := p.Processes
	if process < 0 || process >= len(procs) {
		return fmt.Errorf("no process %d: the run has %d", process, len(procs))
	}
	bw := bufio.NewWriter(w)
	cw := &callgrindWriter{w: bw, ids: map[string]map[string]int{}}
	fmt.Fprintf(bw, "# callgrind format\nversion: 1\ncreator: icount %s\n", p.Meta.IcountVersion)
	cw.part(p, process, len(procs) > 1)
	return bw.Flush()
}

// part writes the part of the entry process: the whole run when the run
// had one (own false), else that program's own header and costs.
func (cw *callgrindWriter) part(p *profile.Profile, process int, own bool) {
	bw := cw.w
	fns, cmd, exit, total := p.Functions, p.Meta.Args, fmt.Sprintf("exit %d", p.Exit.Status), p.Totals.Instructions
	if own {
		pr := p.Processes[process]
		fns, cmd, exit, total = pr.Functions, pr.Argv, exitText(pr.Exit), pr.Totals.Instructions
		fmt.Fprintf(bw, "\npid: %d\n", pr.PID)
	}
	number := process + 1
	if cw.runPart > 0 {
		number = cw.runPart
	}
	fmt.Fprintf(bw, "cmd: %s\npart: %d\n", oneLine(strings.Join(cmd, " ")), number)
	fmt.Fprintf(bw, "desc: Guest: %s, %s, %s\n", p.Meta.Arch, p.Meta.CPUModel, exit)
	if cw.trigger != "" {
		fmt.Fprintf(bw, "desc: Trigger: %s\n", oneLine(cw.trigger))
	}
	fmt.Fprintf(bw, "positions: line\nevents: Ir\n")
	fmt.Fprintf(bw, "summary: %d\n", total)

	type fkey struct{ module, name string }
	funcs := map[fkey]*profile.FunctionCount{}
	for i := range fns {
		f := &fns[i]
		funcs[fkey{f.Module, f.Name}] = f
	}
	home := func(module, name string) string {
		if f := funcs[fkey{module, name}]; f != nil && f.File != "" {
			return f.File
		}
		return unknownFile
	}
	firstLine := func(module, name string) int {
		if f := funcs[fkey{module, name}]; f != nil {
			return f.Line
		}
		return 0
	}
	objectFile := func(module string) string { return objectFile(p, process, module) }

	// Self costs by function, then file and line.
	type pos struct {
		file string
		line int
	}
	lines := map[fkey]map[pos]uint64{}
	for _, l := range p.Lines {
		if l.Process != process {
			continue
		}
		k := fkey{l.Module, l.Function}
		if lines[k] == nil {
			lines[k] = map[pos]uint64{}
		}
		file := l.File
		if file == "" {
			file = unknownFile
		}
		lines[k][pos{file, l.Line}] += l.Self
	}
	// Call arcs: caller -> callee over every context.
	type arc struct {
		calls, incl uint64
	}
	arcs := map[fkey]map[fkey]*arc{}
	for _, n := range p.CallTree {
		if n.Parent < 0 || n.Process != process {
			continue
		}
		parent := p.CallTree[n.Parent]
		from, to := fkey{parent.Module, parent.Function}, fkey{n.Module, n.Function}
		if arcs[from] == nil {
			arcs[from] = map[fkey]*arc{}
		}
		a := arcs[from][to]
		if a == nil {
			a = &arc{}
			arcs[from][to] = a
		}
		a.calls += n.Calls
		a.incl += n.Inclusive
	}

	// Every function with a cost or a call, in the Profile's order.
	var order []fkey
	seen := map[fkey]bool{}
	add := func(k fkey) {
		if !seen[k] {
			seen[k] = true
			order = append(order, k)
		}
	}
	for _, f := range fns {
		add(fkey{f.Module, f.Name})
	}
	var extra []fkey
	for k := range lines {
		if !seen[k] {
			extra = append(extra, k)
		}
	}
	for k := range arcs {
		if !seen[k] {
			extra = append(extra, k)
		}
	}
	sort.Slice(extra, func(i, j int) bool {
		if extra[i].module != extra[j].module {
			return extra[i].module < extra[j].module
		}
		return extra[i].name < extra[j].name
	})
	for _, k := range extra {
		add(k)
	}

	curObj := ""
	for _, k := range order {
		fileHome := home(k.module, k.name)
		bw.WriteString("\n")
		if obj := objectFile(k.module); obj != curObj {
			cw.name("ob", "ob", obj)
			curObj = obj
		}
		cw.name("fl", "fl", fileHome)
		cw.name("fn", "fn", DisplayName(k.name))
		costs := lines[k]
		if costs == nil {
			if f := funcs[k]; f != nil && f.Self > 0 {
				costs = map[pos]uint64{{fileHome, f.Line}: f.Self}
			}
		}
		ps := make([]pos, 0, len(costs))
		for q := range costs {
			ps = append(ps, q)
		}
		// The function's own file first, then the files inlined into it.
		sort.Slice(ps, func(i, j int) bool {
			a, b := ps[i], ps[j]
			if (a.file == fileHome) != (b.file == fileHome) {
				return a.file == fileHome
			}
			if a.file != b.file {
				return a.file < b.file
			}
			return a.line < b.line
		})
		cur := fileHome
		for _, q := range ps {
			if q.file != cur {
				if q.file == fileHome {
					cw.name("fe", "fl", q.file)
				} else {
					cw.name("fi", "fl", q.file)
				}
				cur = q.file
			}
			fmt.Fprintf(bw, "%d %d\n", q.line, costs[q])
		}
		if cur != fileHome {
			cw.name("fe", "fl", fileHome)
		}
		callees := make([]fkey, 0, len(arcs[k]))
		for c := range arcs[k] {
			callees = append(callees, c)
		}
		sort.Slice(callees, func(i, j int) bool {
			a, b := arcs[k][callees[i]], arcs[k][callees[j]]
			if a.incl != b.incl {
				return a.incl > b.incl
			}
			return callees[i].name < callees[j].name
		})
		for _, c := range callees {
			a := arcs[k][c]
			if obj := objectFile(c.module); obj != objectFile(k.module) {
				cw.name("cob", "ob", obj)
			}
			cw.name("cfi", "fl", home(c.module, c.name))
			cw.name("cfn", "fn", DisplayName(c.name))
			fmt.Fprintf(bw, "calls=%d %d\n", a.calls, firstLine(c.module, c.name))
			fmt.Fprintf(bw, "%d %d\n", firstLine(k.module, k.name), a.incl)
		}
	}
	fmt.Fprintf(bw, "\ntotals: %d\n", total)
}

// callgrindWriter compresses names: the first use of a name gives it a
// number, "(N) name"; later uses give the number alone.
type callgrindWriter struct {
	w   *bufio.Writer
	ids map[string]map[string]int // by kind of name (ob, fl, fn): name to number
	// runPart and trigger, when set, number a part of the run
	// (WriteCallgrindRunPart) and say what ended it.
	runPart int
	trigger string
}

// name writes "spec=(N) name" or "spec=(N)", numbering name among kind.
func (c *callgrindWriter) name(spec, kind, name string) {
	m := c.ids[kind]
	if m == nil {
		m = map[string]int{}
		c.ids[kind] = m
	}
	name = oneLine(name)
	if id, ok := m[name]; ok {
		fmt.Fprintf(c.w, "%s=(%d)\n", spec, id)
		return
	}
	id := len(m) + 1
	m[name] = id
	fmt.Fprintf(c.w, "%s=(%d) %s\n", spec, id, name)
}

// objectFile is the file of the mapped object named module in the entry
// process: the path of its mapping whose base name it is, else the module
// name.
func objectFile(p *profile.Profile, process int, module string) string {
	for _, m := range p.Mappings {
		if m.Process == process && path.Base(m.File) == module {
			return m.File
		}
	}
	if module == "" {
		return unknownFile
	}
	return module
}

// oneLine keeps a name on one line of the file.
func oneLine(s string) string {
	return strings.NewReplacer("\n", " ", "\r", " ").Replace(s)
}
