package count

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"

	"github.com/icount-dev/icount/emu"
	"github.com/icount-dev/icount/fixedclock"
	"github.com/icount-dev/icount/kernel"
	"github.com/icount-dev/icount/loader"
	"github.com/icount-dev/icount/profile"
	"github.com/icount-dev/icount/symbolize"
)

// Options say what to run and how.
type Options struct {
	Path      string   // the executable
	Args      []string // the guest's arguments after argv[0]
	Argv0     string   // argv[0]; the executable's base name when empty
	Env       []string // the guest's whole environment
	Seed      uint64   // seeds AT_RANDOM and getrandom
	Version   string   // icount's version, for the metadata
	HotBlocks int      // how many of the hottest blocks to keep
	// Attribution keeps the calling-context tree: inclusive costs, call
	// counts and call stacks.
	Attribution bool
	// Collect names functions: with it only their dynamic extent is counted.
	Collect []string
	// MaxInstructions, if not 0, stops the guest after exactly this many
	// instructions; the Profile is then marked incomplete.
	MaxInstructions uint64
	// MaxMemory, if not 0, bounds the guest's mappings in bytes (as
	// RLIMIT_AS does): the guest sees ENOMEM, and the Profile a warning.
	MaxMemory uint64
	// Interrupt stops the guest at the next block when a reason arrives (a
	// timeout, a signal): the Profile is then marked incomplete with it.
	Interrupt <-chan *Interruption
	// Progress, if not nil, is called as the guest starts with a function
	// returning the instructions executed so far, which any goroutine may
	// call until Run returns.
	Progress func(executed func() uint64)
	// StreamWrite, if not nil, makes the guest's writes to host streams
	// (kernel.Options.StreamWrite).
	StreamWrite func(host int, b []byte, write func() (int, error)) (int, error)
	// Lines adds per-line costs and every block that ran to the Profile
	// (its Lines and Blocks), from the binary's DWARF line tables.
	Lines bool
	// Contexts, with Lines and a call tree, counts every block per context
	// (BlockRuns.Contexts) in a tree with a node per call site, each with
	// its call instruction (CallNode.Call): each context's cost
	// instruction by instruction, for the formats at full depth. It costs
	// a hash probe each time a block runs in another context than the
	// last time (Python: some 30 % more time).
	Contexts bool

	// Clock serves every read of the time (--fixed-clock); nil gives the
	// host's.
	Clock *fixedclock.Clock
	CPUs  int // the CPU count the guest is told (1 when 0)
	// Quantum is how many instructions a guest thread runs while others
	// wait to (kernel.DefaultQuantum when 0).
	Quantum uint64
	// Sysroot is where a dynamically linked executable's interpreter and
	// libraries are found (--sysroot); "" gives the default of its arch
	// (kernel.DefaultSysroot).
	Sysroot string
	// HostTmp gives the guest the host's /tmp and /var/tmp (--host-tmp);
	// without it the run has a directory of its own that the guest sees
	// as both, removed when the run ends.
	HostTmp bool
}

// StoppedError says that icount stopped the guest before it ended, and
// where: the Profile returned with it is marked incomplete.
type StoppedError struct {
	Err   error
	Where string // "function+0xoff in module", if known
}

func (e *StoppedError) Error() string {
	if e.Where == "" {
		return e.Err.Error()
	}
	return fmt.Sprintf("%v, in %s", e.Err, e.Where)
}

func (e *StoppedError) Unwrap() error { return e.Err }

// prefetcher returns a function that starts reading the symbols (and,
// with lines, the DWARF) of the object at a path on a goroutine of its
// own, once per path: the emulator starts and runs meanwhile, and the
// first lookup in the object waits only for what is left to read. It is
// called from the goroutine that runs the guest.
func prefetcher(objects *symbolize.Cache) func(path string) {
	seen := map[string]bool{}
	return func(path string) {
		if !seen[path] {
			seen[path] = true
			go objects.Open(path).Prefetch()
		}
	}
}

