package kernel

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"

	"github.com/icount-dev/icount/emu"
	"github.com/icount-dev/icount/loader"
)

// CPU is what the kernel needs of the emulated CPU.
type CPU interface {
	Arch() emu.Arch
	Map(addr, size uint64, prot emu.Prot) error
	Unmap(addr, size uint64) error
	Protect(addr, size uint64, prot emu.Prot) error
	Read(addr uint64, b []byte) error
	Write(addr uint64, b []byte) error
	ReadAsGuest(addr uint64, b []byte) error
	WriteAsGuest(addr uint64, b []byte) error
	Accessible(addr, n uint64, need emu.Prot) uint64
	Zero(addr, size uint64) error
	MapFile(addr, size uint64, fd int, off uint64) (bool, error)
	PastEOF(addr, size uint64) error
	Reg(r emu.Reg) uint64
	Regs(regs []emu.Reg, vals []uint64) // at most emu.MaxRegs at once
	SetReg(r emu.Reg, v uint64) error
	RegBytes(r emu.Reg, n int) []byte
	SetRegBytes(r emu.Reg, b []byte) error
	PC() uint64
	InvalidateCode(addr, size uint64) error
	Stop()

	// Threads (emu/thread.go).
	NewContext() (*emu.Context, error)
	SetContextReg(ctx *emu.Context, r emu.Reg, v uint64) error
	ContextReg(ctx *emu.Context, r emu.Reg) uint64
	Switch(from, to *emu.Context) error
	FreeContext(ctx *emu.Context)
	Stack() []emu.Frame // the running thread's calls, innermost first (nil without attribution)
	ContextStack(ctx *emu.Context) []emu.Frame
	SignalEntered(pc, ret uint64) // the running thread runs a signal's handler, interrupted at pc, returning to ret
	SignalReturned()              // its innermost handler returned
	SetSlice(n uint64) error
	Interrupted() error // why the run must stop (a timeout, a signal to icount), if it must
}

// Process is one guest process, a thread group: its address space and
// mappings (shared with a CLONE_VM child until it execs), descriptor
// table, signal dispositions, identity, parent and children, and exit
// status. Its tasks are its threads.
type Process struct {
	k *Kernel

	pid, pgid, sid int
	parent         *Process   // nil for the first process, and once the parent is gone
	children       []*Process // not yet reaped, in creation order

	// The address space: the CPU, the mappings and what they hold, and
	// the program image they were made for. A CLONE_VM child (vfork,
	// posix_spawn) shares its parent's until it execs.
	cpu  CPU
	abi  *abi
	mm   *addressSpace
	prov *provenance
	img  *Image
	// exe is the program it runs, interp its interpreter (nil for a
	// static one); argv and env what it was started with.
	exe, interp *loader.Executable
	argv, env   []string

	fds   *fdTable
	cwd   *workdir // nil: icount's own working directory
	umask uint32
	// persona is its personality(2) (sys_sched.go).
	persona uint32
	// rlimits are the resource limits setrlimit or prlimit64 gave it, by
	// resource (nil: icount's fixed ones, rlimit); a fork's child shares
	// the array until one of them sets a limit, an exec keeps it.
	rlimits *[rlimNlimits][2]uint64
	// expedited: it registered for membarrier's private expedited
	// barriers (sys_thread.go), as its memory does: a fork's child keeps
	// it, an exec drops it.
	expedited bool
	rng       *rand.ChaCha8

	sigactions map[uint64][]byte // rt_sigaction records, by signal
	// Signals sent to the process while every thread blocked them, and
	// their siginfo: the first thread to unblock one takes it.
	sharedPending uint64
	sharedInfo    [nsig]sigInfo
	exitSignal    int // what its parent is sent at its exit (SIGCHLD, clone's low byte)
	deathSignal   int // prctl PR_SET_PDEATHSIG: sent to it when its parent exits

	tasks []*Task // its threads alive, in creation order; the first is the process's own
	alarm itimer  // ITIMER_REAL (sys_timer.go)
	// timers are its POSIX timers, in creation order; nextTimerID is the
	// id timer_create tries first (sys_posixtimer.go).
	timers      []*posixTimer
	nextTimerID int32

	exited     bool // it exited or was killed: a zombie until its parent waits
	exitStatus int  // the status its exit gave (0-255), or 128+signal
	killedBy   int  // the signal that killed it, 0 if it exited
}

