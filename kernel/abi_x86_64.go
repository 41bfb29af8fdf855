package kernel

import (
	"encoding/binary"
	"fmt"

	"github.com/icount-dev/icount/emu"
	"golang.org/x/sys/unix"
)

// The x86-64 system-call boundary: syscall with the number in rax, the
// arguments in rdi, rsi, rdx, r10, r8, r9 and the result in rax.

// hwcapX86 is CPUID.1:EDX of the emulated qemu64 CPU (measured), which AT_HWCAP
// carries on x86.
const hwcapX86 = 0x078bfbfd

const syscallInsnSize = 2 // syscall: 0f 05

var abiX86_64 = &abi{
	arch:         emu.X86_64,
	nr:           emu.X86RAX,
	ret:          emu.X86RAX,
	args:         [6]emu.Reg{emu.X86RDI, emu.X86RSI, emu.X86RDX, emu.X86R10, emu.X86R8, emu.X86R9},
	pc:           emu.X86RIP,
	sp:           emu.X86RSP,
	tls:          emu.X86FSBase,
	cloneTLSArg:  4,
	cloneCTIDArg: 3,
	// In the hook RIP is at the syscall instruction, 2 bytes long.
	resumePC:      func(cpu CPU) uint64 { return cpu.Reg(emu.X86RIP) + syscallInsnSize },
	syscallSize:   syscallInsnSize,
	table:         newTable(emu.X86_64),
	hwcap:         hwcapX86,
	platform:      "x86_64",
	sigactionSize: 32,
	start:         startX86_64,
	// Unicorn calls the syscall hook with RIP at the instruction.
	syscallPC: func(cpu CPU) uint64 { return cpu.Reg(emu.X86RIP) },
	stat:      statX86_64,
	// The host is x86-64: open flags need no conversion.
	openFlags: func(f uint64) int { return int(f) },
	// 47-bit user addresses, the last page left out.
	userTop: 1<<47 - emu.PageSize,
}

func init() { register(abiX86_64) }

// The CPU state Linux gives a new x86-64 process besides its stack: the
// kernel enables FXSAVE/FXRSTOR of the SSE state and SSE exceptions
// (CR4.OSFXSR, CR4.OSXMMEXCPT; without them fxsave stores no XMM
// registers nor MXCSR, which glibc's lazy-binding trampoline relies on),
// and execve starts the program with the FPU control word and MXCSR of
// fninit and Linux's mxcsr default (all exceptions masked, round to
// nearest, 64-bit x87 precision) and RFLAGS with IF set.
const (
	x86CR4OSFXSR     = 1 << 9
	x86CR4OSXMMEXCPT = 1 << 10
	x86InitFCW       = 0x037f
	x86InitMXCSR     = 0x1f80
	x86InitRFLAGS    = 0x0202 // IF and the reserved bit 1
)

func startX86_64(cpu CPU, sp uint64) error {
	for _, r := range []struct {
		reg emu.Reg
		val uint64
	}{
		{emu.X86CR4, cpu.Reg(emu.X86CR4) | x86CR4OSFXSR | x86CR4OSXMMEXCPT},
		{emu.X86FPCW, x86InitFCW},
		{emu.X86MXCSR, x86InitMXCSR},
		{emu.X86EFLAGS, x86InitRFLAGS},
		{emu.X86RSP, sp},
	} {
		if err := cpu.SetReg(r.reg, r.val); err != nil {
			return fmt.Errorf("initial x86-64 CPU state: %w", err)
		}
	}
	return nil
}

// statX86_64 encodes struct stat as x86-64 lays it out (144 bytes).
func statX86_64(st *unix.Stat_t) []byte {
	le := binary.LittleEndian
	b := make([]byte, 0, 144)
	b = le.AppendUint64(b, st.Dev)
	b = le.AppendUint64(b, st.Ino)
	b = le.AppendUint64(b, uint64(st.Nlink))
	b = le.AppendUint32(b, st.Mode)
	b = le.AppendUint32(b, st.Uid)
	b = le.AppendUint32(b, st.Gid)
	b = le.AppendUint32(b, 0)
	b = le.AppendUint64(b, st.Rdev)
	b = le.AppendUint64(b, uint64(st.Size))
	b = le.AppendUint64(b, uint64(st.Blksize))
	b = le.AppendUint64(b, uint64(st.Blocks))
	for _, t := range []unix.Timespec{st.Atim, st.Mtim, st.Ctim} {
		b = le.AppendUint64(b, uint64(t.Sec))
		b = le.AppendUint64(b, uint64(t.Nsec))
	}
	return append(b, make([]byte, 24)...)
}