// Run runs the executable, and every process it makes, to the first
// process's end and returns the run's Profile. A guest killed by a fault
// still gives a complete Profile whose Exit names the signal. An error
// with a Profile means icount stopped the guest early; an error without
// one means the guest never started.
func Run(opts Options) (*profile.Profile, error) {
	// The emulator makes itself while the program is read and set up.
	var engine *emu.Engine
	if arch, ok := loader.ArchOf(opts.Path); ok {
		engine = emu.Prepare(arch)
	}
	exe, err := loader.Open(opts.Path)
	if err != nil {
		engine.Close()
		return nil, err
	}
	r := &runner{opts: opts, engine: engine}
	defer func() {
		r.engine.Close()
		for _, im := range r.images {
			im.cpu.Close()
		}
		r.closeSpares()
	}()
	// The run keeps one thread: the emulator is entered from it and calls
	// back into Go on it, with no handoff to another thread between.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	sysroot := opts.Sysroot
	if sysroot == "" {
		sysroot = kernel.DefaultSysroot(exe.Arch)
	}
	objects := symbolize.NewCache(symbolize.SystemDebugDirs(sysroot), opts.Lines)
	prefetch := prefetcher(objects)
	for _, name := range opts.Collect {
		if _, ok := objects.Open(exe.Path).At(exe.Base()).Entry(name); !ok {
			return nil, fmt.Errorf("--collect %s: %s has no function of that name", name, exe.Path)
		}
	}
	r.objects = objects

	argv0 := opts.Argv0
	if argv0 == "" {
		argv0 = filepath.Base(opts.Path)
	}
	argv := append([]string{argv0}, opts.Args...)
	cpus := max(opts.CPUs, 1)
	var tmp string
	if !opts.HostTmp {
		if tmp, err = kernel.NewPrivateTmp(); err != nil {
			return nil, err
		}
		defer kernel.RemovePrivateTmp(tmp) // best effort: a leftover meets no other run
	}
	k, err := kernel.New(r, exe, kernel.Options{Argv: argv, Env: opts.Env, Seed: opts.Seed,
		Clock: opts.Clock, CPUs: cpus, MaxMemory: opts.MaxMemory, Sysroot: sysroot, Quantum: opts.Quantum, Tmp: tmp,
		StreamWrite: opts.StreamWrite, ExecMapped: prefetch})
	if err != nil {
		return nil, err
	}
	r.k = k
	r.link()
	first := r.order[0]
	defer watch(opts.Interrupt, r.running.Load)() // before the CPUs close
	if opts.Progress != nil {
		opts.Progress(r.executed)
	}
	runErr := r.loop()
	// The CPU that stopped, for where the run ended.
	last := first
	if im := r.images[k.Current().CPU()]; im != nil {
		last = im
	}
	lastCPU, where := last.cpu, last.mods.where
	stack := lastCPU.Stack()
	pc := lastCPU.PC()
	failPC := pc
	if f := k.Failure(); f != nil {
		failPC = pcOfFailure(f, pc)
	}
	var fault *emu.Fault
	var faultMsg string
	var faultSig signal
	if errors.As(runErr, &fault) {
		faultSig, faultMsg = describeFault(exe.Arch, fault, lastCPU.Read)
	}
	for _, im := range r.order {
		if !im.kimg.Ended() {
			im.kimg.Exit.Running = true
		}
	}
	r.retire(k.Images(), true)

	prof := &profile.Profile{
		Schema: profile.Schema,
		Meta: profile.Meta{
			Settings: profile.Settings{
				IcountVersion:  opts.Version,
				UnicornVersion: emu.Version(),
				Arch:           exe.Arch.String(),
				CPUModel:       first.cpu.Model(),
				Args:           argv,
				Env:            nonNil(opts.Env),
				Seed:           opts.Seed,
				Clock:          clockSettings(opts.Clock, k.ClockInfo()),
				CPUs:           cpus,
				Quantum:        k.Quantum(),
				Sysroot:        sysroot,
				HostTmp:        opts.HostTmp,
			},
			Inputs: k.Inputs(),
			Record: profile.Record{
				Binary:      profile.Binary{Path: opts.Path, Size: exe.Size, SHA256: exe.SHA256, BuildID: exe.BuildID, Base: exe.Base()},
				Interpreter: interpMeta(first.kimg),
				Tmp:         tmp,
				ClockUse:    clockUse(k.ClockInfo()),
				CountOnly:   !opts.Attribution,
			},
		},
	}
	merge(prof, r.order, opts.HotBlocks)
	prof.Warnings = append(prof.Warnings, clockWarnings(prof.Meta)...)
	if n := k.MemoryRefused(); n > 0 {
		prof.Warnings = append(prof.Warnings, fmt.Sprintf("--max-memory %s refused the program memory %d times (it saw ENOMEM)", sizeString(opts.MaxMemory), n))
	}
	when := "when the first process ended"
	if exited, _ := k.Exited(); !exited {
		when = "when the run stopped"
	}
	for _, e := range prof.Processes {
		if e.Exit.Running {
			prof.Warnings = append(prof.Warnings, fmt.Sprintf("pid %d (%s) still ran %s: icount stopped it there", e.PID, filepath.Base(e.Binary.Path), when))
		}
	}
	threaded := len(prof.Threads) > 0

	var intr *Interruption
	var deadlock *kernel.DeadlockError
	var panicked *emu.PanicError
	switch exited, status := k.Exited(); {
	case errors.As(runErr, &panicked):
		prof.Exit = profile.Exit{Status: -1, Message: panicked.Error(), Reason: profile.StopInternal}
		prof.Exit.Backtrace, prof.Exit.FramesMore = backtrace(stack, pc, where)
		return prof, &StoppedError{Err: runErr, Where: where(pc).String()}
	case k.Failure() != nil:
		prof.Exit = profile.Exit{Status: -1, Message: k.Failure().Error(), Reason: failureReason(k.Failure())}
		prof.Exit.Backtrace, prof.Exit.FramesMore = backtrace(stack, failPC, where)
		return prof, &StoppedError{Err: k.Failure(), Where: where(failPC).String()}
	case errors.Is(runErr, emu.ErrInstructionLimit):
		err := fmt.Errorf("%w: stopped after exactly %d instructions (--max-instructions)", runErr, opts.MaxInstructions)
		prof.Exit = profile.Exit{Status: -1, Message: err.Error(), Reason: profile.StopInstructionLimit}
		prof.Exit.Backtrace, prof.Exit.FramesMore = backtrace(stack, pc, where)
		return prof, &StoppedError{Err: err, Where: where(pc).String()}
	case errors.As(runErr, &intr):
		prof.Exit = profile.Exit{Status: -1, Message: intr.Msg, Reason: intr.Reason}
		prof.Exit.Backtrace, prof.Exit.FramesMore = backtrace(stack, pc, where)
		return prof, &StoppedError{Err: runErr, Where: where(pc).String()}
	case fault != nil:
		prof.Exit = profile.Exit{Status: 128 + faultSig.num, Signal: faultSig.name, Complete: true,
			Message: fmt.Sprintf("%s: %s, in %s", faultSig.name, faultMsg, where(fault.PC))}
		prof.Exit.Backtrace, prof.Exit.FramesMore = backtrace(stack, fault.PC, where)
		if fault.Kind == emu.FaultFetch && fault.PC == fault.Addr {
			// Not code: no function holds the address jumped (or run) to.
			prof.Exit.Message = fmt.Sprintf("%s: %s", faultSig.name, faultMsg)
			prof.Exit.Backtrace, prof.Exit.FramesMore = backtrace(stack, 0, where)
		}
		if threaded {
			prof.Exit.Message += fmt.Sprintf(", thread %d", k.CurrentTID())
		}
		return prof, nil
	case errors.As(runErr, &deadlock):
		msg := deadlockMessage(deadlock, r.whereIn)
		prof.Exit = profile.Exit{Status: -1, Message: msg, Reason: profile.StopDeadlock}
		return prof, &StoppedError{Err: &describedError{msg: msg, err: deadlock}}
	case runErr != nil:
		prof.Exit = profile.Exit{Status: -1, Message: runErr.Error(), Reason: profile.StopError}
		return prof, &StoppedError{Err: runErr, Where: where(pc).String()}
	case exited:
		prof.Exit = profile.Exit{Status: status, Complete: true}
		if e, killed := killedExit(k, status); killed {
			prof.Exit = e
		}
		return prof, nil
	default:
		err := fmt.Errorf("the emulator stopped at pc %#x with no reason given", pc)
		prof.Exit = profile.Exit{Status: -1, Message: err.Error()}
		return prof, &StoppedError{Err: err, Where: where(pc).String()}
	}
}

