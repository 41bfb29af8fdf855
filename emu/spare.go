package emu

/*
#include "hotpath.h"
#include "memory.h"
#include "sites.h"
*/
import "C"

import (
	"errors"
	"fmt"
)

// A CPU whose program ended can be kept as a Spare and made a new CPU for
// another program of its architecture, with the code the emulator
// translated for the first: a shell's children run the shell's code, and
// one dynamically linked program after another runs the same ld.so and
// libc at the same addresses, which then need not be translated again.
//
// The code is kept, not trusted. Every page that held translated code is
// suspect in the new CPU, with a copy of the bytes it held (spare.c). The
// new program's first fetch from a suspect page stops the guest (the TLB
// fill refuses it) and the page is settled: if it holds those bytes its
// code stays, and the page is marked as holding code, like one whose code
// the new program translated, so that a store there discards it; if not,
// its code is discarded. Until settled a page may be mapped, written and
// unmapped at will: only what it holds when code is fetched from it
// counts. A block is entered from the code of another only if it lies in
// one page (the emulator chains jumps to no other), and a block is found
// otherwise by a lookup that fetches from each page it lies in: no code
// runs from a page before it is settled. The TLB is flushed meanwhile, and
// with it the emulator's cache of lookups.
//
// Everything else is the new program's own: registers as at reset, no
// memory, blocks, call tree or sites (the decoder hooks its instructions
// again as it first sees them; unhooking a site discards the code it was
// compiled into). The block hook stays, and counter watches: their hooks
// check the instruction at their address each time.

// Spare is the emulator of a CPU whose program ended.
type Spare struct {
	c *CPU
}

// Spare makes c, whose program ended, a Spare; c is closed. On an error
// (out of memory) the emulator is closed too.
func (c *CPU) Spare() (*Spare, error) {
	c.ctl.mu.Lock()
	defer c.ctl.mu.Unlock()
	n := &CPU{arch: c.arch, model: c.model, uc: c.uc, st: c.st, mem: c.mem, counter: c.counter, reset: c.reset, variant: c.variant}
	n.counter.read, n.counter.remaining = nil, nil
	err := c.dropSites()
	if err == nil {
		err = c.setExit(0)
	}
	if err == nil && C.ic_mem_spare(c.mem) != 0 {
		err = errors.New("emu: out of memory for the code of a spare CPU")
	}
	if err == nil && C.ic_reset(c.st) != 0 {
		err = errOOM
	}
	c.uc, c.st, c.mem, c.reset = nil, nil, nil, nil
	c.handle.Delete()
	c.handle = 0
	if err != nil {
		n.Close()
		return nil, fmt.Errorf("keeping a spare CPU: %w", err)
	}
	return &Spare{c: n}, nil
}

// dropSites removes every site of c, unhooked, and frees them; their cuts
// are not told.
func (c *CPU) dropSites() error {
	var errs []error
	for _, site := range c.sites.at {
		errs = append(errs, check("unhook instruction", C.ic_site_del(c.sites.all, site)))
	}
	c.freeSites()
	return errors.Join(errs...)
}

// Arch returns the architecture of the spare's CPU.
func (s *Spare) Arch() Arch { return s.c.arch }

// Fits tells whether the spare can be made a CPU with opts: its
// translated code calls the variant of the block hook it was made with
// (Unicorn calls a lone hook directly, and replacing it discards the code
// it was compiled into), which must be the one opts call for, with a call
// tree and a region or not, but for a limit: a limited variant (of a CPU
// with a limit, or that ran in slices) also serves a CPU without.
func (s *Spare) Fits(opts Options) bool { return s.c != nil && s.c.variant.serves(variantOf(opts)) }

// CPU makes the spare a CPU with hooks and opts, as New would, but with
// the code translated before (opts.CodeBuffer does not apply: the buffer
// stays); opts must fit. The spare is used up, even on an error.
func (s *Spare) CPU(hooks Hooks, opts Options) (*CPU, error) {
	if !s.Fits(opts) {
		s.Close()
		return nil, errors.New("emu: a spare CPU made with other options")
	}
	c := s.c
	s.c = nil
	err := check("restore the registers at reset", C.uc_context_restore(c.uc, c.reset))
	if err == nil {
		err = check("flush TLB", C.ic_mem_flush_tlb(c.mem))
	}
	if err == nil {
		err = c.start(hooks, opts)
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Close releases the spare's emulator.
func (s *Spare) Close() {
	if s.c != nil {
		s.c.Close()
		s.c = nil
	}
}

// settle settles the suspect page at page, from which the guest fetches:
// its code stays, marked, if the page holds the bytes it was made from;
// otherwise it is discarded.
func (c *CPU) settle(page uint64) error {
	switch C.ic_mem_settle(c.mem, C.uint64_t(page)) {
	case C.IC_SETTLED_CHANGED:
		return c.discardSuspect(page)
	case C.IC_SETTLED_NONE:
		return nil
	}
	switch C.ic_mem_mark_code(c.mem, C.uint64_t(page), C.uint64_t(page+PageSize)) {
	case -1:
		return errOOM
	case 1: // writable: the TLB may hold write access
		return check("flush TLB", C.ic_mem_flush_tlb(c.mem))
	}
	return nil
}

// discardSuspect discards the code of a page settled as changed. No block
// of the running program lies there: it could not fetch from the page.
func (c *CPU) discardSuspect(page uint64) error {
	return check("remove translation cache", C.ic_mem_remove_cache(c.mem, C.uint64_t(page), C.uint64_t(page+PageSize)))
}
