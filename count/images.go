package count

import (
	"fmt"
	"path/filepath"
	"sort"
	"sync/atomic"

	"github.com/icount-dev/icount/emu"
	"github.com/icount-dev/icount/kernel"
	"github.com/icount-dev/icount/loader"
	"github.com/icount-dev/icount/profile"
	"github.com/icount-dev/icount/symbolize"
)

// A run's processes. Each address space is one emu.CPU with its own block
// table, decoder and modules (an image): the first process's, each fork's
// and each exec's. When a program ends (its process exits, or exec
// replaces it) its image is read back into a part, one entry of the
// Profile's process tree, and its CPU is kept as a spare for a later
// address space (spares.go); at the end the parts are merged into the
// run's Profile.

// image is count's side of one address space.
type image struct {
	cpu  *emu.CPU
	dec  *decoder
	mods *modules
	loc  *locator
	// parts counts the stretches of the run the guest asks for (parts.go).
	parts *partCounter
	kimg  *kernel.Image // the kernel's record, once it made one
	// owner is the image whose address space a CLONE_VM child's ran in
	// (kimg.Shared); it has no CPU, decoder or modules of its own.
	owner *image

	part     *profile.Profile // what it counted, once it ended
	exitNote string           // how a fault ended it, for a process other than the first
	// trace and traceMore are its backtrace there.
	trace     []profile.Frame
	traceMore int
}

// runner is one run: the kernel and every image.
type runner struct {
	opts    Options
	k       *kernel.Kernel
	objects *symbolize.Cache // object files read, shared by every image's modules
	// shapes is the blocks decoded, shared by every image's decoder from
	// the second image on (shareShapes); nil while there is one.
	shapes  *shapes
	images  map[kernel.CPU]*image
	order   []*image        // by kernel image, in the order they started
	pending []*image        // made, not yet matched to the kernel's image
	ended   []*kernel.Image // ended, waiting for their CPUs to be free
	spares  []spare         // CPUs of programs that ended, oldest first
	engine  *emu.Engine     // the emulator made for the first program, until it starts
	running atomic.Pointer[emu.CPU]
	done    atomic.Uint64 // instructions of the images read back
}

// NewCPU is the kernel's Host: the CPU of a new address space, for exe
// (a new program) or a copy of from's (a fork).
func (r *runner) NewCPU(arch emu.Arch, exe *loader.Executable, from kernel.CPU) (kernel.CPU, error) {
	im := &image{}
	var parent *image
	if exe != nil {
		im.mods = newModules(exe.Path, exe.Base(), r.objects)
	} else {
		parent = r.images[from]
		im.mods = newModules(parent.mods.main.path, parent.mods.main.bias, r.objects)
	}
	var collect []uint64
	for _, name := range r.opts.Collect {
		if entry, ok := im.mods.main.code.Entry(name); ok {
			collect = append(collect, entry)
		}
	}
	if len(r.opts.Collect) > 0 && len(collect) == 0 {
		collect = []uint64{0} // no function of the program is collected: nothing is inside
	}
	budget := uint64(0)
	if m := r.opts.MaxInstructions; m != 0 {
		budget = max(m-min(m, r.executed()), 1)
	}
	hooks := emu.Hooks{
		NewBlock: func(id uint32, addr uint64, size uint32) emu.BlockInfo {
			return im.dec.newBlock(id, addr, size)
		},
		Syscall:     func() { r.k.Syscall() },
		Interrupt:   func(intno uint32) bool { return r.k.Interrupt(intno) },
		WholeBefore: func(pc, limit uint64) uint64 { return im.dec.wholeBefore(pc, limit) },
		InsnEnd:     func(pc uint64) uint64 { return im.dec.insnEnd(pc) },
		ClientRequest: func(args, def uint64) uint64 {
			return im.parts.clientRequest(args, def)
		},
		Probe:    func(pc uint64) { im.parts.probe(pc) },
		Function: func(pc uint64) uint64 { return im.mods.entry(pc) },
	}
	opts := emu.Options{Attribution: r.opts.Attribution || len(collect) > 0, Collect: collect, Cells: r.opts.Lines && r.opts.Contexts,
		MaxInstructions: budget, CodeBuffer: codeBuffer(exe)}
	var cpu *emu.CPU
	var err error
	if s := r.takeSpare(arch, opts, im.mods.main.path); s != nil {
		cpu, err = s.CPU(hooks, opts)
	} else if r.engine.Fits(arch, opts) {
		cpu, err = r.engine.CPU(hooks, opts)
		r.engine = nil
	} else {
		cpu, err = emu.New(arch, hooks, opts)
	}
	if err != nil {
		return nil, fmt.Errorf("starting the emulator: %w", err)
	}
	im.cpu = cpu
	im.dec = newDecoder(arch, cpu.Read, im.mods.place)
	im.dec.resumes = func(fn uint64) bool {
		goexit0, ok := im.mods.resumes(fn)
		if ok {
			// A Go program: its goroutines get a shadow stack each
			// before the resume decoded runs (again for each block of
			// gogo decoded: it sets the same).
			cpu.TrackGoroutines(goexit0)
		}
		return ok
	}
	im.dec.cpu = cpu
	im.parts = &partCounter{im: im}
	// Only a program of Go's toolchain may run Go benchmarks: another's
	// symbols are not read for them here, on the run's thread before its
	// first instruction (11 ms for python3), but beside it (prefetcher).
	// A fork's child runs its parent's program.
	if exe != nil && exe.Go || parent != nil && parent.parts.gobench != nil {
		if g := newGoBench(im.parts, im.mods); g != nil {
			im.parts.gobench = g
			im.dec.probes = g.probes
		}
	}
	r.shareShapes(im.dec)
	cpu.SetSiteCuts(im.dec.siteCuts)
	im.loc = &locator{dec: im.dec, cpu: cpu}
	cpu.SetCounter(func(insn emu.CounterInsn) uint64 { return r.k.ReadCounter(insn) }, im.dec.notRun)
	if parent != nil {
		if err := cpu.CopyMemoryFrom(parent.cpu); err != nil {
			cpu.Close()
			return nil, fmt.Errorf("fork: copying the address space: %w", err)
		}
		if err := cpu.CopyRegistersFrom(parent.cpu); err != nil {
			cpu.Close()
			return nil, fmt.Errorf("fork: copying the registers: %w", err)
		}
		if err := cpu.CopyCounterWatchesFrom(parent.cpu); err != nil {
			cpu.Close()
			return nil, fmt.Errorf("fork: %w", err)
		}
	}
	if r.images == nil {
		r.images = map[kernel.CPU]*image{}
	}
	r.images[cpu] = im
	r.pending = append(r.pending, im)
	return cpu, nil
}

