package kernel

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sort"

	"github.com/icount-dev/icount/emu"
	"github.com/icount-dev/icount/fixedclock"
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
	Zero(addr, size uint64) error
	Reg(r emu.Reg) uint64
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
	SetSlice(n uint64) error
	Interrupted() error // why the run must stop (a timeout, a signal to icount), if it must
}

// Fixed identity of the guest process.
const (
	PID = 1000
	UID = 1000
	GID = 1000
)

// Options configure a guest process.
type Options struct {
	Argv []string // Argv[0] is the name the guest sees
	Env  []string
	Seed uint64 // seeds AT_RANDOM and getrandom

	// Clock serves every read of the time; nil gives the host's.
	Clock *fixedclock.Clock
	// CPUs is how many CPUs the guest is told it has (1 when 0).
	CPUs int
	// MaxMemory, if not 0, bounds the bytes the guest has mapped, as
	// RLIMIT_AS does: what would pass it fails with ENOMEM.
	MaxMemory uint64
	// Quantum is how many instructions a thread runs while others wait
	// to (DefaultQuantum when 0).
	Quantum uint64
	// Sysroot is the directory the interpreter of a dynamically linked
	// executable is taken from, and the guest's files are looked up under
	// when not found as given ("" for none: the host's own files).
	Sysroot string
}

// Process is one guest process.
type Process struct {
	cpu   CPU
	abi   *abi
	exe   *loader.Executable
	image *loader.Image
	// interp is the executable's interpreter (PT_INTERP) and where it was
	// loaded; nil for a static executable.
	interp      *loader.Executable
	interpImage *loader.Image
	entry       uint64 // where execution starts: the interpreter's entry, else the executable's
	mm          *addressSpace
	prov        provenance // what each mapping holds (mappings.go)
	fds         *fdTable
	rng         *rand.ChaCha8
	opts        Options

	exited     bool
	exitStatus int
	failure    error // set when the run must stop with an icount error

	calls map[string]uint64 // syscalls made, by name
	files []string          // files the guest opened, in order

	clk        clockState        // where time comes from, and its reads
	sigactions map[uint64][]byte // rt_sigaction records, by signal
	// Signals sent to the process while every thread blocked them, and
	// their siginfo: the first thread to unblock one takes it.
	sharedPending uint64
	sharedInfo    [nsig]sigInfo
	memRefused    uint64 // mappings --max-memory refused (sys_mem.go)

	// Threads (thread.go, sched.go).
	threads   []*thread // in creation order; the first is the process's
	cur       *thread   // the one running
	nextTID   int
	alive     int    // threads that have not exited
	quantum   uint64 // instructions a thread runs before the next one's turn
	sliced    bool   // the CPU runs in slices of quantum (a second thread exists)
	switching bool   // the CPU stopped for Schedule
	yield     bool   // ... and the running thread gives up its turn
	waitSeq   uint64 // futex waits so far, for first-come first-served wakes
	lastRan   uint64 // instructions the CPU's last run executed
	alarm     itimer // ITIMER_REAL (sys_timer.go)
}

// New prepares a process for exe on cpu: maps the executable and, for a
// dynamically linked one, its interpreter at a fixed base, and builds the
// initial stack, as execve does. Run the CPU from Entry(): the
// interpreter's entry, which loads the libraries through system calls.
func New(cpu CPU, exe *loader.Executable, opts Options) (*Process, error) {
	var interp *loader.Executable
	if exe.Interp != "" {
		var err error
		if interp, err = openInterp(exe, opts.Sysroot); err != nil {
			return nil, err
		}
	}
	a, ok := abis[exe.Arch]
	if !ok {
		return nil, fmt.Errorf("no system call table for %v", exe.Arch)
	}
	if len(opts.Argv) == 0 {
		opts.Argv = []string{filepath.Base(exe.Path)}
	}
	var seed [32]byte
	for i := 0; i < 8; i++ {
		seed[i] = byte(opts.Seed >> (8 * i))
	}
	p := &Process{
		cpu: cpu, abi: a, exe: exe, opts: opts,
		mm:         newAddressSpace(cpu),
		fds:        newFDTable(),
		rng:        rand.NewChaCha8(seed),
		calls:      map[string]uint64{},
		sigactions: map[uint64][]byte{},
		clk:        clockState{fixed: opts.Clock},
	}
	img, err := exe.Load(p.mm)
	if err != nil {
		return nil, err
	}
	p.image, p.entry = img, img.Entry
	p.loaded(exe, img.Base)
	if interp != nil {
		iimg, err := interp.LoadAt(p.mm, interp.InterpBase())
		if err != nil {
			return nil, err
		}
		p.interp, p.interpImage, p.entry = interp, iimg, iimg.Entry
		p.loaded(interp, iimg.Base)
	}
	if err := p.mm.watchExecutable(); err != nil {
		return nil, err
	}
	main, err := cpu.NewContext()
	if err != nil {
		return nil, err
	}
	p.cur = &thread{tid: PID, ctx: main, name: filepath.Base(opts.Argv[0])}
	p.threads, p.nextTID, p.alive = []*thread{p.cur}, firstTID, 1
	p.alarm = itimer{deadline: noDeadline}
	p.quantum = opts.Quantum
	if p.quantum == 0 {
		p.quantum = DefaultQuantum
	}
	p.mm.setBrk(img.End)
	spec := loader.StackSpec{Argv: opts.Argv, Env: opts.Env, UID: UID, GID: GID,
		Hwcap: a.hwcap, Platform: a.platform, ExecStack: exe.ExecStack}
	if p.interpImage != nil {
		spec.InterpBase = p.interpImage.Base
	}
	p.rng.Read(spec.Random[:])
	sp, err := loader.BuildStack(p.mm, exe.Arch, img, spec)
	if err != nil {
		return nil, err
	}
	if err := a.start(cpu, sp); err != nil {
		return nil, err
	}
	return p, nil
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

// loaded records what the loader mapped of e at base: each segment's file
// range, executable segments last, since a page two segments share is
// executable if either is.
func (p *Process) loaded(e *loader.Executable, base uint64) {
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
			p.prov.insert(r, addr, addr+s.Memsz)
		}
	}
}

