package count

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sort"

	"github.com/icount-dev/icount/emu"
	"github.com/icount-dev/icount/fixedclock"
	"github.com/icount-dev/icount/kernel"
	"github.com/icount-dev/icount/loader"
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
	// Lines adds per-line costs and every block that ran to the Profile
	// (its Lines and Blocks), from the binary's DWARF line tables.
	Lines bool

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

// Run runs the executable to its end and returns its Profile. A guest
// killed by a fault still gives a complete Profile whose Exit names the
// signal. An error with a Profile means icount stopped the guest early; an
// error without one means the guest never started.
func Run(opts Options) (*Profile, error) {
	exe, err := loader.Open(opts.Path)
	if err != nil {
		return nil, err
	}
	// Unicorn's state belongs to the thread that created it.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	mods := newModules(exe.Path, exe.Base())
	var collect []uint64
	for _, name := range opts.Collect {
		entry, ok := mods.main.symbols().byName(name)
		if !ok {
			return nil, fmt.Errorf("--collect %s: %s has no function of that name", name, exe.Path)
		}
		collect = append(collect, entry)
	}

	var proc *kernel.Process
	var dec *decoder
	var late *lateCounters
	cpu, err := emu.New(exe.Arch, emu.Hooks{
		NewBlock: func(id uint32, addr uint64, size uint32) emu.BlockInfo {
			info := dec.newBlock(id, addr, size)
			late.check(addr, size)
			return info
		},
		Syscall:     func() { proc.Syscall() },
		Interrupt:   func(intno uint32) bool { return proc.Interrupt(intno) },
		WholeBefore: func(pc, limit uint64) uint64 { return dec.wholeBefore(pc, limit) },
		Forgotten:   func(blocks []emu.Block) { dec.forget(blocks) },
		InsnEnd:     func(pc uint64) uint64 { return dec.insnEnd(pc) },
	}, emu.Options{Attribution: opts.Attribution || len(collect) > 0, Collect: collect, MaxInstructions: opts.MaxInstructions})
	if err != nil {
		return nil, fmt.Errorf("starting the emulator: %w", err)
	}
	defer cpu.Close()
	dec = newDecoder(exe.Arch, cpu.Read, mods.entry)
	dec.mapOf = mods.mapping
	dec.cpu = cpu
	cpu.SetSiteCuts(dec.siteCuts)
	late = &lateCounters{cpu: cpu, dec: dec}

	argv0 := opts.Argv0
	if argv0 == "" {
		argv0 = filepath.Base(opts.Path)
	}
	argv := append([]string{argv0}, opts.Args...)
	cpus := max(opts.CPUs, 1)
	sysroot := opts.Sysroot
	if sysroot == "" {
		sysroot = kernel.DefaultSysroot(exe.Arch)
	}
	proc, err = kernel.New(cpu, exe, kernel.Options{Argv: argv, Env: opts.Env, Seed: opts.Seed,
		Clock: opts.Clock, CPUs: cpus, MaxMemory: opts.MaxMemory, Sysroot: sysroot, Quantum: opts.Quantum})
	if err != nil {
		return nil, err
	}
	mods.maps = proc
	cpu.SetCounter(proc.ReadCounter, dec.notRun)
	where := mods.where

	loc := &locator{dec: dec, cpu: cpu}
	defer watch(opts.Interrupt, cpu)() // before cpu.Close
	if opts.Progress != nil {
		opts.Progress(cpu.Executed)
	}
	runErr := runThreads(cpu, proc, loc.locate)

	prof := &Profile{
		Schema: Schema,
		Meta: Meta{
			IcountVersion:  opts.Version,
			UnicornVersion: emu.Version(),
			Arch:           exe.Arch.String(),
			CPUModel:       cpu.Model(),
			Binary:         Binary{Path: opts.Path, Size: exe.Size, SHA256: exe.SHA256, BuildID: exe.BuildID, Base: exe.Base()},
			Interpreter:    interpMeta(proc),
			Sysroot:        sysroot,
			Args:           argv,
			Env:            nonNil(opts.Env),
			Seed:           opts.Seed,
			Clock:          clockMeta(opts.Clock, proc.ClockInfo()),
			CPUs:           cpus,
			Quantum:        proc.Quantum(),
			FilesOpened:    proc.FilesOpened(),
		},
		Syscalls: proc.SyscallCounts(),
	}
	cpu.FlushSiteCuts()
	table := cpu.Blocks()
	blocks := dec.ran(table, mods.entry)
	fillCounts(prof, blocks, mods, opts.HotBlocks)
	if tree := cpu.CallTree(); tree != nil {
		prof.CallTree, prof.Functions = attribute(tree, mods)
	}
	describe(prof, exe.Arch, blocks, mods, opts.Lines)
	if len(opts.Collect) > 0 {
		insns, execs := cpu.Outside()
		prof.Region = &Region{Functions: opts.Collect, OutsideInstructions: insns, OutsideBlocks: execs}
	}
	executed := prof.Totals.Instructions // by every thread, inside a region collected or not
	if prof.Region != nil {
		executed += prof.Region.OutsideInstructions
	}
	for _, t := range proc.ThreadCounts(executed) {
		prof.Threads = append(prof.Threads, ThreadCount(t))
	}
	for _, f := range dec.failed {
		prof.Warnings = append(prof.Warnings, "count may be inexact: "+f)
	}
	prof.Warnings = append(prof.Warnings, fidelityWarnings(blocks)...)
	if sse, x87 := cpu.UnmaskedLoads(); sse+x87 > 0 {
		prof.Warnings = append(prof.Warnings, fmt.Sprintf("the program unmasked floating-point exceptions (in MXCSR %d times, in the x87 control word %d times): the emulated CPU raises none of them (no SIGFPE), but at the x87 instructions icount runs itself", sse, x87))
	}
	if n := cpu.DAZLoads(); n > 0 {
		prof.Warnings = append(prof.Warnings, fmt.Sprintf("the program set MXCSR.DAZ (denormals are zero) %d times: the emulated CPU's minss, maxss, minsd, maxsd and their packed forms ignore it", n))
	}
	prof.Warnings = append(prof.Warnings, clockWarnings(prof.Meta.Clock, late.warnings)...)
	if n := proc.MemoryRefused(); n > 0 {
		prof.Warnings = append(prof.Warnings, fmt.Sprintf("--max-memory %s refused the program memory %d times (it saw ENOMEM)", sizeString(opts.MaxMemory), n))
	}

	var fault *emu.Fault
	var intr *Interruption
	var deadlock *kernel.DeadlockError
	switch exited, status := proc.Exited(); {
	case proc.Failure() != nil:
		prof.Exit = Exit{Status: -1, Message: proc.Failure().Error(), Reason: failureReason(proc.Failure()),
			Backtrace: backtrace(cpu.Stack(), pcOfFailure(proc.Failure(), cpu), where)}
		return prof, &StoppedError{Err: proc.Failure(), Where: where(pcOfFailure(proc.Failure(), cpu))}
	case errors.Is(runErr, emu.ErrInstructionLimit):
		err := fmt.Errorf("%w: stopped after exactly %d instructions (--max-instructions)", runErr, opts.MaxInstructions)
		prof.Exit = Exit{Status: -1, Message: err.Error(), Reason: ReasonInstructionLimit,
			Backtrace: backtrace(cpu.Stack(), cpu.PC(), where)}
		return prof, &StoppedError{Err: err, Where: where(cpu.PC())}
	case errors.As(runErr, &intr):
		prof.Exit = Exit{Status: -1, Message: intr.Msg, Reason: intr.Reason,
			Backtrace: backtrace(cpu.Stack(), cpu.PC(), where)}
		return prof, &StoppedError{Err: runErr, Where: where(cpu.PC())}
	case errors.As(runErr, &fault):
		sig, msg := describeFault(exe.Arch, fault, cpu.Read)
		prof.Exit = Exit{Status: 128 + sig.num, Signal: sig.name, Complete: true,
			Message:   fmt.Sprintf("%s: %s, in %s", sig.name, msg, where(fault.PC)),
			Backtrace: backtrace(cpu.Stack(), fault.PC, where)}
		if fault.Kind == emu.FaultFetch && fault.PC == fault.Addr {
			// Not code: no function holds the address jumped (or run) to.
			prof.Exit.Message = fmt.Sprintf("%s: %s", sig.name, msg)
			prof.Exit.Backtrace = backtrace(cpu.Stack(), 0, where)
		}
		if prof.Threads != nil {
			prof.Exit.Message += fmt.Sprintf(", thread %d", proc.CurrentTID())
		}
		return prof, nil
	case errors.As(runErr, &deadlock):
		msg := deadlockMessage(deadlock, where)
		prof.Exit = Exit{Status: -1, Message: msg, Reason: ReasonDeadlock}
		return prof, &StoppedError{Err: &describedError{msg: msg, err: deadlock}}
	case runErr != nil:
		prof.Exit = Exit{Status: -1, Message: runErr.Error(), Reason: ReasonError}
		return prof, &StoppedError{Err: runErr, Where: where(cpu.PC())}
	case exited:
		prof.Exit = Exit{Status: status, Complete: true}
		if e, killed := killedExit(proc, status); killed {
			prof.Exit = e
		}
		return prof, nil
	default:
		err := fmt.Errorf("the emulator stopped at pc %#x with no reason given", cpu.PC())
		prof.Exit = Exit{Status: -1, Message: err.Error()}
		return prof, &StoppedError{Err: err, Where: where(cpu.PC())}
	}
}

