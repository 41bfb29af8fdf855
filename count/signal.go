package count

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/icount-dev/icount/emu"
	"github.com/icount-dev/icount/kernel"
	"github.com/icount-dev/icount/profile"
	"golang.org/x/arch/x86/x86asm"
)

// signal is the Linux signal a fault delivers.
type signal struct {
	num  int
	name string
}

var (
	sigILL  = signal{4, "SIGILL"}
	sigTRAP = signal{5, "SIGTRAP"}
	sigBUS  = signal{7, "SIGBUS"}
	sigFPE  = signal{8, "SIGFPE"}
	sigSEGV = signal{11, "SIGSEGV"}
)

// describeFault says which signal the kernel would deliver for f, and what
// happened, in words.
func describeFault(arch emu.Arch, f *emu.Fault, read func(uint64, []byte) error) (signal, string) {
	if f.PastEOF {
		return sigBUS, fmt.Sprintf("access to %#x, past the end of the file mapped there%s", f.Addr, faultingInsn(arch, f.PC, read))
	}
	switch f.Kind {
	case emu.FaultUnmapped:
		return sigSEGV, fmt.Sprintf("access to unmapped address %#x%s%s", f.Addr, faultingInsn(arch, f.PC, read), stackOverflow(arch, f.Addr))
	case emu.FaultProtection:
		return sigSEGV, fmt.Sprintf("access to %#x violates its protection%s", f.Addr, faultingInsn(arch, f.PC, read))
	case emu.FaultFetch:
		switch {
		case f.PC != f.Addr:
			return sigSEGV, fmt.Sprintf("the instruction at %#x runs into %#x, which is not mapped executable", f.PC, f.Addr)
		case f.RanInto:
			return sigSEGV, fmt.Sprintf("execution ran into %#x, which is not mapped executable", f.Addr)
		}
		return sigSEGV, fmt.Sprintf("jump to %#x, which is not mapped executable", f.Addr)
	case emu.FaultInstruction:
		return sigILL, unsupportedInsn(arch, f.PC, read)
	case emu.FaultPrivileged:
		if arch == emu.ARM64 {
			return sigILL, fmt.Sprintf("%s: a system instruction a user program may not execute (undefined at EL0)", insnAt(arch, f.PC, read))
		}
		return sigSEGV, fmt.Sprintf("%s: a privileged instruction (general protection fault at user level)", insnAt(arch, f.PC, read))
	case emu.FaultException:
		if arch == emu.X86_64 {
			switch f.Intno {
			case 0:
				return sigFPE, "division error" + faultingInsn(arch, f.PC, read)
			case 1, 3:
				return sigTRAP, "breakpoint trap"
			case 6:
				return sigILL, unsupportedInsn(arch, f.PC, read)
			case 16, 19:
				return sigFPE, "floating-point exception" + faultingInsn(arch, f.PC, read)
			case 17:
				return sigBUS, "alignment check" + faultingInsn(arch, f.PC, read)
			}
			return sigSEGV, fmt.Sprintf("CPU exception %d%s", f.Intno, faultingInsn(arch, f.PC, read))
		}
		return describeExceptionARM64(f, read)
	}
	return sigSEGV, f.Error()
}

// insnAt names the instruction at pc: "`hlt` at 0x401000".
func insnAt(arch emu.Arch, pc uint64, read func(uint64, []byte) error) string {
	if s := disasm(arch, pc, read); s != "" {
		return fmt.Sprintf("`%s` at %#x", s, pc)
	}
	return fmt.Sprintf("the instruction at %#x", pc)
}

func faultingInsn(arch emu.Arch, pc uint64, read func(uint64, []byte) error) string {
	if s := disasm(arch, pc, read); s != "" {
		return fmt.Sprintf(" by `%s` at %#x", s, pc)
	}
	return fmt.Sprintf(" at %#x", pc)
}