// Entry is the guest address execution starts at.
func (p *Process) Entry() uint64 { return p.entry }

// Image is the mapped executable.
func (p *Process) Image() *loader.Image { return p.image }

// Interp is the interpreter of a dynamically linked executable and its
// load bias; nil for a static one.
func (p *Process) Interp() (*loader.Executable, uint64) {
	if p.interp == nil {
		return nil, 0
	}
	return p.interp, p.interpImage.Base
}

// Exited reports whether the guest exited, and its status.
func (p *Process) Exited() (bool, int) { return p.exited, p.exitStatus }

// Failure is the error that stopped the run from inside a system call, if
// any (an unsupported call, say).
func (p *Process) Failure() error { return p.failure }

// SyscallCounts returns how many times each system call was made.
func (p *Process) SyscallCounts() map[string]uint64 { return p.calls }

// FilesOpened lists the files the guest opened, first open first, once each.
func (p *Process) FilesOpened() []string { return p.files }

// Syscall handles the system call the guest is making now; the emulator
// calls it from its syscall hook.
func (p *Process) Syscall() {
	nr := p.cpu.Reg(p.abi.nr)
	var args [6]uint64
	for i, r := range p.abi.args {
		args[i] = p.cpu.Reg(r)
	}
	sc := p.abi.table[nr]
	if sc == nil {
		name := fmt.Sprintf("syscall_%d", nr)
		p.calls[name]++
		p.fail(&UnsupportedError{Name: name, Nr: nr, PC: p.abi.syscallPC(p.cpu)})
		return
	}
	p.calls[sc.Name]++
	if sc.Handler == nil {
		p.fail(&UnsupportedError{Name: sc.Name, Nr: nr, PC: p.abi.syscallPC(p.cpu)})
		return
	}
	ret, err := sc.Handler(p, args)
	if p.switching {
		p.cpu.Stop() // for Schedule
	}
	switch e := err.(type) {
	case nil:
	case Errno:
		ret = uint64(-int64(e))
	case errUnsupported:
		p.fail(&UnsupportedError{Name: sc.Name, Nr: nr, PC: p.abi.syscallPC(p.cpu), What: string(e)})
		return
	default:
		if err == errBlocked {
			return // the result is written when the thread runs on
		}
		p.fail(fmt.Errorf("%s: %w", sc.Name, err))
		return
	}
	if p.exited {
		return
	}
	if err := p.cpu.SetReg(p.abi.ret, ret); err != nil {
		p.fail(err)
	}
}

func (p *Process) fail(err error) {
	if p.failure == nil {
		p.failure = err
	}
	p.cpu.Stop()
}

func (p *Process) exit(status int) {
	p.exited, p.exitStatus = true, status&0xff
	p.cpu.Stop()
}

func (p *Process) noteOpen(path string) {
	for _, f := range p.files {
		if f == path {
			return
		}
	}
	p.files = append(p.files, path)
}

// SupportMatrix lists the system calls of arch's table, by number.
func SupportMatrix(arch emu.Arch) []Syscall {
	a := abis[arch]
	if a == nil {
		return nil
	}
	out := make([]Syscall, 0, len(a.table))
	for _, sc := range a.table {
		out = append(out, *sc)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Nr < out[j].Nr })
	return out
}

// Interrupt handles a CPU exception: arm64's svc is a system call; every
// other exception is left to the caller as a fault.
func (p *Process) Interrupt(intno uint32) bool {
	if p.abi.svcIntno != 0 && intno == p.abi.svcIntno {
		p.Syscall()
		return true
	}
	return false
}
