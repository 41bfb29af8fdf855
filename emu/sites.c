// Instruction sites (sites.h): one UC_HOOK_CODE hook on a single address
// per site, added when the decoder first sees the block holding it. A
// hook runs before its instruction; what it does depends on the site's
// kind: refuse the instruction (stop the run there, for Go to deliver the
// signal), execute it as a no-op, or fix what the emulated CPU computes
// wrongly. A fix that needs the instruction's result saves what it needs
// and arms itself; its hook covers the next instruction too, where it (or
// the hook of a site there, whichever runs first) repairs the result. A
// jump straight to the next instruction finds nothing armed.
#include "sites.h"

#include <stdlib.h>

#include "_cgo_export.h"
#include "fpstatus.h"
#include "x87.h"

ic_sites *ic_sites_new(ic_state *s) {
	ic_sites *ss = calloc(1, sizeof *ss);
	if (!ss) return NULL;
	ss->s = s;
	return ss;
}

// ic_restart restarts the block at addr, whose first-sight hook added a
// site or a counter read's hook to it: its translation was discarded, and
// writing the PC from the block hook leaves the translated block before
// its first instruction. Nothing of this entry was counted (count_block).
void ic_restart(ic_state *s, uint64_t addr) {
	s->restart = 0;
	uc_reg_write(s->uc, s->pc_reg, &addr);
}

// site_cut takes back the instructions of the current block's execution
// from the one at from on: the hook moves the PC, which ends the
// translated block. Go says how many there are (and records where the
// execution stopped) once per block the site runs in; the count is kept
// for the block it ran in last, and the cuts of that block are told to Go
// when the site runs in another (or when Go asks, ic_site_cuts).
static void site_cut(ic_sites *ss, ic_site *site, uint64_t from) {
	ic_state *s = ss->s;
	ic_block *b = s->cur;
	if (!b) return;
	if (b->id != site->cut_block || from != site->cut_from) {
		ic_site_cuts(site);
		site->cut_block = b->id;
		site->cut_addr = b->addr;
		site->cut_size = b->size;
		site->cut_from = from;
		site->cut_after = icountGoSiteCuts(s->handle, b->id, b->addr, b->size, from, 0);
	}
	site->cut_pending++;
	ic_cut(s, site->cut_after);
}

// ic_site_skip ends an instruction a site's hook executed itself: the
// instruction counts as one, and moving the PC past it ends the translated
// block there, so the instructions after it in the block are taken back
// (they run, and count, as a block of their own). A kind that emulates its
// instruction calls it last.
void ic_site_skip(ic_sites *ss, ic_site *site, uint64_t addr) {
	uint64_t next = addr + site->len;
	site_cut(ss, site, next);
	uc_reg_write(ss->s->uc, ss->s->pc_reg, &next);
}

// parity is PF for a result's low byte: set for an even number of ones.
static int parity(uint64_t v) { return !__builtin_parity((unsigned)(v & 0xff)); }

#define FLAG_CF 0x1
#define FLAG_PF 0x4
#define FLAG_AF 0x10
#define FLAG_ZF 0x40
#define FLAG_SF 0x80
#define FLAG_OF 0x800

static uint64_t reg64(uc_engine *uc, int reg) {
	uint64_t v = 0;
	if (reg) uc_reg_read(uc, reg, &v);
	return v;
}

// memop_addr computes a memory operand's address from the registers.
static uint64_t memop_addr(uc_engine *uc, const ic_site *site) {
	const ic_memop *m = &site->mem;
	uint64_t a = (uint64_t)m->disp;
	if (m->base == -1) a += site->pc + site->len;
	else a += reg64(uc, m->base);
	a += reg64(uc, m->index) * m->scale;
	if (m->addr32) a = (uint32_t)a;
	return a + reg64(uc, m->seg);
}

