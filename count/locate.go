package count

import (
	"github.com/icount-dev/icount/emu"
	"golang.org/x/arch/x86/x86asm"
)

// locator finds the instruction a fault happened at. After a memory fault
// Unicorn 2.1 leaves the registers as they were just before the faulting
// instruction, but the PC at the start of its block: the faulting
// instruction is the first in the block whose memory access, computed from
// those registers, covers the faulting address.
type locator struct {
	dec *decoder
	cpu *emu.CPU
	// uncertain is set when the faulting instruction could not be told.
	uncertain string
}

func (l *locator) locate(blockAddr uint64, blockSize uint32, f *emu.Fault) (uint64, uint32) {
	pc := f.PC
	if f.Kind == emu.FaultException && l.dec.arch == emu.ARM64 {
		pc = exceptionPCARM64(f)
	}
	if f.Kind == emu.FaultUnmapped || f.Kind == emu.FaultProtection {
		if at, ok := l.findAccess(blockAddr, blockSize, f); ok {
			pc = at
		} else {
			l.uncertain = "the faulting instruction could not be told within its block: the count of that block is taken as complete"
			pc = blockAddr + uint64(blockSize)
		}
	}
	return pc, l.dec.notRun(blockAddr, blockSize, pc)
}

func (l *locator) findAccess(blockAddr uint64, blockSize uint32, f *emu.Fault) (uint64, bool) {
	code := make([]byte, blockSize)
	if l.cpu.Read(blockAddr, code) != nil {
		return 0, false
	}
	switch l.dec.arch {
	case emu.X86_64:
		return findAccessX86(code, blockAddr, f.Addr, l.cpu.Reg)
	case emu.ARM64:
		return findAccessARM64(code, blockAddr, f, l.cpu.Reg, l.cpu.Read)
	}
	return 0, false
}

// findAccessX86 returns the first instruction of the block whose memory
// access, from the current registers, covers addr.
func findAccessX86(code []byte, blockAddr, addr uint64, reg func(emu.Reg) uint64) (uint64, bool) {
	for off := 0; off < len(code); {
		inst, err := x86asm.Decode(code[off:], 64)
		if err != nil || inst.Op == 0 || inst.Len == 0 {
			return 0, false
		}
		pc := blockAddr + uint64(off)
		for _, acc := range x86Accesses(inst, pc, reg) {
			if addr >= acc.addr && addr-acc.addr < acc.size {
				return pc, true
			}
		}
		off += inst.Len
	}
	return 0, false
}

// access is one memory range an instruction touches.
type access struct{ addr, size uint64 }

// noAccess are the instructions with a memory operand that do not touch
// it: lea computes its address, a multi-byte nop ignores it, and a
// prefetch never faults.
var noAccess = map[x86asm.Op]bool{
	x86asm.LEA: true, x86asm.NOP: true, x86asm.PREFETCHNTA: true, x86asm.PREFETCHT0: true,
	x86asm.PREFETCHT1: true, x86asm.PREFETCHT2: true, x86asm.PREFETCHW: true,
}

// x86Accesses lists the memory an instruction at pc touches, computed from
// the current registers: its memory operand and the stack or string
// accesses that are implicit in it.
func x86Accesses(inst x86asm.Inst, pc uint64, reg func(emu.Reg) uint64) []access {
	var out []access
	size := uint64(max(inst.MemBytes, 1))
	for _, a := range inst.Args {
		m, ok := a.(x86asm.Mem)
		if !ok || noAccess[inst.Op] {
			continue
		}
		ea := uint64(m.Disp)
		if m.Base == x86asm.RIP {
			ea += pc + uint64(inst.Len)
		} else if m.Base != 0 {
			ea += x86Reg(m.Base, reg)
		}
		if m.Index != 0 {
			ea += x86Reg(m.Index, reg) * uint64(m.Scale)
		}
		switch m.Segment {
		case x86asm.FS:
			ea += reg(emu.X86FSBase)
		case x86asm.GS:
			ea += reg(emu.X86GSBase)
		}
		if inst.AddrSize == 32 {
			ea = uint64(uint32(ea))
		}
		out = append(out, access{ea, size})
	}
	rsp, elem := reg(emu.X86RSP), uint64(max(inst.DataSize/8, 1))
	switch inst.Op {
	case x86asm.PUSH, x86asm.CALL, x86asm.PUSHF, x86asm.PUSHFQ, x86asm.ENTER:
		out = append(out, access{rsp - 8, 8})
	case x86asm.POP, x86asm.RET, x86asm.POPF, x86asm.POPFQ:
		out = append(out, access{rsp, 8})
	case x86asm.LEAVE:
		out = append(out, access{reg(emu.X86RBP), 8})
	case x86asm.MOVSB, x86asm.MOVSW, x86asm.MOVSD, x86asm.MOVSQ, x86asm.CMPSB, x86asm.CMPSW, x86asm.CMPSD, x86asm.CMPSQ:
		out = append(out, access{reg(emu.X86RSI), elem}, access{reg(emu.X86RDI), elem})
	case x86asm.LODSB, x86asm.LODSW, x86asm.LODSD, x86asm.LODSQ:
		out = append(out, access{reg(emu.X86RSI), elem})
	case x86asm.STOSB, x86asm.STOSW, x86asm.STOSD, x86asm.STOSQ, x86asm.SCASB, x86asm.SCASW, x86asm.SCASD, x86asm.SCASQ:
		out = append(out, access{reg(emu.X86RDI), elem})
	}
	return out
}

// x86Reg reads a general-purpose register named by the decoder.
func x86Reg(r x86asm.Reg, reg func(emu.Reg) uint64) uint64 {
	switch {
	case r >= x86asm.RAX && r <= x86asm.R15:
		return reg(x86GPR[r-x86asm.RAX])
	case r >= x86asm.EAX && r <= x86asm.R15L:
		return uint64(uint32(reg(x86GPR[r-x86asm.EAX])))
	}
	return 0
}

// x86GPR lists the 64-bit registers in x86asm's order.
var x86GPR = [16]emu.Reg{
	emu.X86RAX, emu.X86RCX, emu.X86RDX, emu.X86RBX, emu.X86RSP, emu.X86RBP, emu.X86RSI, emu.X86RDI,
	emu.X86R8, emu.X86R9, emu.X86R10, emu.X86R11, emu.X86R12, emu.X86R13, emu.X86R14, emu.X86R15,
}