// Image is one program one process ran, from its start (the first
// process's, a fork, an exec) to its exit or the exec that replaced it:
// an entry of the Profile's process tree.
type Image struct {
	ID     int // its index in Kernel.Images
	PID    int
	PPID   int // 0 for the first process
	Parent int // the image it was forked from, or that it replaced (Exec); -1 for the first
	Exec   bool
	Argv   []string
	Exe    *loader.Executable
	// Interp is the executable's interpreter and where it was loaded; nil
	// for a static executable (and for a fork's image, which shares its
	// parent's: see Parent).
	Interp     *loader.Executable
	InterpBase uint64
	CPU        CPU
	Exit       ImageExit

	// Shared says that it ran in another image's address space (a
	// CLONE_VM child until it exec'd or exited): its instructions are
	// that image's.
	Shared bool
	ended  bool // its program ended: an exit, a death, an exec
	prov   *provenance
	calls  *callCounts // the system calls it made
	tasks  []*Task     // the threads that ran in it, in creation order
	insns  []uint64
}

// ImageExit is how one program of the run ended.
type ImageExit struct {
	Status  int  // exit status, or 128+signal
	Signal  int  // the signal that killed it, 0 if none
	Exec    bool // it was replaced by exec
	Running bool // it still ran when the run ended
}

// Calls returns the system calls the image made, by name.
func (im *Image) Calls() map[string]uint64 { return im.calls.byName() }

// Ended reports whether the image's program ended (an exit, a death by a
// signal, an exec); else it still ran.
func (im *Image) Ended() bool { return im.ended }

// ExecMappings lists every range made executable in the image, in order.
func (im *Image) ExecMappings() []ExecMapping { return im.prov.log }

// ExecMappingAt returns the index in ExecMappings of the executable mapping
// that holds addr now; ok is false when addr is not executable memory
// icount knows the origin of.
func (im *Image) ExecMappingAt(addr uint64) (int, bool) {
	r, ok := im.prov.at(addr)
	if !ok || !r.exec {
		return 0, false
	}
	return r.log, true
}

// Threads returns the instructions each thread ran in the image, in
// creation order, given its total: the first thread's share is what the
// others did not run (it alone ran before there were slices). Nil for a
// program that never had a second thread.
func (im *Image) Threads(total uint64) []ThreadCount {
	if len(im.tasks) < 2 {
		return nil
	}
	out := make([]ThreadCount, len(im.tasks))
	others := uint64(0)
	for i, t := range im.tasks {
		out[i] = ThreadCount{TID: t.tid, Name: t.name, Instructions: im.insns[i]}
		if i > 0 {
			others += im.insns[i]
		}
	}
	out[0].Instructions = total - min(others, total)
	return out
}

// account adds ran instructions to t's share of its image, if it has one
// (a CLONE_VM child's are its parent's image's).
func (im *Image) account(t *Task, ran uint64) {
	if t.slot > 0 && t.slot <= len(im.tasks) && im.tasks[t.slot-1] == t {
		im.insns[t.slot-1] += ran
	}
}

// addTask records that t runs in the image.
func (im *Image) addTask(t *Task) {
	im.tasks = append(im.tasks, t)
	im.insns = append(im.insns, 0)
	t.slot = len(im.tasks)
}