// runThreads runs the guest's threads until the process ends or a run
// ends for another reason than the scheduler's.
func runThreads(cpu *emu.CPU, proc *kernel.Process, locate emu.Locator) error {
	pc := proc.Entry()
	for {
		err := cpu.Run(pc, locate)
		proc.Account(cpu.Ran())
		sliceEnd := errors.Is(err, emu.ErrSliceEnd)
		var fault *emu.Fault
		if errors.As(err, &fault) && proc.Failure() == nil {
			// The guest's handler takes the fault, if it has one.
			handled, herr := proc.DeliverFault(faultSignal(cpu.Arch(), fault, cpu))
			if herr != nil {
				return herr
			}
			if handled {
				pc = cpu.PC()
				continue
			}
		}
		if exited, _ := proc.Exited(); exited || proc.Failure() != nil || !sliceEnd && (err != nil || !proc.Switching()) {
			return err
		}
		if pc, err = proc.Schedule(sliceEnd); err != nil {
			return err
		}
		if exited, _ := proc.Exited(); exited {
			return nil // a signal without a handler ended the process
		}
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func pcOfFailure(err error, cpu *emu.CPU) uint64 {
	var u *kernel.UnsupportedError
	if errors.As(err, &u) {
		return u.PC
	}
	return cpu.PC()
}

// fillCounts reads the block table back from C into the Profile.
func fillCounts(prof *Profile, blocks []ranBlock, mods *modules, hot int) {
	counts := make([]BlockCount, 0, len(blocks))
	for _, b := range blocks {
		bc := BlockCount{Addr: b.Addr, Size: b.Size, Executions: b.Executions,
			Instructions: b.Executions*uint64(b.Instructions) - b.Cut}
		prof.Totals.Instructions += bc.Instructions
		prof.Totals.Blocks += b.Executions
		counts = append(counts, bc)
	}
	prof.Totals.DistinctBlocks = uint64(len(counts))
	prof.Functions = functionCounts(blocks, mods)
	for _, n := range prof.Syscalls {
		prof.Totals.Syscalls += n
	}
	sort.SliceStable(counts, func(i, j int) bool {
		if counts[i].Instructions != counts[j].Instructions {
			return counts[i].Instructions > counts[j].Instructions
		}
		return counts[i].Addr < counts[j].Addr
	})
	counts = counts[:min(len(counts), hot)]
	fn := map[uint64]uint64{}
	for _, b := range blocks {
		fn[b.Addr] = b.fn
	}
	for i := range counts {
		if e, ok := fn[counts[i].Addr]; ok {
			counts[i].Function = mods.nameOf(e).name
		}
	}
	prof.HotBlocks = counts
}

// functionCounts sums the blocks by the function their first instruction
// lies in, most instructions first: self costs without the call tree.
func functionCounts(blocks []ranBlock, mods *modules) []FunctionCount {
	self := map[uint64]uint64{}
	for _, b := range blocks {
		self[b.fn] += b.Executions*uint64(b.Instructions) - b.Cut
	}
	out := make([]FunctionCount, 0, len(self))
	for entry, n := range self {
		q := mods.nameOf(entry)
		out = append(out, FunctionCount{Name: q.name, Module: q.module, Addr: entry, Self: n})
	}
	sortFunctions(out)
	return out
}

// interpMeta identifies the interpreter of a dynamically linked
// executable, nil for a static one.
func interpMeta(proc *kernel.Process) *Binary {
	interp, base := proc.Interp()
	if interp == nil {
		return nil
	}
	return &Binary{Path: interp.Path, Size: interp.Size, SHA256: interp.SHA256, BuildID: interp.BuildID, Base: base}
}
