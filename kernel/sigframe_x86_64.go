package kernel

import (
	"encoding/binary"

	"github.com/icount-dev/icount/emu"
	"golang.org/x/sys/unix"
)

// The x86-64 signal frame (arch/x86/include/asm/sigframe.h and
// uapi/asm/sigcontext.h), at the handler's rsp:
//
//	  0  pretcode: the handler's return address, sa_restorer
//	  8  struct ucontext (304 bytes):
//	       0 uc_flags, 8 uc_link, 16 uc_stack (stack_t, 24 bytes),
//	      40 uc_mcontext (struct sigcontext, 256 bytes):
//	           r8..r15, rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip,
//	           eflags (8 bytes each, from 0), cs, gs, fs, ss (2 each,
//	           144), err 152, trapno 160, oldmask 168, cr2 176,
//	           fpstate 184 (the FP state's address), reserved 192
//	     296 uc_sigmask
//	312  siginfo (128 bytes)
//
// The FP state goes below the interrupted rsp's 128-byte red zone (or at
// the top of the alternate stack), 64-byte aligned, in FXSAVE's layout
// with no XSAVE header (as Linux writes it for a CPU without XSAVE, which
// the emulated qemu64 is); the frame goes below it, with rsp+8 16-byte
// aligned as after a call.
const (
	x86UcOff     = 8
	x86UcSize    = 304
	x86McOff     = 40
	x86MaskOff   = 296
	x86InfoOff   = x86UcOff + x86UcSize
	x86FrameSize = x86InfoOff + 128
	x86RedZone   = 128
	x86FxsaveLen = 512

	ucSigcontextSS      = 2
	ucStrictRestoreSS   = 4
	x86UserCS           = 0x33
	x86UserSS           = 0x2b
	x86TrapPageFault    = 14
	x86PFProt           = 1
	x86PFWrite          = 2
	x86PFUser           = 4
	x86PFInstr          = 0x10
	x86FlagsTF          = 0x100
	x86FlagsDF          = 0x400
	x86FlagsRF          = 0x10000
	x86FlagsRestorable  = 0x40000 | 0x800 | 0x400 | 0x100 | 0x80 | 0x40 | 0x10 | 0x4 | 0x1 | 0x10000 // AC OF DF TF SF ZF AF PF CF RF
	rtSigreturnX86_64Nr = 15
)

// x86SigRegs are sigcontext's registers, in its order.
var x86SigRegs = [...]emu.Reg{
	emu.X86R8, emu.X86R9, emu.X86R10, emu.X86R11, emu.X86R12, emu.X86R13, emu.X86R14, emu.X86R15,
	emu.X86RDI, emu.X86RSI, emu.X86RBP, emu.X86RBX, emu.X86RDX, emu.X86RAX, emu.X86RCX, emu.X86RSP,
	emu.X86RIP, emu.X86EFLAGS,
}

// frameX86 writes the frame for d and enters its handler; false when the
// frame cannot be written (the stack is not writable memory).
func (p *Process) frameX86(d *sigDelivery) (bool, error) {
	cpu := p.cpu
	le := binary.LittleEndian
	sp, ucStack := p.signalStack(d, cpu.Reg(emu.X86RSP)-x86RedZone)
	fpstate := (sp - x86FxsaveLen) &^ 63
	frame := (fpstate-x86FrameSize)&^15 - 8
	if err := p.writeMem(fpstate, fxsaveX86(cpu)); err != nil {
		if err == unix.EFAULT {
			return false, nil
		}
		return false, err
	}

	b := make([]byte, x86FrameSize)
	if d.act.flags&saRestorer != 0 {
		le.PutUint64(b, d.act.restorer)
		d.ret = d.act.restorer
	}
	uc := b[x86UcOff : x86UcOff+x86UcSize]
	le.PutUint64(uc, ucSigcontextSS|ucStrictRestoreSS)
	copy(uc[16:40], ucStack)
	mc := uc[x86McOff:x86MaskOff]
	for i, r := range x86SigRegs {
		le.PutUint64(mc[8*i:], cpu.Reg(r))
	}
	le.PutUint64(mc[184:], fpstate)
	le.PutUint16(mc[144:], x86UserCS)
	le.PutUint16(mc[150:], x86UserSS)
	if f := d.fault; f != nil {
		trapno, errCode, cr2 := f.Trapno, uint64(0), uint64(0)
		if f.Memory {
			trapno, errCode, cr2 = x86TrapPageFault, x86PFUser, f.Addr
			if f.Write {
				errCode |= x86PFWrite
			}
			if f.Fetch {
				errCode |= x86PFInstr
			}
			if f.Signo == sigSEGV && f.Code == segvAccerr {
				errCode |= x86PFProt
			}
		}
		le.PutUint64(mc[152:], errCode)
		le.PutUint64(mc[160:], trapno)
		le.PutUint64(mc[176:], cr2)
	}
	le.PutUint64(mc[168:], d.mask&0xffffffff)
	le.PutUint64(uc[x86MaskOff:], d.mask)
	copy(b[x86InfoOff:], d.info)
	if err := p.writeMem(frame, b); err != nil {
		if err == unix.EFAULT {
			return false, nil
		}
		return false, err
	}

	// The handler starts with the FPU and SSE state of a new process, as
	// Linux gives it (the interrupted state is in the frame).
	if err := restoreFxsaveX86(cpu, initFxsaveX86()); err != nil {
		return false, err
	}
	flags := cpu.Reg(emu.X86EFLAGS) &^ (x86FlagsDF | x86FlagsTF | x86FlagsRF)
	for _, w := range []struct {
		r emu.Reg
		v uint64
	}{
		{emu.X86RDI, uint64(d.sig)}, {emu.X86RSI, frame + x86InfoOff}, {emu.X86RDX, frame + x86UcOff},
		{emu.X86RAX, 0}, {emu.X86RSP, frame}, {emu.X86EFLAGS, flags}, {emu.X86RIP, d.act.handler},
	} {
		if err := cpu.SetReg(w.r, w.v); err != nil {
			return false, err
		}
	}
	return true, nil
}