// execImage gives p (whose task t is running or to run) a new address space
// on a new CPU holding exe, with its interpreter interp for a dynamic one
// (nil for a static one), and the
// initial stack for argv and env, as execve does; t then starts at the
// entry. parent is the image it replaces (-1 for the first process's).
func (p *Process) execImage(t *Task, exe, interp *loader.Executable, argv, env []string, parent int) error {
	k := p.k
	a, ok := abis[exe.Arch]
	if !ok {
		return fmt.Errorf("no system call table for %v", exe.Arch)
	}
	// The thread's name (prctl PR_GET_NAME, /proc/PID/comm) becomes the
	// program's, as Linux names it at exec: its file's base name, cut to
	// 15 bytes.
	name := filepath.Base(exe.Path)
	t.name = name[:min(len(name), 15)]
	if err := k.fitsMemory(exe, interp); err != nil {
		return err
	}
	cpu, err := k.host.NewCPU(exe.Arch, exe, nil)
	if err != nil {
		return err
	}
	mm := newAddressSpace(cpu)
	prov := &provenance{onExec: k.opts.ExecMapped}
	img, err := exe.Load(programMemory{mm, k})
	if err != nil {
		return err
	}
	entry := img.Entry
	loaded(prov, exe, img.Base)
	var interpBase uint64
	var spec loader.StackSpec
	if interp != nil {
		iimg, err := interp.LoadAt(programMemory{mm, k}, interp.InterpBase())
		if err != nil {
			return err
		}
		entry, interpBase = iimg.Entry, iimg.Base
		loaded(prov, interp, iimg.Base)
		spec.InterpBase = iimg.Base
	}
	// Loaded: their mappings hold the files.
	exe.CloseFile()
	if interp != nil {
		interp.CloseFile()
	}
	mm.setBrk(img.End)
	// Every exec starts from the run's seed: a program's AT_RANDOM and
	// getrandom are what they are when it runs alone.
	var seed [32]byte
	for i := 0; i < 8; i++ {
		seed[i] = byte(k.opts.Seed >> (8 * i))
	}
	rng := rand.NewChaCha8(seed)
	spec.Argv, spec.Env, spec.UID, spec.GID = argv, env, UID, GID
	spec.Hwcap, spec.Platform, spec.ExecStack = a.hwcap, a.platform, exe.ExecStack
	rng.Read(spec.Random[:])
	sp, err := loader.BuildStack(mm, exe.Arch, img, spec)
	if err != nil {
		return err
	}
	if err := a.start(cpu, sp); err != nil {
		return err
	}
	if err := cpu.SetReg(a.pc, entry); err != nil {
		return err
	}
	ctx, err := k.firstContext(cpu)
	if err != nil {
		return err
	}
	p.leaveImage()
	p.cpu, p.abi, p.mm, p.prov, p.rng = cpu, a, mm, prov, rng
	k.spaceUsers[cpu]++
	p.exe, p.interp, p.argv, p.env = exe, interp, argv, env
	k.runsOn(t, cpu, ctx)
	p.img = p.newImage(parent, parent >= 0, false, interpBase)
	p.img.addTask(t)
	return nil
}

// fitsMemory refuses a program whose segments (its own and its
// interpreter's) alone map more than --max-memory (Options.MaxMemory)
// allows, before anything is mapped.
func (k *Kernel) fitsMemory(exe, interp *loader.Executable) error {
	need := exe.MappedSize()
	if interp != nil {
		need += interp.MappedSize()
	}
	if k.opts.MaxMemory == 0 || need <= k.opts.MaxMemory {
		return nil
	}
	return &loader.Error{Path: exe.Path, Problem: loader.NotRunnable,
		Msg: fmt.Sprintf("its segments map %s, more than --max-memory allows (%s)", approxSize(need), approxSize(k.opts.MaxMemory))}
}