// shareShapes gives a new image's decoder the run's decoded blocks. A run
// of one program has no use for them: they are gathered when a second
// image starts, from the decoders of the images so far, and kept from then
// on by every decoder.
func (r *runner) shareShapes(dec *decoder) {
	if r.shapes == nil && len(r.images) > 0 {
		r.shapes = newShapes()
		for _, im := range r.images {
			for _, b := range im.dec.byID {
				if b != nil && b.code != nil {
					_, k := r.shapes.find(b.addr, b.code)
					r.shapes.add(k, b.blockShape)
				}
			}
			im.dec.shapes = r.shapes
		}
	}
	dec.shapes = r.shapes
}

// forkCodeBuffer is the translation buffer of a fork's CPU: a child runs
// little of its parent's program before it execs (a new CPU, with the
// default buffer), and a hundred live children stay small.
const forkCodeBuffer = 64 << 20

// codeBuffer is the translation buffer for a CPU of exe (nil: a fork's).
func codeBuffer(exe *loader.Executable) uint64 {
	if exe == nil {
		return forkCodeBuffer
	}
	return 0 // emu.DefaultCodeBuffer
}

// link matches the kernel's new images to the images made for them. An
// image that runs in another's address space (a CLONE_VM child) has no
// CPU of its own: its counts are its owner's.
func (r *runner) link() {
	kimgs := r.k.Images()
	for i := len(r.order); i < len(kimgs); i++ {
		ki := kimgs[i]
		if ki.Shared {
			r.order = append(r.order, &image{kimg: ki, owner: r.images[ki.CPU]})
			continue
		}
		im := r.images[ki.CPU]
		im.kimg = ki
		im.mods.maps = ki
		r.order = append(r.order, im)
	}
	// A CPU the kernel let go of before making an image of it (a failed
	// exec) is closed.
	for _, im := range r.pending {
		if im.kimg == nil && r.images[im.cpu] == im {
			delete(r.images, im.cpu)
			im.cpu.Close()
		}
	}
	r.pending = r.pending[:0]
}

// executed is how many instructions the run has executed so far, from
// any goroutine (--progress).
func (r *runner) executed() uint64 {
	n := r.done.Load()
	if cpu := r.running.Load(); cpu != nil {
		n += cpu.Executed()
	}
	return n
}

