package kernel

import (
	"encoding/binary"

	"github.com/icount-dev/icount/emu"
	"golang.org/x/sys/unix"
)

// The arm64 signal frame (arch/arm64/kernel/signal.c, uapi/asm/ucontext.h
// and uapi/asm/sigcontext.h), at the handler's sp:
//
//	   0  siginfo (128 bytes)
//	 128  struct ucontext (4560 bytes):
//	        0 uc_flags, 8 uc_link, 16 uc_stack (stack_t, 24 bytes),
//	       40 uc_sigmask (8 bytes, padded to glibc's 128),
//	      176 uc_mcontext (struct sigcontext, 16-byte aligned):
//	            0 fault_address, 8 regs[31], 256 sp, 264 pc,
//	            272 pstate, 288 __reserved[4096]: records, each
//	            {magic, size}, ended by a null one: fpsimd_context
//	            (fpsr, fpcr, v0..v31), then esr_context for a fault
//	4688  frame record {x29, x30}, to which the handler's x29 points
//
// The handler returns to sa_restorer with SA_RESTORER, else to the vDSO's
// sigreturn trampoline: icount maps no vDSO, so it maps a page of its own
// holding the same two instructions.
const (
	a64UcOff       = 128
	a64UcSize      = 4560
	a64McOff       = 176 // in the ucontext
	a64ReservedOff = 288 // in the sigcontext
	a64FrameSize   = a64UcOff + a64UcSize

	esrMagic     = 0x45535201
	fpsimdMagic  = 0x46508001
	fpsimdSize   = 16 + 32*16 // {magic, size}, fpsr, fpcr, vregs[32]
	esrECDabt    = 0x24       // data abort from EL0
	esrECIabt    = 0x20       // instruction abort from EL0
	esrIL        = 1 << 25
	esrWnR       = 1 << 6
	fscTransL3   = 0x07
	fscPermL3    = 0x0f
	fscAlignment = 0x21

	rtSigreturnAArch64Nr = 139
)

// sigtrampARM64 is where icount maps its sigreturn trampoline: the page
// above the initial stack.
const sigtrampARM64 = 0xfffffffff000

// sigtrampCode is `mov x8, #139; svc #0`.
var sigtrampCode = []byte{0x68, 0x11, 0x80, 0xd2, 0x01, 0x00, 0x00, 0xd4}

// sigtramp returns the trampoline's address, mapping it the first time.
func (p *Process) sigtramp() (uint64, error) {
	if !p.mm.mapped(sigtrampARM64, sigtrampARM64+emu.PageSize) {
		if err := p.mm.Map(sigtrampARM64, emu.PageSize, emu.ProtRead|emu.ProtExec, "[sigpage]"); err != nil {
			return 0, err
		}
		if err := p.cpu.Write(sigtrampARM64, sigtrampCode); err != nil {
			return 0, err
		}
	}
	return sigtrampARM64, nil
}

// frameARM64 writes the frame for d and enters its handler; false when
// the frame cannot be written (the stack is not writable memory).
func (p *Process) frameARM64(d *sigDelivery) (bool, error) {
	cpu := p.cpu
	le := binary.LittleEndian
	ret := d.act.restorer
	if d.act.flags&saRestorer == 0 {
		var err error
		if ret, err = p.sigtramp(); err != nil {
			return false, err
		}
	}
	d.ret = ret
	sp, ucStack := p.signalStack(d, cpu.Reg(emu.ARM64SP))
	record := (sp - 16) &^ 15
	frame := record - a64FrameSize

	b := make([]byte, a64FrameSize+16)
	copy(b, d.info)
	uc := b[a64UcOff : a64UcOff+a64UcSize]
	copy(uc[16:40], ucStack)
	le.PutUint64(uc[40:], d.mask)
	mc := uc[a64McOff:]
	for i := 0; i < 31; i++ {
		le.PutUint64(mc[8+8*i:], cpu.Reg(emu.ARM64X(i)))
	}
	le.PutUint64(mc[256:], cpu.Reg(emu.ARM64SP))
	le.PutUint64(mc[264:], cpu.Reg(emu.ARM64PC))
	le.PutUint64(mc[272:], cpu.Reg(emu.ARM64NZCV)&0xf0000000)
	rec := mc[a64ReservedOff:]
	le.PutUint32(rec, fpsimdMagic)
	le.PutUint32(rec[4:], fpsimdSize)
	le.PutUint32(rec[8:], uint32(cpu.Reg(emu.ARM64FPSR)))
	le.PutUint32(rec[12:], uint32(cpu.Reg(emu.ARM64FPCR)))
	for i := 0; i < 32; i++ {
		copy(rec[16+16*i:], cpu.RegBytes(emu.ARM64Q(i), 16))
	}
	rec = rec[fpsimdSize:]
	if f := d.fault; f != nil {
		le.PutUint64(mc, f.Addr)
		if esr := esrOf(f); esr != 0 {
			le.PutUint32(rec, esrMagic)
			le.PutUint32(rec[4:], 16)
			le.PutUint64(rec[8:], esr)
		}
	}
	le.PutUint64(b[a64FrameSize:], cpu.Reg(emu.ARM64X29))
	le.PutUint64(b[a64FrameSize+8:], cpu.Reg(emu.ARM64X30))
	if err := p.writeMem(frame, b); err != nil {
		if err == unix.EFAULT {
			return false, nil
		}
		return false, err
	}

	for _, w := range []struct {
		r emu.Reg
		v uint64
	}{
		{emu.ARM64X0, uint64(d.sig)}, {emu.ARM64X(1), frame}, {emu.ARM64X(2), frame + a64UcOff},
		{emu.ARM64SP, frame}, {emu.ARM64X29, record}, {emu.ARM64X30, ret}, {emu.ARM64PC, d.act.handler},
	} {
		if err := cpu.SetReg(w.r, w.v); err != nil {
			return false, err
		}
	}
	return true, nil
}