// sigreturnX86 takes back the frame whose pretcode the handler's ret
// popped: the registers, the mask and the alternate stack.
func (p *Process) sigreturnX86() (uint64, error) {
	le := binary.LittleEndian
	frame := p.cpu.Reg(emu.X86RSP) - 8 // the handler's ret popped pretcode
	uc, err := p.readMem(frame+x86UcOff, x86UcSize)
	if err != nil {
		return p.sigreturnFailed()
	}
	mc := uc[x86McOff:x86MaskOff]
	mask := le.Uint64(uc[x86MaskOff:]) &^ unblockable
	var fp []byte
	if addr := le.Uint64(mc[184:]); addr != 0 {
		if fp, err = p.readMem(addr, x86FxsaveLen); err != nil {
			return p.sigreturnFailed()
		}
	}
	return p.afterSigreturn(func() error {
		if fp != nil {
			if err := restoreFxsaveX86(p.cpu, fp); err != nil {
				return err
			}
		}
		for i, r := range x86SigRegs {
			v := le.Uint64(mc[8*i:])
			if r == emu.X86EFLAGS {
				v = p.cpu.Reg(r)&^x86FlagsRestorable | v&x86FlagsRestorable
			}
			if err := p.cpu.SetReg(r, v); err != nil {
				return err
			}
		}
		p.k.cur.sig.mask = mask
		p.restoreAltstack(uc[16:40], le.Uint64(mc[8*15:]))
		return nil
	})
}

// fxsaveX86 is the x87 and SSE state in FXSAVE's layout: control, status,
// abridged tags (a bit a register, set when it holds a value), opcode,
// MXCSR and its mask, ST(0)..ST(7) in 16 bytes each, XMM0..XMM15.
func fxsaveX86(cpu CPU) []byte {
	le := binary.LittleEndian
	b := make([]byte, x86FxsaveLen)
	le.PutUint16(b[0:], uint16(cpu.Reg(emu.X86FPCW)))
	le.PutUint16(b[2:], uint16(cpu.Reg(emu.X86FPSW)))
	tags := cpu.Reg(emu.X86FPTAG)
	for i := 0; i < 8; i++ {
		if (tags>>(2*i))&3 != 3 {
			b[4] |= 1 << i
		}
	}
	le.PutUint16(b[6:], uint16(cpu.Reg(emu.X86FOP)))
	le.PutUint32(b[24:], uint32(cpu.Reg(emu.X86MXCSR)))
	le.PutUint32(b[28:], x86MXCSRMask)
	for i := 0; i < 8; i++ {
		copy(b[32+16*i:], cpu.RegBytes(emu.X86ST(i), 10))
	}
	for i := 0; i < 16; i++ {
		copy(b[160+16*i:], cpu.RegBytes(emu.X86XMM(i), 16))
	}
	return b
}

// initFxsaveX86 is the FXSAVE image of the state a process starts with:
// the control word and MXCSR of a fresh process, an empty x87 stack and
// every register zero.
func initFxsaveX86() []byte {
	b := make([]byte, x86FxsaveLen)
	binary.LittleEndian.PutUint16(b[0:], x86InitFCW)
	binary.LittleEndian.PutUint32(b[24:], x86InitMXCSR)
	return b
}

// x86MXCSRMask is the MXCSR bits the CPU implements, as FXSAVE reports.
const x86MXCSRMask = 0xffff

// restoreFxsaveX86 loads the state fxsaveX86 wrote, as a handler may have
// changed it.
func restoreFxsaveX86(cpu CPU, b []byte) error {
	le := binary.LittleEndian
	var tags uint64
	for i := 0; i < 8; i++ {
		if b[4]&(1<<i) == 0 {
			tags |= 3 << (2 * i) // empty
		}
	}
	for _, w := range []struct {
		r emu.Reg
		v uint64
	}{
		// The status word first: its TOP places ST(0).
		{emu.X86FPCW, uint64(le.Uint16(b[0:]))}, {emu.X86FPSW, uint64(le.Uint16(b[2:]))},
		{emu.X86FOP, uint64(le.Uint16(b[6:]))}, {emu.X86MXCSR, uint64(le.Uint32(b[24:]) & x86MXCSRMask)},
	} {
		if err := cpu.SetReg(w.r, w.v); err != nil {
			return err
		}
	}
	for i := 0; i < 8; i++ {
		if err := cpu.SetRegBytes(emu.X86ST(i), b[32+16*i:32+16*i+10]); err != nil {
			return err
		}
	}
	for i := 0; i < 16; i++ {
		if err := cpu.SetRegBytes(emu.X86XMM(i), b[160+16*i:160+16*i+16]); err != nil {
			return err
		}
	}
	return cpu.SetReg(emu.X86FPTAG, tags)
}