// retire reads back the images whose programs ended, once no process
// runs on their CPUs any more (all of them at the run's end), and keeps
// the CPUs as spares.
func (r *runner) retire(ended []*kernel.Image, final bool) {
	r.ended = append(r.ended, ended...)
	waiting := r.ended[:0]
	for _, ki := range r.ended {
		if ki.Shared {
			im := r.order[ki.ID]
			calls := ki.Calls()
			im.part = &profile.Profile{Syscalls: calls, Functions: []profile.FunctionCount{}}
			for _, n := range calls {
				im.part.Totals.Syscalls += n
			}
			continue
		}
		im := r.images[ki.CPU]
		if im == nil || im.part != nil {
			continue
		}
		if !final && !r.k.CPUFree(ki.CPU) {
			waiting = append(waiting, ki) // a CLONE_VM child runs there still
			continue
		}
		im.read(r.opts)
		r.done.Add(im.part.Totals.Instructions + outside(im.part))
		if ki.CPU == r.k.Current().CPU() {
			// Where the run stopped, if it ends here: Run's deferred
			// cleanup closes it.
			continue
		}
		delete(r.images, ki.CPU)
		if r.running.Load() == im.cpu {
			r.running.Store(nil)
		}
		r.keepSpare(im)
	}
	r.ended = waiting
}

func outside(p *profile.Profile) uint64 {
	if p.Region == nil {
		return 0
	}
	return p.Region.OutsideInstructions
}

// read builds the image's part of the Profile from its CPU.
func (im *image) read(opts Options) {
	cpu := im.cpu
	part := &profile.Profile{Syscalls: im.kimg.Calls()}
	cpu.FlushSiteCuts()
	all := cpu.Blocks()
	counted, tree, offInsns, offExecs := im.parts.finish(all, cpu.CallTree())
	blocks := im.dec.ran(counted, im.mods.entry)
	fillCounts(part, blocks, im.mods, opts.HotBlocks)
	if tree != nil {
		part.CallTree, part.Functions = attribute(tree, im.mods)
	}
	// The cells count the whole run: a run with stretches left uncounted
	// (offExecs) keeps its blocks' contexts and call sites out.
	whole := offExecs == 0
	if whole {
		placeCells(blocks, cpu.Cells())
	}
	if ps := describe(part, blocks, im.mods, opts.Lines); ps != nil && tree != nil && whole {
		placeCalls(part.CallTree, tree, callSites(all, im.dec), ps, im.mods)
		part.Positions = ps.list
	}
	if len(opts.Collect) > 0 || offExecs > 0 {
		insns, execs := cpu.Outside()
		part.Region = &profile.Region{Functions: opts.Collect, OutsideInstructions: insns + offInsns, OutsideBlocks: execs + offExecs}
	}
	part.Parts = im.parts.parts
	part.Warnings = append(part.Warnings, im.parts.warnings...)
	for _, f := range im.dec.failed {
		part.Warnings = append(part.Warnings, "count may be inexact: "+f)
	}
	part.Warnings = append(part.Warnings, fidelityWarnings(blocks)...)
	if sse, x87 := cpu.UnmaskedLoads(); sse+x87 > 0 {
		part.Warnings = append(part.Warnings, fmt.Sprintf("the program unmasked floating-point exceptions (in MXCSR %d times, in the x87 control word %d times): the emulated CPU raises none of them (no SIGFPE), but at the x87 instructions icount runs itself", sse, x87))
	}
	if n := cpu.DAZLoads(); n > 0 {
		part.Warnings = append(part.Warnings, fmt.Sprintf("the program set MXCSR.DAZ (denormals are zero) %d times: the emulated CPU's minss, maxss, minsd, maxsd and their packed forms ignore it", n))
	}
	executed := part.Totals.Instructions + outside(part)
	for _, t := range im.kimg.Threads(executed) {
		part.Threads = append(part.Threads, profile.ThreadCount(t))
	}
	im.part = part
}

// entry is the image's entry of the Profile's process tree.
func (im *image) entry() profile.Process {
	ki, part := im.kimg, im.part
	e := profile.Process{PID: ki.PID, PPID: ki.PPID, Parent: ki.Parent, Exec: ki.Exec, Argv: nonNil(ki.Argv),
		Binary: profile.Binary{Path: ki.Exe.Path, Size: ki.Exe.Size, SHA256: ki.Exe.SHA256, BuildID: ki.Exe.BuildID, Base: ki.Exe.Base()},
		Totals: part.Totals, Syscalls: part.Syscalls, Threads: part.Threads, Functions: nonNilFunctions(part.Functions)}
	e.Exit = profile.ProcessExit{Status: ki.Exit.Status, Exec: ki.Exit.Exec, Running: ki.Exit.Running,
		Message: im.exitNote, Backtrace: im.trace, FramesMore: im.traceMore}
	if ki.Exit.Signal != 0 {
		e.Exit.Signal = kernel.SignalName(ki.Exit.Signal)
	}
	return e
}

func nonNilFunctions(f []profile.FunctionCount) []profile.FunctionCount {
	if f == nil {
		return []profile.FunctionCount{}
	}
	return f
}

