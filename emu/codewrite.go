package emu

// #include "hotpath.h"
import "C"

// Stores into translated code. The emulator translates guest code once
// and runs the translation until told it is stale, and Unicorn's own check
// of stores into code (QEMU's dirty-page tracking) misses most of them. So
// icount does what QEMU's user mode does with host page protection, in its
// own page table: a block first seen marks its pages as holding code
// (IC_CODE, hotpath.c), and the TLB never gives such a page write access,
// flushed of the write access it had when a writable page is marked. A
// guest store into a marked page then reaches the TLB fill hook, which
// refuses it as a store into code; the run stops at the store with the
// registers as they were before it, and emulate below takes back the
// instructions of the block from the store on, discards the page's
// translations and blocks, clears its mark (it is writable from then on,
// until code there runs again) and resumes at the store: the store and what
// follows run as new blocks, from the memory as it is then. A block that
// writes into itself thus counts what ran, and runs what it wrote.
//
// When the store's own code lies in the page it writes, the block that
// resumes at the store would mark the page again and be refused again:
// the store then runs as one instruction with marking held off, and the
// block that ran it (translated before the store, so perhaps stale) is
// discarded after it. Pages that are not writable never take this path,
// and pages holding no code are not touched: ordinary code pays nothing
// but the marking of each page once.

// emulate runs the guest from pc as uc_emu_start does with count (0: no
// limit), taking each store into translated code on the way. It returns
// what the last uc_emu_start returned and what is left of count for it
// (count itself when nothing was taken): a count-limited run ends exactly
// when that is 0. An error is one of discarding code.
func (c *CPU) emulate(pc, count uint64, locate Locator) (C.uc_err, uint64, error) {
	step := false
	for {
		var err C.uc_err
		var before uint64
		if count != 0 && c.mem.unsettled != 0 {
			before = c.Executed() // what ran before a page to settle
		}
		if step {
			var ran bool
			var herr error
			if err, ran, herr = c.step(pc, count, locate); herr != nil {
				return err, count, herr
			}
			if ran {
				step = false
				if count != 0 {
					if count--; count == 0 {
						return err, 0, nil
					}
				}
				pc = c.PC()
				continue
			}
		} else {
			err = C.ic_emu_start(c.st, C.uint64_t(pc), C.size_t(count))
		}
		if c.panicked != nil || c.st.oom != 0 {
			return err, count, nil
		}
		r := c.lastRefusal()
		if err == C.UC_ERR_EXCEPTION && c.exception == 0 && r.ok && r.suspect {
			// A fetch from a page an earlier program left code in: every
			// block before it completed, and it goes on once settled.
			if count != 0 {
				count -= min(c.Executed()-before, count-1)
			}
			c.clearRefusal()
			if herr := c.settle(r.page &^ (PageSize - 1)); herr != nil {
				return err, count, herr
			}
			pc = c.PC()
			continue
		}
		if err != C.UC_ERR_EXCEPTION || c.exception != 0 || !r.ok || !r.code {
			return err, count, nil
		}
		pc = c.PC()
		page := r.page &^ (PageSize - 1)
		done, codeHere, herr := c.storeIntoCode(pc, page, locate)
		if herr != nil {
			return err, count, herr
		}
		if count != 0 {
			count -= min(done, count-1)
		}
		// Refused again in a step (another page), or in the block resumed
		// at the store, which lay in the page too: a step.
		step = step || codeHere
	}
}

// storeIntoCode takes a store at pc into page, which holds code: it takes
// back the instructions of the current block from the store on and
// discards the page's code, which can then be written. It returns how many
// instructions of the block completed, and whether the store's own code
// may lie in that page.
func (c *CPU) storeIntoCode(pc, page uint64, locate Locator) (done uint64, codeHere bool, err error) {
	end := pc + 16 // the store itself (an x86-64 instruction is at most 15 bytes)
	if b := c.st.cur; b != nil {
		end = max(end, uint64(b.addr)+uint64(b.size))
		done = uint64(b.ninsn) - uint64(c.cutFrom(pc, locate))
	}
	c.st.cur = nil // resumed mid-block: what follows is not a call's target
	c.clearRefusal()
	if err := c.InvalidateCode(page, PageSize); err != nil {
		return done, false, err
	}
	return done, pc < page+PageSize && end > page, nil
}

// step runs the store at pc by itself, its blocks marking no page, and
// discards the code translated to run it, which was translated before the
// store ran; it reports whether the store ran. The emulator stops after it
// at an exit address where the instruction ends (Hooks.InsnEnd). Without
// that, Unicorn's count of one instruction does, but the next run without
// a count then flushes every translation. Whatever else ends the run is
// the caller's to take, as a stop, an instruction limit or a fault at the
// store, which is taken back here.
func (c *CPU) step(pc, count uint64, locate Locator) (err C.uc_err, ran bool, herr error) {
	next := uint64(0)
	if c.hooks.InsnEnd != nil {
		next = c.hooks.InsnEnd(pc)
	}
	n, exit := count, c.exit
	if next > pc {
		// Translations from before hold no exit there.
		if herr := c.InvalidateCode(pc, next+1-pc); herr != nil {
			return 0, false, herr
		}
		if herr := c.setExit(next); herr != nil {
			return 0, false, herr
		}
	} else {
		n, next = 1, pc+1
	}
	before := c.st.cur
	c.mem.hold_marks, c.mem.held_lo, c.mem.held_hi = 1, C.uint64_t(pc), C.uint64_t(pc)
	err = C.ic_emu_start(c.st, C.uint64_t(pc), C.size_t(n))
	c.mem.hold_marks = 0
	if herr := c.setExit(exit); herr != nil {
		return err, false, herr
	}
	stepped := c.st.cur != before // the hook of the step's block ran
	ran = err == C.UC_ERR_OK && c.exception == 0 && c.st.limit_hit == 0 && c.st.stop_hit == 0 && c.panicked == nil
	switch {
	case ran:
		c.cutFrom(c.PC(), locate) // nothing, unless the block went on past the store
	case stepped && c.st.stop_hit == 0:
		// A fault at the store, or a store into other code: it did not
		// complete (a stop is taken back by the caller, stopped).
		c.cutFrom(pc, locate)
	}
	lo := min(pc, uint64(c.mem.held_lo)) &^ (PageSize - 1)
	hi := (max(next+1, uint64(c.mem.held_hi)) + PageSize - 1) &^ (PageSize - 1)
	// Marked first, for InvalidateCode to find code there.
	if C.ic_mem_mark_code(c.mem, C.uint64_t(lo), C.uint64_t(hi)) < 0 {
		return err, false, errOOM
	}
	if herr := c.InvalidateCode(lo, hi-lo); herr != nil {
		return err, false, herr
	}
	if ran || c.lastRefusal().code {
		c.st.cur = nil // resumed mid-block: what follows is not a call's target
	}
	return err, ran, nil
}

// cutFrom takes back the instructions of the current block from pc on,
// which did not run (the Locator counts them); it returns how many.
func (c *CPU) cutFrom(pc uint64, locate Locator) uint32 {
	b := c.st.cur
	if b == nil || locate == nil {
		return 0
	}
	_, n := locate(blockOf(b), &Fault{PC: pc, Kind: FaultOther})
	if n > 0 {
		C.ic_cut(c.st, C.uint32_t(n))
	}
	return n
}
