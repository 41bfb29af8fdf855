package report

import (
	"bufio"
	"fmt"
	"io"
	"path"
	"sort"
	"strconv"
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
// calls and their inclusive cost; without per-line attribution icount does
// not record call sites, so they are placed at the caller's first line. A
// function calling itself directly is one context in icount's tree: its
// calls from its caller then include its recursive calls.
//
// A run with per-line attribution and a call tree has its blocks counted
// per context and its call sites: the file then has `positions: instr
// line`, each instruction's cost at its address and line (as valgrind's
// --dump-instr=yes), and each call at the call instruction and its line
// (a function entered by a jump, at the jump).
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
	// With its blocks counted per context, the file has instructions.
	instr := hasContextsIn(p, process)
	if instr {
		fmt.Fprintf(bw, "positions: instr line\nevents: Ir\n")
	} else {
		fmt.Fprintf(bw, "positions: line\nevents: Ir\n")
	}
	fmt.Fprintf(bw, "summary: %d\n", total)

	type fkey struct{ module, name string }
	type pos = callgrindPos
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
	entryOf := func(module, name string) uint64 {
		if f := funcs[fkey{module, name}]; f != nil {
			return f.Addr
		}
		return 0
	}
	objectFile := func(module string) string { return objectFile(p, process, module) }
	// where writes a position: its instruction's address, when the file
	// has them, and its line.
	where := func(q pos) string {
		if instr {
			return fmt.Sprintf("0x%x %d", q.addr, q.line)
		}
		return strconv.Itoa(q.line)
	}

	// Self costs by function, then file and line (and instruction).
	lines := map[fkey]map[pos]uint64{}
	addCost := func(k fkey, q pos, n uint64) {
		if lines[k] == nil {
			lines[k] = map[pos]uint64{}
		}
		if q.file == "" {
			q.file = unknownFile
		}
		lines[k][q] += n
	}
	if instr {
		for i := range p.Blocks {
			b := &p.Blocks[i]
			if b.Process != process {
				continue
			}
			k := fkey{moduleAt(p, process, b.Addr), b.Function}
			for j, n := range b.Runs(b.Length) {
				if n == 0 {
					continue
				}
				x := -1
				if j < len(b.Positions) {
					x = b.Positions[j]
				}
				addCost(k, instrPos(p, b.InsnAddr(j), x), n)
			}
		}
	} else {
		for _, l := range p.Lines {
			if l.Process == process {
				addCost(fkey{l.Module, l.Function}, pos{file: l.File, line: l.Line}, l.Self)
			}
		}
	}
	// Call arcs: caller -> callee over every context, by call site (the
	// caller's first line without instructions).
	type arc struct {
		calls, incl uint64
	}
	type site struct {
		callee fkey
		at     pos
	}
	arcs := map[fkey]map[site]*arc{}
	for _, n := range p.CallTree {
		if n.Parent < 0 || n.Process != process {
			continue
		}
		parent := p.CallTree[n.Parent]
		from, to := fkey{parent.Module, parent.Function}, fkey{n.Module, n.Function}
		at := pos{file: home(from.module, from.name), line: firstLine(from.module, from.name)}
		if instr {
			at.addr = entryOf(from.module, from.name)
			if c := n.Call; c != nil {
				at = instrPos(p, c.Addr, c.Position)
				if at.file == "" {
					at.file = unknownFile
				}
			}
		}
		if arcs[from] == nil {
			arcs[from] = map[site]*arc{}
		}
		a := arcs[from][site{to, at}]
		if a == nil {
			a = &arc{}
			arcs[from][site{to, at}] = a
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
				costs = map[pos]uint64{{fileHome, f.Line, f.Addr}: f.Self}
			}
		}
		// The function's own file first, then the files inlined into it,
		// in the order of lines (of instructions, with them).
		before := func(a, b pos) bool {
			if (a.file == fileHome) != (b.file == fileHome) {
				return a.file == fileHome
			}
			if a.file != b.file {
				return a.file < b.file
			}
			if a.addr != b.addr {
				return a.addr < b.addr
			}
			return a.line < b.line
		}
		ps := make([]pos, 0, len(costs))
		for q := range costs {
			ps = append(ps, q)
		}
		sort.Slice(ps, func(i, j int) bool { return before(ps[i], ps[j]) })
		cur := fileHome
		// in makes the position's file the current one.
		in := func(file string) {
			if file != cur {
				if file == fileHome {
					cw.name("fe", "fl", file)
				} else {
					cw.name("fi", "fl", file)
				}
				cur = file
			}
		}
		for _, q := range ps {
			in(q.file)
			fmt.Fprintf(bw, "%s %d\n", where(q), costs[q])
		}
		sites := make([]site, 0, len(arcs[k]))
		for c := range arcs[k] {
			sites = append(sites, c)
		}
		sort.Slice(sites, func(i, j int) bool {
			x, y := sites[i], sites[j]
			if x.at != y.at {
				return before(x.at, y.at)
			}
			a, b := arcs[k][x], arcs[k][y]
			if a.incl != b.incl {
				return a.incl > b.incl
			}
			return x.callee.name < y.callee.name
		})
		for _, c := range sites {
			a := arcs[k][c]
			in(c.at.file)
			if obj := objectFile(c.callee.module); obj != objectFile(k.module) {
				cw.name("cob", "ob", obj)
			}
			cw.name("cfi", "fl", home(c.callee.module, c.callee.name))
			cw.name("cfn", "fn", DisplayName(c.callee.name))
			target := pos{line: firstLine(c.callee.module, c.callee.name), addr: entryOf(c.callee.module, c.callee.name)}
			fmt.Fprintf(bw, "calls=%d %s\n", a.calls, where(target))
			fmt.Fprintf(bw, "%s %d\n", where(c.at), a.incl)
		}
		in(fileHome)
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

// hasContextsIn tells whether the blocks of the entry process are counted
// per context, with their instructions (a run with per-line attribution
// and a call tree).
func hasContextsIn(p *profile.Profile, process int) bool {
	for i := range p.Blocks {
		if b := &p.Blocks[i]; b.Process == process && len(b.Contexts) > 0 {
			return true
		}
	}
	return false
}

// moduleAt is the module of the process's mapping holding addr, "" if
// none.
func moduleAt(p *profile.Profile, process int, addr uint64) string {
	for _, m := range p.Mappings {
		if m.Process == process && addr >= m.Start && addr < m.Limit {
			if m.Module != "" {
				return m.Module
			}
			return path.Base(m.File)
		}
	}
	return ""
}

// callgrindPos is a position of the callgrind file: a source line and,
// when the file has them, the address of its instruction.
type callgrindPos struct {
	file string
	line int
	addr uint64
}

// instrPos is the position of the instruction at addr whose source
// position is index (in Profile.Positions; -1 for none). Code inlined
// is at its own line, in its own file.
func instrPos(p *profile.Profile, addr uint64, index int) callgrindPos {
	q := callgrindPos{addr: addr}
	if index >= 0 && index < len(p.Positions) {
		q.file, q.line = p.Positions[index].File, p.Positions[index].Line
	}
	return q
}