// merge puts the parts of every image into prof: the process tree, the
// totals, and the run's functions, mix and system calls merged by module
// and name; call trees, hot blocks, lines, blocks and mappings side by
// side, each naming its entry.
func merge(prof *profile.Profile, images []*image, hot int) {
	if len(images) == 1 {
		part := images[0].part
		prof.Totals, prof.Syscalls, prof.Functions, prof.CallTree = part.Totals, part.Syscalls, part.Functions, part.CallTree
		prof.Mix, prof.HotBlocks, prof.Mappings, prof.Lines, prof.Blocks = part.Mix, part.HotBlocks, part.Mappings, part.Lines, part.Blocks
		prof.Positions = part.Positions
		prof.Region, prof.Threads, prof.Warnings = part.Region, part.Threads, part.Warnings
		prof.Processes = []profile.Process{images[0].entry()}
		prof.Parts = part.Parts
		return
	}
	prof.Syscalls = map[string]uint64{}
	type fkey struct{ module, name string }
	funcs := map[fkey]*profile.FunctionCount{}
	var order []fkey
	var mix profile.Mix
	seen := map[string]bool{}
	for i, im := range images {
		part := im.part
		prof.Processes = append(prof.Processes, im.entry())
		prof.Totals.Instructions += part.Totals.Instructions
		prof.Totals.Blocks += part.Totals.Blocks
		prof.Totals.DistinctBlocks += part.Totals.DistinctBlocks
		for name, n := range part.Syscalls {
			prof.Syscalls[name] += n
		}
		prof.Totals.Syscalls += part.Totals.Syscalls
		for _, f := range part.Functions {
			k := fkey{f.Module, f.Name}
			m := funcs[k]
			if m == nil {
				c := f
				if f.Mix != nil {
					mx := *f.Mix
					c.Mix = &mx
				}
				funcs[k] = &c
				order = append(order, k)
				continue
			}
			m.Self += f.Self
			m.Inclusive += f.Inclusive
			m.Calls += f.Calls
			m.Blocks += f.Blocks
			if f.Mix != nil {
				if m.Mix == nil {
					m.Mix = &profile.Mix{}
				}
				m.Mix.Add(*f.Mix)
			}
		}
		if part.Mix != nil {
			mix.Add(*part.Mix)
		}
		base, posBase := len(prof.CallTree), len(prof.Positions)
		prof.Positions = append(prof.Positions, part.Positions...)
		for _, n := range part.CallTree {
			if n.Parent >= 0 {
				n.Parent += base
			}
			if n.Call != nil && n.Call.Position >= 0 {
				c := *n.Call
				c.Position += posBase
				n.Call = &c
			}
			n.Process = i
			prof.CallTree = append(prof.CallTree, n)
		}
		for _, b := range part.HotBlocks {
			b.Process = i
			prof.HotBlocks = append(prof.HotBlocks, b)
		}
		for _, m := range part.Mappings {
			m.Process = i
			prof.Mappings = append(prof.Mappings, m)
		}
		for _, l := range part.Lines {
			l.Process = i
			prof.Lines = append(prof.Lines, l)
		}
		for _, b := range part.Blocks {
			b.Process = i
			for j := range b.Positions {
				b.Positions[j] += posBase
			}
			for j := range b.Contexts {
				b.Contexts[j].Node += base
			}
			prof.Blocks = append(prof.Blocks, b)
		}
		for _, pt := range part.Parts {
			pt.Process = i
			prof.Parts = append(prof.Parts, pt)
		}
		if part.Region != nil {
			if prof.Region == nil {
				prof.Region = &profile.Region{Functions: part.Region.Functions}
			}
			prof.Region.OutsideInstructions += part.Region.OutsideInstructions
			prof.Region.OutsideBlocks += part.Region.OutsideBlocks
		}
		prof.Threads = append(prof.Threads, part.Threads...)
		for _, w := range part.Warnings {
			w = fmt.Sprintf("pid %d (%s): %s", im.kimg.PID, filepath.Base(im.kimg.Exe.Path), w)
			if !seen[w] {
				seen[w] = true
				prof.Warnings = append(prof.Warnings, w)
			}
		}
	}
	prof.Mix = &mix
	prof.Functions = make([]profile.FunctionCount, 0, len(order))
	for _, k := range order {
		prof.Functions = append(prof.Functions, *funcs[k])
	}
	sortFunctions(prof.Functions)
	sort.SliceStable(prof.HotBlocks, func(i, j int) bool { return prof.HotBlocks[i].Instructions > prof.HotBlocks[j].Instructions })
	prof.HotBlocks = prof.HotBlocks[:min(len(prof.HotBlocks), hot)]
}
