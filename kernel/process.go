package kernel

import (
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
	Reg(r emu.Reg) uint64
	SetReg(r emu.Reg, v uint64) error
	PC() uint64
	InvalidateCode(addr, size uint64) error
	Stop()
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
}

// Process is one guest process.
type Process struct {
	cpu   CPU
	abi   *abi
	exe   *loader.Executable
	image *loader.Image
	mm    *addressSpace
	fds   *fdTable
	rng   *rand.ChaCha8
	opts  Options

	exited     bool
	exitStatus int
	failure    error // set when the run must stop with an icount error

	calls map[string]uint64 // syscalls made, by name
	files []string          // files the guest opened, in order

	clk        clockState        // where time comes from, and its reads
	sigactions map[uint64][]byte // rt_sigaction records, by signal
	sigmask    uint64
	altstack   []byte // stack_t given to sigaltstack
	name       string // the thread name (prctl PR_SET_NAME)
	memRefused uint64 // mappings --max-memory refused (sys_mem.go)
}

// New prepares a process for exe on cpu: maps the executable and builds
// the initial stack. Run the CPU from Entry().
func New(cpu CPU, exe *loader.Executable, opts Options) (*Process, error) {
	if exe.Interp != "" {
		return nil, &loader.Error{Path: exe.Path, Problem: loader.Unsupported,
			Msg: fmt.Sprintf("is dynamically linked (interpreter %s); icount runs statically linked executables for now: link with -static", exe.Interp)}
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
	p.image = img
	if err := p.mm.watchExecutable(); err != nil {
		return nil, err
	}
	p.name = filepath.Base(opts.Argv[0])
	p.mm.setBrk(img.End)
	spec := loader.StackSpec{Argv: opts.Argv, Env: opts.Env, UID: UID, GID: GID,
		Hwcap: a.hwcap, Platform: a.platform}
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

// Entry is the guest address execution starts at.
func (p *Process) Entry() uint64 { return p.image.Entry }

// Image is the mapped executable.
func (p *Process) Image() *loader.Image { return p.image }

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
	switch e := err.(type) {
	case nil:
	case Errno:
		ret = uint64(-int64(e))
	case errUnsupported:
		p.fail(&UnsupportedError{Name: sc.Name, Nr: nr, PC: p.abi.syscallPC(p.cpu), What: string(e)})
		return
	default:
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