// unsupportedInsn names an instruction the emulated CPU cannot execute.
func unsupportedInsn(arch emu.Arch, pc uint64, read func(uint64, []byte) error) string {
	code := make([]byte, 15)
	if arch == emu.ARM64 {
		code = code[:4]
	}
	if read(pc, code) != nil {
		return fmt.Sprintf("illegal instruction at %#x", pc)
	}
	s := disasm(arch, pc, read)
	if s == "" && arch == emu.ARM64 {
		return unsupportedARM64(code, pc)
	}
	if s == "" {
		return fmt.Sprintf("illegal instruction (bytes % x) at %#x", code, pc)
	}
	// VEX- and EVEX-encoded instructions are AVX, AVX2, FMA or AVX-512.
	if arch == emu.X86_64 && (code[0] == 0xc4 || code[0] == 0xc5 || code[0] == 0x62) {
		return fmt.Sprintf("`%s` at %#x (AVX family) is not supported by the emulated CPU; build for x86-64-v1/v2 (no -mavx, -march=native)", s, pc)
	}
	if arch == emu.ARM64 {
		return fmt.Sprintf("`%s` at %#x is not supported by the emulated CPU; %s", s, pc, buildHintARM64)
	}
	return fmt.Sprintf("`%s` at %#x is not supported by the emulated CPU", s, pc)
}

func disasm(arch emu.Arch, pc uint64, read func(uint64, []byte) error) string {
	if arch == emu.ARM64 {
		return disasmARM64(pc, read)
	}
	inst, err := x86asm.Decode(codeAt(pc, 15, read), 64)
	if err != nil {
		return ""
	}
	return strings.ToLower(x86asm.GNUSyntax(inst, pc, nil))
}

// faultSignal is f as the guest's handler is told of it: the signal, its
// si_code and si_addr, and for x86-64 the exception number.
func faultSignal(arch emu.Arch, f *emu.Fault, cpu *emu.CPU) kernel.FaultSignal {
	sig, _ := describeFault(arch, f, func(uint64, []byte) error { return nil })
	fs := kernel.FaultSignal{Signo: sig.num, Addr: f.PC}
	switch f.Kind {
	case emu.FaultUnmapped, emu.FaultProtection, emu.FaultFetch:
		fs.Memory, fs.Write, fs.Fetch, fs.Addr = true, f.Write, f.Kind == emu.FaultFetch, f.Addr
		if f.PastEOF {
			fs.Code = busAdrerr
		}
		return fs
	case emu.FaultInstruction:
		fs.Code, fs.Trapno = illIllopn, 6
		if arch == emu.ARM64 {
			fs.Code = illIllopc
		}
		return fs
	case emu.FaultPrivileged:
		if arch == emu.ARM64 {
			fs.Code = illIllopc
			return fs
		}
		// #GP(0): Linux sends SIGSEGV with SI_KERNEL and no address.
		fs.Code, fs.Addr, fs.Trapno = siKernel, 0, 13
		return fs
	case emu.FaultException:
	default:
		fs.Code = siKernel
		return fs
	}
	if arch == emu.ARM64 {
		switch f.Intno {
		case excpBKPT:
			fs.Code = trapBrkpt
		case excpDataAbort:
			fs.Code = busAdraln
			var w [4]byte
			if cpu.Read(f.PC, w[:]) == nil {
				if a, ok := accessARM64(binary.LittleEndian.Uint32(w[:]), f.PC, cpu.Reg); ok {
					fs.Addr = a.addr
				}
			}
		case excpPrefetchAbort:
			fs.Code = segvMaperr
		default:
			fs.Code = illIllopc
		}
		return fs
	}
	fs.Trapno = uint64(f.Intno)
	switch f.Intno {
	case 0:
		fs.Code = fpeIntdiv
	case 6:
		fs.Code = illIllopn
	case 16, 19:
		fs.Code = fpeFltinv
	case 17:
		fs.Code = busAdraln
	default: // int3, #GP
		fs.Code, fs.Addr = siKernel, 0
	}
	return fs
}

// si_code values (include/uapi/asm-generic/siginfo.h).
const (
	siKernel   = 0x80
	illIllopc  = 1
	illIllopn  = 2
	fpeIntdiv  = 1
	fpeFltinv  = 7
	segvMaperr = 1
	busAdraln  = 1
	busAdrerr  = 2
	trapBrkpt  = 1
)

// killedExit is the Exit of a process a signal's default action ended.
func killedExit(k *kernel.Kernel, status int) (profile.Exit, bool) {
	sig, ok := k.Killed()
	if !ok {
		return profile.Exit{}, false
	}
	name := kernel.SignalName(sig)
	return profile.Exit{Status: status, Signal: name, Complete: true,
		Message: fmt.Sprintf("%s: the program was sent %s and has no handler for it", name, name)}, true
}