// approxSize is n bytes in GiB or MiB, to a tenth.
func approxSize(n uint64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// leaveImage lets go of p's program and of its address space; the image
// is retired (its counts may be read back), and the CPU too once no
// process uses it.
func (p *Process) leaveImage() {
	im := p.img
	if im == nil {
		return
	}
	p.img = nil
	im.ended = true
	p.k.retired = append(p.k.retired, im)
	if p.k.spaceUsers[p.cpu]--; p.k.spaceUsers[p.cpu] == 0 {
		delete(p.k.spaceUsers, p.cpu)
	}
}

// openInterp opens and checks the interpreter of exe, under sysroot if
// one is given.
func openInterp(exe *loader.Executable, sysroot string) (*loader.Executable, error) {
	path := InterpPath(exe.Interp, sysroot)
	interp, err := loader.Open(path)
	if err != nil {
		var le *loader.Error
		if errors.As(err, &le) && le.Problem == loader.NotFound {
			hint := ""
			switch {
			case sysroot != "":
				hint = fmt.Sprintf(" (under the sysroot %s)", sysroot)
			case exe.Arch == emu.ARM64:
				hint = "; install Debian's libc6-arm64-cross or give --sysroot DIR"
			}
			return nil, &loader.Error{Path: exe.Path, Problem: loader.NotFound,
				Msg: fmt.Sprintf("its interpreter %s was not found: no such file %s%s", exe.Interp, path, hint)}
		}
		return nil, &loader.Error{Path: exe.Path, Problem: loader.NotRunnable, Msg: "its interpreter: " + err.Error()}
	}
	switch {
	case interp.Arch != exe.Arch:
		return nil, &loader.Error{Path: exe.Path, Problem: loader.NotRunnable,
			Msg: fmt.Sprintf("its interpreter %s is for %v, not %v", path, interp.Arch, exe.Arch)}
	case interp.Interp != "":
		return nil, &loader.Error{Path: exe.Path, Problem: loader.NotRunnable,
			Msg: fmt.Sprintf("its interpreter %s has an interpreter itself", path)}
	}
	return interp, nil
}

// loaded records in prov what the loader mapped of e at base: each
// segment's file range, executable segments last, since a page two
// segments share is executable if either is.
func loaded(prov *provenance, e *loader.Executable, base uint64) {
	for _, exec := range []bool{false, true} {
		for _, s := range e.Segs {
			if (s.Prot&emu.ProtExec != 0) != exec {
				continue
			}
			addr := base + s.Vaddr
			start, end := pageDown(addr), pageUp(addr+s.Memsz)
			r := region{start: start, end: end, exec: exec}
			if s.Filesz > 0 {
				r.path, r.offset = e.Path, s.Offset-(addr-start)
			}
			prov.insert(r, addr, addr+s.Memsz)
		}
	}
}

// noCall answers a number no row of the table has.
var noCall = Syscall{Handler: sysENOSYS, Support: ENOSYS}

// syscall handles the system call the task is making now.
func (t *Task) syscall() {
	p := t.proc
	k := p.k
	cpu := p.cpu
	vals := &k.callVals
	cpu.Regs(p.abi.callRegs[:], vals[:])
	// Linux reads the number as a 32-bit int on both arches: the upper
	// half of the register is ignored.
	nr := uint64(uint32(vals[0]))
	args := [6]uint64(vals[1:])
	p.img.calls.add(nr)
	sc := p.abi.table.row(nr)
	if sc == nil {
		// A number Linux has no call for: Linux answers ENOSYS, which
		// libc and runtimes probe new calls by.
		sc = &noCall
	}
	if sc.Handler == nil {
		k.fail(&UnsupportedError{Name: sc.Name, Nr: nr, PC: p.abi.syscallPC(cpu)})
		return
	}
	ret, err := sc.Handler(t, args)
	if k.switching {
		cpu.Stop() // for Schedule
	}
	switch e := err.(type) {
	case nil:
	case Errno:
		ret = uint64(-int64(e))
	case errUnsupported:
		k.fail(&UnsupportedError{Name: sc.Name, Nr: nr, PC: p.abi.syscallPC(cpu), What: string(e)})
		return
	default:
		if err == errBlocked {
			return // the result is written when the task runs on
		}
		k.fail(fmt.Errorf("%s: %w", sc.Name, err))
		return
	}
	if p.exited || p.cpu != cpu {
		return // the process is gone, or exec replaced what made the call
	}
	if err := cpu.SetReg(p.abi.ret, ret); err != nil {
		k.fail(err)
	}
}