// repair finishes the armed site's fix after its instruction ran, before
// the next instruction runs. It writes general-purpose registers only:
// the translated code after the hook reloads them, but assumes the flags
// it computed itself.
static void repair(uc_engine *uc, ic_sites *ss) {
	ic_site *site = ss->armed;
	ss->armed = NULL;
	uint64_t flags = 0;
	uc_reg_read(uc, UC_X86_REG_EFLAGS, &flags);
	switch (site->kind) {
	case IC_SITE_CMPXCHG32:
		// Equal: the destination was written, the accumulator not, so
		// RAX keeps its upper half (unless RAX is the destination).
		// Not equal: EAX was written, the destination not, so a
		// register destination keeps all of it.
		if (flags & FLAG_ZF) {
			if (site->reg != UC_X86_REG_RAX) uc_reg_write(uc, UC_X86_REG_RAX, &ss->saved[0]);
		} else if (site->reg) {
			uc_reg_write(uc, site->reg, &ss->saved[1]);
		}
		return;
	case IC_SITE_BITSCAN32:
		// A zero source (ZF) leaves the destination as it was.
		if (flags & FLAG_ZF) uc_reg_write(uc, site->reg, &ss->saved[0]);
		return;
	case IC_SITE_POPF:
		// At CPL 3 with IOPL 0, popf changes neither IF nor IOPL. After
		// popf the emulator keeps the arithmetic flags whole in EFLAGS'
		// form, so writing them back unchanged is safe mid-block.
		flags = (flags | 0x200) & ~(uint64_t)0x3000;
		uc_reg_write(uc, UC_X86_REG_EFLAGS, &flags);
		return;
	case IC_SITE_FPLOAD:
		// What was raised before the load is gone; MXCSR.FZ applies.
		if (site->op & 3) ic_fp_loaded(ss->s, site->op & 1, (site->op & 2) != 0);
		if (site->op & 1) {
			uint64_t mxcsr = 0;
			uc_reg_read(uc, UC_X86_REG_MXCSR, &mxcsr);
			if (mxcsr & 0x40) ss->daz_loads++;
			if ((mxcsr & 0x1f80) != 0x1f80) ss->unmasked_sse++;
		}
		if (site->op & 6) {
			uint64_t fcw = 0;
			uc_reg_read(uc, UC_X86_REG_FPCW, &fcw);
			if ((fcw & 0x3f) != 0x3f) ss->unmasked_x87++;
		}
		return;
	}
}

// x87 runs an x87 instruction on the host's FPU (x87.c), with the flags
// the emulator raised so far in the status word first: an unmasked one
// pending there raises #MF at it, as on hardware. A fisttp whose store x87.c
// refuses (memory the guest may not write, or code) is left to the
// emulator, whose store faults or discards the code the usual way.
static void x87(uc_engine *uc, ic_sites *ss, ic_site *site, uint64_t addr) {
	ic_fp_fold(ss->s);
	uint64_t a = site->size ? memop_addr(uc, site) : 0, fault = 0; // fisttp's operand
	switch (ic_x87_exec(uc, ss->s->mem, (int)site->op, a, &fault)) {
	case IC_X87_OK:
	case IC_X87_RAISED:
		ic_site_skip(ss, site, addr);
		return;
	case IC_X87_PENDING:
		ss->refused_pc = addr;
		ss->refused_kind = site->kind;
		uc_emu_stop(uc);
		return;
	}
	// Refused or failed: the emulator runs it.
}

// accessible tells whether the guest may read and write the n bytes at a.
static int accessible(ic_mem *m, uint64_t a, uint32_t n) {
	const uint8_t need = IC_MAPPED | UC_PROT_READ | UC_PROT_WRITE;
	return (ic_mem_get(m, a) & need) == need && (ic_mem_get(m, a + n - 1) & need) == need;
}

