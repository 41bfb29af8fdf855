package count

import (
	"strings"

	"github.com/icount-dev/icount/profile"
	"golang.org/x/arch/arm64/arm64asm"
	"golang.org/x/arch/x86/x86asm"
)

// kind is the set of Mix properties of one instruction.
type kind uint8

const (
	kLoad kind = 1 << iota
	kStore
	kBranch
	kCall
	kReturn
	kSyscall
	kSIMDFP
)

// addKind counts in m n executions of an instruction of kind k.
func addKind(m *profile.Mix, k kind, n uint64) {
	if k == 0 {
		m.Other += n
		return
	}
	for _, p := range []struct {
		bit kind
		f   *uint64
	}{{kLoad, &m.Loads}, {kStore, &m.Stores}, {kBranch, &m.Branches}, {kCall, &m.Calls},
		{kReturn, &m.Returns}, {kSyscall, &m.Syscalls}, {kSIMDFP, &m.SIMDFP}} {
		if k&p.bit != 0 {
			*p.f += n
		}
	}
}

// instructionMix sums the kinds of every instruction that completed, in all
// and by function entry.
func instructionMix(blocks []ranBlock) (profile.Mix, map[uint64]*profile.Mix) {
	var total profile.Mix
	byFunc := map[uint64]*profile.Mix{}
	for i := range blocks {
		b := &blocks[i]
		kinds := b.dec.kinds()
		m := byFunc[b.fn]
		if m == nil {
			m = &profile.Mix{}
			byFunc[b.fn] = m
		}
		// Every instruction of a block none of whose executions was cut
		// short ran as often as the block: most blocks, with no runs
		// made for them.
		var runs []uint64
		if len(b.cuts()) > 0 {
			runs = b.runs()
		}
		for j := range int(b.Instructions) {
			n := b.Executions
			if runs != nil {
				n = runs[j]
			}
			var k kind
			if j < len(kinds) {
				k = kinds[j]
			}
			addKind(&total, k, n)
			addKind(m, k, n)
		}
	}
	return total, byFunc
}

// kinds is the kind of each instruction of the block, as decode found.
func (b *decodedBlock) kinds() []kind {
	if b == nil {
		return nil
	}
	return b.kind
}

func classifyX86(inst x86asm.Inst) kind {
	var k kind
	switch inst.Op {
	case x86asm.SYSCALL, x86asm.SYSENTER, x86asm.INT:
		k |= kSyscall
	case x86asm.CALL, x86asm.LCALL:
		k |= kCall
	case x86asm.RET, x86asm.LRET, x86asm.IRET, x86asm.IRETD, x86asm.IRETQ:
		k |= kReturn
	case x86asm.JMP, x86asm.LJMP, x86asm.JA, x86asm.JAE, x86asm.JB, x86asm.JBE, x86asm.JE,
		x86asm.JG, x86asm.JGE, x86asm.JL, x86asm.JLE, x86asm.JNE, x86asm.JNO, x86asm.JNP,
		x86asm.JNS, x86asm.JO, x86asm.JP, x86asm.JS, x86asm.JCXZ, x86asm.JECXZ, x86asm.JRCXZ,
		x86asm.LOOP, x86asm.LOOPE, x86asm.LOOPNE:
		k |= kBranch
	}
	name := inst.Op.String()
	// Implicit stack accesses.
	switch inst.Op {
	case x86asm.PUSH, x86asm.PUSHF, x86asm.PUSHFD, x86asm.PUSHFQ, x86asm.ENTER:
		k |= kStore
	case x86asm.POP, x86asm.POPF, x86asm.POPFD, x86asm.POPFQ, x86asm.LEAVE:
		k |= kLoad
	}
	x87 := name[0] == 'F'
	for i, a := range inst.Args {
		if a == nil {
			break
		}
		switch a := a.(type) {
		case x86asm.Mem:
			k |= x86MemAccess(inst.Op, name, i)
		case x86asm.Reg:
			if a >= x86asm.F0 && a <= x86asm.M7 || a >= x86asm.X0 && a <= x86asm.Z31 {
				k |= kSIMDFP
			}
		}
	}
	switch {
	case x87, inst.Op == x86asm.EMMS, inst.Op == x86asm.LDMXCSR, inst.Op == x86asm.STMXCSR:
		k |= kSIMDFP
	}
	return k
}

// x86MemAccess says whether the memory operand i of an instruction is read,
// written or both. The first operand is the destination: written by moves
// and stores, read by compares, read and written by arithmetic. The others
// are sources.
func x86MemAccess(op x86asm.Op, name string, i int) kind {
	switch op {
	case x86asm.LEA, x86asm.NOP, x86asm.PREFETCHNTA, x86asm.PREFETCHT0, x86asm.PREFETCHT1,
		x86asm.PREFETCHT2, x86asm.PREFETCHW, x86asm.CLFLUSH:
		return 0 // an address, not an access
	case x86asm.POP:
		return kStore // pop to memory: the load from the stack is counted apart
	case x86asm.PUSH, x86asm.CALL, x86asm.LCALL, x86asm.JMP, x86asm.LJMP:
		return kLoad
	case x86asm.CMP, x86asm.TEST, x86asm.BT, x86asm.CMPSB, x86asm.CMPSW, x86asm.CMPSD, x86asm.CMPSQ:
		return kLoad
	case x86asm.XCHG:
		return kLoad | kStore
	}
	if i > 0 {
		return kLoad
	}
	if name[0] == 'F' { // x87: stores name themselves, the rest read memory
		for _, p := range []string{"FST", "FIST", "FNST", "FBSTP", "FXSAVE", "FNSAVE", "FSAVE"} {
			if strings.HasPrefix(name, p) {
				return kStore
			}
		}
		return kLoad
	}
	for _, p := range []string{"MOV", "STOS", "SET", "STMXCSR", "PEXTR", "EXTRACTPS", "SGDT", "SIDT", "SLDT", "SMSW", "STR"} {
		if strings.HasPrefix(name, p) {
			return kStore
		}
	}
	return kLoad | kStore
}

func classifyARM64(inst arm64asm.Inst) kind {
	var k kind
	switch inst.Op {
	case arm64asm.SVC:
		k |= kSyscall
	case arm64asm.BL, arm64asm.BLR:
		k |= kCall
	case arm64asm.RET:
		k |= kReturn
	case arm64asm.B, arm64asm.BR, arm64asm.CBZ, arm64asm.CBNZ, arm64asm.TBZ, arm64asm.TBNZ:
		k |= kBranch
	}
	name := inst.Op.String()
	switch {
	case inst.Op == arm64asm.PRFM || inst.Op == arm64asm.PRFUM:
	case strings.HasPrefix(name, "LD"):
		k |= kLoad
	case strings.HasPrefix(name, "ST"):
		k |= kStore
	}
	if name[0] == 'F' {
		k |= kSIMDFP
	}
	for _, a := range inst.Args {
		if a == nil {
			break
		}
		switch a := a.(type) {
		case arm64asm.Reg:
			if a >= arm64asm.B0 && a <= arm64asm.V31 {
				k |= kSIMDFP
			}
		case arm64asm.RegisterWithArrangement, arm64asm.RegisterWithArrangementAndIndex:
			k |= kSIMDFP
		}
	}
	return k
}
