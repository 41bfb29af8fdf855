package emu

/*
#include <stdlib.h>
#include "sites.h"
#include "x87.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"
)

// SiteKind says what the hook of an instruction site does (sites.h).
type SiteKind uint32

// Site kinds; the values match sites.h.
const (
	// SiteIllegal refuses an instruction the emulated CPU does not have
	// as an undefined instruction: the run stops there with a
	// FaultInstruction.
	SiteIllegal SiteKind = C.IC_SITE_ILLEGAL
	// SitePrivileged refuses an instruction a user program may not
	// execute: the run stops there with a FaultPrivileged.
	SitePrivileged SiteKind = C.IC_SITE_PRIVILEGED
	// SiteNop executes the instruction as a no-op (arm64 wfi, wfe).
	SiteNop SiteKind = C.IC_SITE_NOP
	// SiteCmpxchg32 fixes cmpxchg r/m32, r32: hardware leaves RAX's
	// upper half when the values are equal and a register destination
	// whole when they are not. Reg is the destination's 64-bit register
	// (0 for memory).
	SiteCmpxchg32 SiteKind = C.IC_SITE_CMPXCHG32
	// SiteBitScan32 fixes bsf and bsr of 32 bits: a zero source leaves the
	// destination (Reg, its 64-bit register) unchanged.
	SiteBitScan32 SiteKind = C.IC_SITE_BITSCAN32
	// SiteLockNeg executes lock neg m itself (Unicorn takes SF and PF from
	// the operand, not the result), which ends its translated block. Mem
	// is the operand and Size its bytes.
	SiteLockNeg SiteKind = C.IC_SITE_LOCKNEG
	// SiteFPRead folds the FP exceptions the emulator raised into MXCSR
	// and the x87 status word before the instruction reads them
	// (fpstatus.c): stmxcsr, fnstsw, fnstenv, fnsave, fxsave.
	SiteFPRead SiteKind = C.IC_SITE_FPREAD
	// SiteFPLoad follows an instruction that loads MXCSR (Op 1), the x87
	// state (Op 2) or both (Op 3): the exceptions raised before are
	// forgotten, and MXCSR.FZ is applied to SSE arithmetic; or the x87
	// control word alone (Op 4, fldcw). Loads that set DAZ or unmask an
	// exception are counted (DAZLoads, UnmaskedLoads).
	SiteFPLoad SiteKind = C.IC_SITE_FPLOAD
	// SiteX87 executes an x87 instruction on the host's FPU in extended
	// precision (x87.c): Op is its IC_X87_* number; fisttp's store goes
	// to Mem, of Size bytes. An unmasked exception pending in the status
	// word stops the run there with a FaultException 16 (#MF).
	SiteX87 SiteKind = C.IC_SITE_X87
	// SitePopf follows popf: IF stays set and IOPL 0, as for a program
	// at CPL 3, where popf cannot change them (Unicorn runs it at CPL 0).
	SitePopf SiteKind = C.IC_SITE_POPF
	// SiteClientRequest is the last instruction of valgrind's client
	// request sequence (valgrind.h): on hardware a no-op that leaves the
	// request's default value in the result register (x86-64 RDX, arm64
	// X3); here Hooks.ClientRequest is given the address of the request's
	// block of words (x86-64 RAX, arm64 X4) and the default, and its
	// answer goes to the result register. The instruction counts as one
	// and ends its translated block, so that the counts are exact up to
	// it when the hook runs.
	SiteClientRequest SiteKind = C.IC_SITE_CLIENTREQ
	// SiteProbe tells Hooks.Probe that the instruction is about to run,
	// and lets it run. The counts then hold the whole translated block the
	// instruction lies in (a block is counted as it is entered).
	SiteProbe SiteKind = C.IC_SITE_PROBE
)

// The x87 instructions a SiteX87 executes (x87.h's IC_X87_*).
const (
	X87Fsin     = C.IC_X87_FSIN
	X87Fcos     = C.IC_X87_FCOS
	X87Fsincos  = C.IC_X87_FSINCOS
	X87Fptan    = C.IC_X87_FPTAN
	X87Fpatan   = C.IC_X87_FPATAN
	X87Fyl2x    = C.IC_X87_FYL2X
	X87Fyl2xp1  = C.IC_X87_FYL2XP1
	X87F2xm1    = C.IC_X87_F2XM1
	X87Fprem    = C.IC_X87_FPREM
	X87Fprem1   = C.IC_X87_FPREM1
	X87Fxtract  = C.IC_X87_FXTRACT
	X87Fscale   = C.IC_X87_FSCALE
	X87Fisttp16 = C.IC_X87_FISTTP16
	X87Fisttp32 = C.IC_X87_FISTTP32
	X87Fisttp64 = C.IC_X87_FISTTP64
	X87Fldl2t   = C.IC_X87_FLDL2T
	X87Fldl2e   = C.IC_X87_FLDL2E
	X87Fldpi    = C.IC_X87_FLDPI
	X87Fldlg2   = C.IC_X87_FLDLG2
	X87Fldln2   = C.IC_X87_FLDLN2
)

// MemOperand is an x86-64 memory operand: Base + Index*Scale + Disp, plus
// the base of Seg (X86FSBase, X86GSBase or 0), truncated to 32 bits with
// Addr32; RIPRelative adds the next instruction's address instead of a
// base register.
type MemOperand struct {
	Base, Index, Seg Reg
	RIPRelative      bool
	Scale            uint32
	Disp             int64
	Addr32           bool
}

// Site is one instruction the decoder hooks.
type Site struct {
	PC   uint64
	Len  int
	Kind SiteKind
	Reg  Reg // the register operand the kind names, 0 for none
	Size int // the operand's bytes (SiteLockNeg, SiteX87)
	Op   int // SiteX87: the instruction; SiteFPLoad: what it loads
	Mem  *MemOperand
}

// siteTable is a CPU's sites, by address.
type siteTable struct {
	all  *C.ic_sites
	at   map[uint64]*C.ic_site
	cuts func(b Block, from, n uint64) uint32
}

// SetSiteCuts gives the CPU what records the cuts of a site that moves
// the PC, and so ends its translated block: cuts records that n
// executions of block b stopped before the instruction at from and
// returns how many instructions of b lie at or after from (0 when from
// is not in b). n may be 0: a question only.
func (c *CPU) SetSiteCuts(cuts func(b Block, from, n uint64) uint32) { c.sites.cuts = cuts }

// AddSite hooks the instruction at s.PC, and the one after it for a kind
// that fixes a result. It reports whether a hook was added: the code
// translated there was discarded, and a block being entered must restart
// (BlockInfo.Restart) for its translation to have the hook. An address
// hooked already keeps its first site.
func (c *CPU) AddSite(s Site) (bool, error) {
	if s.Len <= 0 || s.Kind == 0 {
		return false, fmt.Errorf("emu: site at %#x: bad length %d or kind %d", s.PC, s.Len, s.Kind)
	}
	if c.sites.all == nil {
		c.sites.all = C.ic_sites_new(c.st)
		if c.sites.all == nil {
			return false, errOOM
		}
		c.st.sites = c.sites.all
		c.sites.at = map[uint64]*C.ic_site{}
	}
	if c.sites.at[s.PC] != nil {
		return false, nil // hooked for another block holding it
	}
	var err C.uc_err
	site := C.ic_site_add(c.sites.all, C.uint64_t(s.PC), C.uint32_t(s.Len), C.uint32_t(s.Kind), &err)
	if site == nil {
		return false, check(fmt.Sprintf("hook instruction at %#x", s.PC), err)
	}
	site.reg, site.size, site.op = C.int32_t(s.Reg), C.uint32_t(s.Size), C.uint32_t(s.Op)
	if s.Kind == SiteClientRequest {
		args, result := clientRequestRegs(c.arch)
		site.reg, site.reg2 = C.int32_t(args), C.int32_t(result)
	}
	if m := s.Mem; m != nil {
		site.mem = C.ic_memop{base: C.int32_t(m.Base), index: C.int32_t(m.Index), seg: C.int32_t(m.Seg),
			scale: C.uint32_t(m.Scale), disp: C.int64_t(m.Disp)}
		if m.RIPRelative {
			site.mem.base = -1
		}
		if m.Addr32 {
			site.mem.addr32 = 1
		}
	}
	c.sites.at[s.PC] = site
	return true, nil
}

// clientRequestRegs are the registers of valgrind's client request ABI:
// the one holding the address of the request's words, and the one holding
// the default value, which gets the result.
func clientRequestRegs(a Arch) (args, result Reg) {
	if a == X86_64 {
		return X86RAX, X86RDX
	}
	return ARM64X(4), ARM64X(3)
}

// DropSites removes the sites in [addr, addr+size), whose code changes:
// the decoder hooks what the new code holds when it first runs.
func (c *CPU) DropSites(addr, size uint64) error {
	var errs []error
	for pc, site := range c.sites.at {
		if pc >= addr && pc-addr < size {
			C.ic_site_cuts(site)
			errs = append(errs, check("unhook instruction", C.ic_site_del(c.sites.all, site)))
			C.free(unsafe.Pointer(site))
			delete(c.sites.at, pc)
		}
	}
	return errors.Join(errs...)
}

// FlushSiteCuts tells SetSiteCuts' function every cut the sites counted
// and have not told yet: call it before reading per-instruction counts.
func (c *CPU) FlushSiteCuts() {
	for _, site := range c.sites.at {
		C.ic_site_cuts(site)
	}
}

// takeRefusal reports, once, the site that refused its instruction and
// stopped the run.
func (c *CPU) takeRefusal() (pc uint64, kind SiteKind, ok bool) {
	ss := c.sites.all
	if ss == nil || ss.refused_kind == 0 {
		return 0, 0, false
	}
	pc, kind = uint64(ss.refused_pc), SiteKind(ss.refused_kind)
	ss.refused_pc, ss.refused_kind = 0, 0
	return pc, kind, true
}

// DAZLoads returns how many times the guest loaded MXCSR with DAZ set
// (SiteFPLoad).
func (c *CPU) DAZLoads() uint64 {
	if c.sites.all == nil {
		return 0
	}
	return uint64(c.sites.all.daz_loads)
}

// UnmaskedLoads returns how many times the guest loaded MXCSR and the x87
// control word with an exception unmasked (SiteFPLoad).
func (c *CPU) UnmaskedLoads() (sse, x87 uint64) {
	if c.sites.all == nil {
		return 0, 0
	}
	return uint64(c.sites.all.unmasked_sse), uint64(c.sites.all.unmasked_x87)
}

// refused tells whether a site stopped the last run.
func (c *CPU) refused() bool { return c.sites.all != nil && c.sites.all.refused_kind != 0 }

// settleSites makes, after a run, the repair of a fix whose instruction
// ran last (see ic_sites_settle).
func (c *CPU) settleSites(runErr error) {
	if c.sites.all == nil || c.sites.all.armed == nil {
		return
	}
	var f *Fault
	faulted := errors.As(runErr, &f)
	pc := uint64(0)
	if faulted {
		pc = f.PC
	}
	C.ic_sites_settle(c.sites.all, boolInt(faulted), C.uint64_t(pc))
}

func boolInt(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// freeSites releases the sites' memory; after uc_close.
func (c *CPU) freeSites() {
	for pc, site := range c.sites.at {
		C.free(unsafe.Pointer(site))
		delete(c.sites.at, pc)
	}
	if c.sites.all != nil {
		C.free(unsafe.Pointer(c.sites.all))
		c.sites.all = nil
	}
}

//export icountGoSiteCuts
func icountGoSiteCuts(h C.uintptr_t, id C.uint32_t, addr C.uint64_t, size C.uint32_t, from C.uint64_t, n C.uint64_t) (after C.uint32_t) {
	c := cpuOf(h)
	if c.sites.cuts == nil {
		return 0
	}
	c.guard(func() {
		after = C.uint32_t(c.sites.cuts(Block{ID: uint32(id), Addr: uint64(addr), Size: uint32(size)}, uint64(from), uint64(n)))
	})
	return after
}

//export icountGoClientRequest
func icountGoClientRequest(h C.uintptr_t, args, def C.uint64_t) (result C.uint64_t) {
	c := cpuOf(h)
	result = def
	if c.hooks.ClientRequest != nil {
		c.guard(func() { result = C.uint64_t(c.hooks.ClientRequest(uint64(args), uint64(def))) })
	}
	return result
}

//export icountGoProbe
func icountGoProbe(h C.uintptr_t, pc C.uint64_t) {
	c := cpuOf(h)
	if c.hooks.Probe != nil {
		c.guard(func() { c.hooks.Probe(uint64(pc)) })
	}
}