// whereIn names an address in the process pid's program.
func (r *runner) whereIn(pid int, addr uint64) profile.Location {
	for i := len(r.order) - 1; i >= 0; i-- {
		if im := r.order[i]; im.kimg.PID == pid {
			if im.owner != nil {
				im = im.owner
			}
			return im.mods.where(addr)
		}
	}
	return profile.Location{Addr: addr}
}

// loop runs the tasks of every process until the first process ends or a
// run ends for another reason than the scheduler's. A Go panic in icount
// (in the emulator's hooks, or here between runs) ends it with an
// *emu.PanicError, so that the counts so far can still be reported.
func (r *runner) loop() (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = emu.NewPanicError(p)
		}
	}()
	k := r.k
	for {
		t := k.Current()
		im := r.images[t.CPU()]
		cpu := im.cpu
		im.parts.resumed(k.CurrentTID())
		r.running.Store(cpu)
		err := cpu.Run(cpu.PC(), im.loc.locate)
		k.Account(cpu.Ran())
		sliceEnd := errors.Is(err, emu.ErrSliceEnd)
		var fault *emu.Fault
		if errors.As(err, &fault) && k.Failure() == nil {
			// The guest's handler takes the fault, if it has one.
			fs := faultSignal(cpu.Arch(), fault, cpu)
			handled, herr := k.DeliverFault(fs)
			if herr != nil {
				return herr
			}
			if handled {
				continue
			}
			if !k.IsFirst(t) {
				// A child dies of it; its parent sees the signal.
				sig, msg := describeFault(cpu.Arch(), fault, cpu.Read)
				im.exitNote = fmt.Sprintf("%s: %s, in %s", sig.name, msg, im.mods.where(fault.PC))
				im.trace, im.traceMore = backtrace(cpu.Stack(), fault.PC, im.mods.where)
				k.KillCurrent(fs.Signo)
				err, sliceEnd = nil, false
			}
		}
		if k.Done() {
			return err
		}
		if !sliceEnd && (err != nil || !k.Switching()) {
			return err
		}
		if err := k.Schedule(sliceEnd); err != nil {
			return err
		}
		r.link()
		r.retire(k.Retired(), false)
		if k.Done() {
			return nil // a signal without a handler ended the first process
		}
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func pcOfFailure(err error, pc uint64) uint64 {
	var u *kernel.UnsupportedError
	if errors.As(err, &u) {
		return u.PC
	}
	return pc
}

// fillCounts reads the block table back from C into the Profile.
func fillCounts(prof *profile.Profile, blocks []ranBlock, mods *modules, hot int) {
	for _, b := range blocks {
		prof.Totals.Instructions += b.Executions*uint64(b.Instructions) - b.Cut
		prof.Totals.Blocks += b.Executions
	}
	prof.Totals.DistinctBlocks = uint64(len(blocks))
	prof.Functions = functionCounts(blocks, mods)
	for _, n := range prof.Syscalls {
		prof.Totals.Syscalls += n
	}
	prof.HotBlocks = hottest(blocks, mods, hot)
}

// hottest returns the hot blocks that ran the most instructions, most
// first (ties by address and size), each named by its function.
func hottest(blocks []ranBlock, mods *modules, hot int) []profile.BlockCount {
	byCost := func(a, b *ranBlock) int {
		return cmp.Or(cmp.Compare(b.Executions*uint64(b.Instructions)-b.Cut, a.Executions*uint64(a.Instructions)-a.Cut),
			cmp.Compare(a.Addr, b.Addr), cmp.Compare(a.Size, b.Size))
	}
	// The hot-most so far, kept sorted: most blocks fall below its last.
	top := make([]*ranBlock, 0, min(hot, len(blocks))+1)
	for i := range blocks {
		b := &blocks[i]
		if len(top) == hot && (hot == 0 || byCost(b, top[hot-1]) >= 0) {
			continue
		}
		at, _ := slices.BinarySearchFunc(top, b, byCost)
		top = slices.Insert(top, at, b)
		if len(top) > hot {
			top = top[:hot]
		}
	}
	out := make([]profile.BlockCount, len(top))
	for i, b := range top {
		out[i] = profile.BlockCount{Addr: b.Addr, Size: b.Size, Executions: b.Executions,
			Instructions: b.Executions*uint64(b.Instructions) - b.Cut, Function: mods.nameOf(b.fn).name}
	}
	return out
}

// functionCounts sums the blocks by the function their first instruction
// lies in, most instructions first: self costs without the call tree.
func functionCounts(blocks []ranBlock, mods *modules) []profile.FunctionCount {
	self := map[uint64]uint64{}
	for _, b := range blocks {
		self[b.fn] += b.Executions*uint64(b.Instructions) - b.Cut
	}
	out := make([]profile.FunctionCount, 0, len(self))
	for entry, n := range self {
		q := mods.nameOf(entry)
		out = append(out, profile.FunctionCount{Name: q.name, Module: q.module, Addr: entry, Size: mods.sizeOf(entry), Self: n})
	}
	sortFunctions(out)
	return out
}

// interpMeta identifies the interpreter of a dynamically linked
// executable, nil for a static one.
func interpMeta(im *kernel.Image) *profile.Binary {
	interp := im.Interp
	if interp == nil {
		return nil
	}
	return &profile.Binary{Path: interp.Path, Size: interp.Size, SHA256: interp.SHA256, BuildID: interp.BuildID, Base: im.InterpBase}
}