// esrOf is the ESR an arm64 handler is shown for a fault (its esr_context
// record), 0 when Linux shows none.
func esrOf(f *FaultSignal) uint64 {
	switch {
	case f.Memory:
		ec, fsc := uint64(esrECDabt), uint64(fscTransL3)
		if f.Fetch {
			ec = esrECIabt
		}
		if f.Signo == sigSEGV && f.Code == segvAccerr {
			fsc = fscPermL3
		}
		esr := ec<<26 | esrIL | fsc
		if f.Write && !f.Fetch {
			esr |= esrWnR
		}
		return esr
	case f.Signo == sigBUS:
		return esrECDabt<<26 | esrIL | fscAlignment
	}
	return 0
}

// sigreturnARM64 takes back the frame at sp: the registers, the mask and
// the alternate stack.
func (p *Process) sigreturnARM64() (uint64, error) {
	le := binary.LittleEndian
	sp := p.cpu.Reg(emu.ARM64SP)
	if sp%16 != 0 {
		return p.sigreturnFailed()
	}
	uc, err := p.readMem(sp+a64UcOff, a64UcSize)
	if err != nil {
		return p.sigreturnFailed()
	}
	mc := uc[a64McOff:]
	mask := le.Uint64(uc[40:]) &^ unblockable
	return p.afterSigreturn(func() error {
		if err := restoreFPSIMD(p.cpu, mc[a64ReservedOff:]); err != nil {
			return err
		}
		for i := 0; i < 31; i++ {
			if err := p.cpu.SetReg(emu.ARM64X(i), le.Uint64(mc[8+8*i:])); err != nil {
				return err
			}
		}
		for _, w := range []struct {
			r emu.Reg
			v uint64
		}{
			{emu.ARM64SP, le.Uint64(mc[256:])}, {emu.ARM64PC, le.Uint64(mc[264:])},
			{emu.ARM64NZCV, le.Uint64(mc[272:]) & 0xf0000000},
		} {
			if err := p.cpu.SetReg(w.r, w.v); err != nil {
				return err
			}
		}
		p.k.cur.sig.mask = mask
		p.restoreAltstack(uc[16:40], le.Uint64(mc[256:]))
		return nil
	})
}

// restoreFPSIMD loads the FP/SIMD registers from the fpsimd_context among
// the records of a frame's __reserved, if there is one.
func restoreFPSIMD(cpu CPU, recs []byte) error {
	le := binary.LittleEndian
	for len(recs) >= 8 {
		magic, size := le.Uint32(recs), le.Uint32(recs[4:])
		if magic == 0 || size < 8 || int(size) > len(recs) {
			return nil
		}
		if magic == fpsimdMagic && size >= fpsimdSize {
			if err := cpu.SetReg(emu.ARM64FPSR, uint64(le.Uint32(recs[8:]))); err != nil {
				return err
			}
			if err := cpu.SetReg(emu.ARM64FPCR, uint64(le.Uint32(recs[12:]))); err != nil {
				return err
			}
			for i := 0; i < 32; i++ {
				if err := cpu.SetRegBytes(emu.ARM64Q(i), recs[16+16*i:32+16*i]); err != nil {
					return err
				}
			}
			return nil
		}
		recs = recs[size:]
	}
	return nil
}