// lock_neg executes lock neg m at addr, which the emulator gets wrong (it
// takes SF and PF from the operand before negation): it negates the
// operand, sets the flags as the hardware does and skips the instruction
// (ending the translated block there, whose code after it assumes the
// flags the emulator computed). It returns 0, leaving the instruction to
// the emulator, when the operand may not be read and written: the
// instruction faults there, flags or not.
static int lock_neg(uc_engine *uc, ic_sites *ss, ic_site *site, uint64_t addr) {
	uint64_t a = memop_addr(uc, site), v = 0, flags = 0;
	uint32_t n = site->size;
	if (n == 0 || n > 8 || !accessible(ss->s->mem, a, n)) return 0;
	if (uc_mem_read(uc, a, &v, n) != UC_ERR_OK) return 0;
	uint64_t mask = n == 8 ? ~0ull : (1ull << (8 * n)) - 1, sign = 1ull << (8 * n - 1);
	uint64_t r = (0 - v) & mask;
	if (uc_mem_write(uc, a, &r, n) != UC_ERR_OK) return 0;
	uc_reg_read(uc, UC_X86_REG_EFLAGS, &flags);
	flags &= ~(uint64_t)(FLAG_CF | FLAG_PF | FLAG_AF | FLAG_ZF | FLAG_SF | FLAG_OF);
	if (v) flags |= FLAG_CF;
	if (parity(r)) flags |= FLAG_PF;
	if ((v ^ r) & 0x10) flags |= FLAG_AF;
	if (r == 0) flags |= FLAG_ZF;
	if (r & sign) flags |= FLAG_SF;
	if (v == sign) flags |= FLAG_OF;
	uc_reg_write(uc, UC_X86_REG_EFLAGS, &flags);
	ic_site_skip(ss, site, addr);
	return 1;
}

// client_request answers a client request (valgrind.h's special
// instruction sequence, whose last instruction is the site): the
// instruction, a no-op on hardware, counts as one and ends the block
// (ic_site_skip), so that every instruction up to it has been counted and
// none after it when Go answers; the answer goes to the result register,
// which holds the request's default value (its value on hardware).
static void client_request(uc_engine *uc, ic_sites *ss, ic_site *site, uint64_t addr) {
	ic_site_skip(ss, site, addr);
	// The block was left at the site, not at its end: the next block is
	// not the target of a call (or return) that ends this one.
	ic_set_cur(ss->s, NULL);
	uint64_t args = reg64(uc, site->reg), result = reg64(uc, site->reg2);
	result = icountGoClientRequest(ss->s->handle, args, result);
	uc_reg_write(uc, site->reg2, &result);
}

// hook_site runs before the instruction at a site.
static void hook_site(uc_engine *uc, uint64_t addr, uint32_t size, void *ud) {
	ic_site *site = ud;
	ic_sites *ss = site->all;
	if (ss->armed && ss->armed->pc + ss->armed->len == addr) repair(uc, ss);
	if (addr != site->pc) return; // the instruction after a fixing site
	switch (site->kind) {
	case IC_SITE_ILLEGAL:
	case IC_SITE_PRIVILEGED:
		// Stop here: every instruction before this one completed; Go
		// takes back this one and the rest of the block, and delivers
		// the signal (emu.Fault).
		ss->refused_pc = addr;
		ss->refused_kind = site->kind;
		uc_emu_stop(uc);
		return;
	case IC_SITE_NOP:
		ic_site_skip(ss, site, addr);
		return;
	case IC_SITE_CMPXCHG32:
		ss->saved[0] = reg64(uc, UC_X86_REG_RAX);
		ss->saved[1] = reg64(uc, site->reg);
		ss->armed = site;
		return;
	case IC_SITE_BITSCAN32:
		ss->saved[0] = reg64(uc, site->reg);
		ss->armed = site;
		return;
	case IC_SITE_LOCKNEG:
		lock_neg(uc, ss, site, addr);
		return;
	case IC_SITE_FPREAD:
		ic_fp_fold(ss->s);
		return;
	case IC_SITE_FPLOAD:
	case IC_SITE_POPF:
		ss->armed = site;
		return;
	case IC_SITE_X87:
		x87(uc, ss, site, addr);
		return;
	case IC_SITE_CLIENTREQ:
		client_request(uc, ss, site, addr);
		return;
	case IC_SITE_PROBE:
		icountGoProbe(ss->s->handle, addr);
		return;
	}
}

