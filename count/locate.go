package count

import (
	"encoding/binary"

	"github.com/icount-dev/icount/emu"
	"golang.org/x/arch/x86/x86asm"
)

// locator completes a fault the emulator reports (emu.Locator). The PC of
// a memory fault is exact, and every instruction before it completed, so
// the instructions of the block from it on are what did not; the emulator
// gives the page of the refused access only, so the address is worked out
// from the faulting instruction and the registers, which are as they were
// before it.
type locator struct {
	dec *decoder
	cpu *emu.CPU
}

func (l *locator) locate(b emu.Block, f *emu.Fault) (uint64, uint32) {
	pc := f.PC
	switch {
	case f.Kind == emu.FaultException && l.dec.arch == emu.ARM64:
		pc = exceptionPCARM64(f)
	case f.Kind == emu.FaultUnmapped || f.Kind == emu.FaultProtection:
		f.Addr = l.accessed(f.PC, f.Addr)
	}
	return pc, l.dec.notRun(b, pc)
}

// accessed returns the first address in the page at page (the emulator's,
// at most emu.PageSize) that the instruction at pc accesses; page itself
// when the access is not known.
func (l *locator) accessed(pc, page uint64) uint64 {
	var accs []access
	switch l.dec.arch {
	case emu.X86_64:
		if inst, err := x86asm.Decode(codeAt(pc, 15, l.cpu.Read), 64); err == nil {
			accs = x86Accesses(inst, pc, l.cpu.Reg)
		}
	case emu.ARM64:
		var w [4]byte
		if l.cpu.Read(pc, w[:]) == nil {
			if a, ok := accessARM64(binary.LittleEndian.Uint32(w[:]), pc, l.cpu.Reg); ok {
				accs = append(accs, a)
			}
		}
	}
	for _, a := range accs {
		if a.addr < page+emu.PageSize && a.addr+a.size > page {
			return max(a.addr, page)
		}
	}
	return page
}

// codeAt reads the up to n bytes of code at pc that can be read: an
// instruction may end where its mapping does.
func codeAt(pc uint64, n int, read func(uint64, []byte) error) []byte {
	code := make([]byte, n)
	for ; n > 0; n-- {
		if read(pc, code[:n]) == nil {
			return code[:n]
		}
	}
	return nil
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