// ic_site_add hooks the instruction of len bytes at pc (and, for a kind
// that fixes a result, the instruction after it, where the fix is
// repaired: one hook covers both, since Unicorn walks every code hook for
// every instruction it translates) and discards the translated code
// holding them, which was translated without the hook. The site's memory
// is the caller's to free (after ic_site_del).
ic_site *ic_site_add(ic_sites *ss, uint64_t pc, uint32_t len, uint32_t kind, uc_err *err) {
	ic_site *site = calloc(1, sizeof *site);
	if (!site) {
		*err = UC_ERR_NOMEM;
		return NULL;
	}
	site->all = ss;
	site->next = ss->head;
	site->pc = pc;
	site->len = len;
	site->kind = kind;
	uint64_t last = kind == IC_SITE_CMPXCHG32 || kind == IC_SITE_BITSCAN32 || kind == IC_SITE_FPLOAD ||
	                        kind == IC_SITE_POPF
	                    ? pc + len
	                    : pc;
	*err = uc_hook_add(ss->s->uc, &site->hook, UC_HOOK_CODE, (void *)hook_site, site, pc, last);
	if (*err == UC_ERR_OK) *err = ic_mem_remove_cache(ss->s->mem, pc, pc + len + 1);
	if (*err != UC_ERR_OK) {
		if (site->hook) uc_hook_del(ss->s->uc, site->hook);
		free(site);
		return NULL;
	}
	ss->head = site;
	return site;
}

// ic_site_del removes a site's hook (its code changed, or a spare's next
// program starts); the caller frees it. The code translated with the hook
// must go with it: a lone code hook is called directly, with the site as
// its data. Unicorn discards only the blocks that start in the hook's
// range (hooked_regions_check tests a block's first address), which it
// finds through the TLB: every access is granted meanwhile (ic_mem_grant),
// whatever the page's permissions now. A block holding the site further
// in is discarded here, as ic_site_add discarded it to add the hook.
uc_err ic_site_del(ic_sites *ss, ic_site *site) {
	if (ss->armed == site) ss->armed = NULL;
	for (ic_site **p = &ss->head; *p; p = &(*p)->next) {
		if (*p == site) {
			*p = site->next;
			break;
		}
	}
	ic_mem_grant(ss->s->mem);
	uc_err err = uc_hook_del(ss->s->uc, site->hook);
	uc_err ferr = ic_mem_ungrant(ss->s->mem);
	uc_err rerr = ic_mem_remove_cache(ss->s->mem, site->pc, site->pc + site->len + 1);
	return err != UC_ERR_OK ? err : ferr != UC_ERR_OK ? ferr : rerr;
}

// ic_sites_settle ends, between runs, a fix whose instruction ran but
// whose next instruction did not start before the run ended (a stop came
// between them): the repair is made now. A fix whose instruction faulted
// (faulted, at the armed site) never completed, and is dropped.
void ic_sites_settle(ic_sites *ss, int faulted, uint64_t fault_pc) {
	if (!ss->armed) return;
	if (faulted && fault_pc == ss->armed->pc) {
		ss->armed = NULL;
		return;
	}
	repair(ss->s->uc, ss);
}

// ic_site_cuts tells Go the cuts a site has counted and not yet told.
void ic_site_cuts(ic_site *site) {
	if (site->cut_pending)
		icountGoSiteCuts(site->all->s->handle, site->cut_block, site->cut_addr, site->cut_size, site->cut_from,
		                 site->cut_pending);
	site->cut_pending = 0;
}
