// Instruction sites: hooks on single instructions the decoder finds when it
// first decodes a block (sites.c). Each site has a kind, which says what its
// hook does; a site is hooked before any instruction of its block runs (the
// block restarts, retranslated with the hook), so that blocks without sites
// run as before and pay nothing.
#ifndef ICOUNT_SITES_H
#define ICOUNT_SITES_H

#include <stdint.h>
#include <unicorn/unicorn.h>

#include "hotpath.h"

// Site kinds; the values match emu.SiteKind. A new kind is a value here
// (and in sites.go), a case in hook_site (sites.c) and the decoder's
// classification (count/sites_*.go); a kind that executes its instruction
// itself ends with ic_site_skip.
enum {
	IC_SITE_ILLEGAL = 1,    // refused as an undefined instruction (#UD, EL0 undefined: SIGILL)
	IC_SITE_PRIVILEGED = 2, // refused as a privileged instruction (#GP at CPL 3: SIGSEGV; arm64: SIGILL)
	IC_SITE_NOP = 3,        // executed as a no-op (arm64 wfi, wfe at EL0)
	IC_SITE_CMPXCHG32 = 4,  // cmpxchg r/m32, r32: keeps RAX[63:32] on success, a register destination on failure
	IC_SITE_BITSCAN32 = 5,  // bsf/bsr r32 with a zero source: leaves the destination unchanged
	IC_SITE_LOCKNEG = 6,    // lock neg m: executed here (Unicorn takes SF and PF from the operand)
	IC_SITE_FPREAD = 7,     // reads the FP exception flags (stmxcsr, fnstsw, fxsave...): they are folded in first
	IC_SITE_FPLOAD = 8,     // loads MXCSR or the x87 status (ldmxcsr, fxrstor, fninit...): flags before it go
	IC_SITE_X87 = 9,        // an x87 instruction executed on the host's FPU (x87.c); op is its IC_X87_*
	IC_SITE_POPF = 10,      // popf: IF stays set and IOPL 0, as at CPL 3 (the guest runs at CPL 0)
	IC_SITE_CLIENTREQ = 11, // valgrind's client request marker: Go answers it (reg: the request's address, reg2: default and result)
	IC_SITE_PROBE = 12,     // Go is told the instruction is reached, before it runs; it runs as it is
};

// A memory operand, as the decoder gives it: the address is
// base + index*scale + disp (+ the FS or GS base), truncated to 32 bits
// when addr32; a base of -1 means RIP-relative (the next instruction's
// address).
typedef struct ic_memop {
	int32_t base, index; // Unicorn register ids, 0 for none
	int32_t seg;         // Unicorn id of the segment base register, 0 for none
	uint32_t scale;
	int64_t disp;
	uint32_t addr32;
} ic_memop;

struct ic_sites;

// One hooked instruction address.
typedef struct ic_site {
	struct ic_sites *all;
	struct ic_site *next; // in ic_sites' list
	uint64_t pc;
	uint32_t len;  // the instruction's length
	uint32_t kind; // IC_SITE_*
	int32_t reg;   // Unicorn id of the 64-bit register operand that matters, 0 for none
	int32_t reg2;  // IC_SITE_CLIENTREQ: the register holding the default, which gets the result
	uint32_t size; // operand size in bytes
	uint32_t op;   // IC_SITE_X87: the IC_X87_* instruction; IC_SITE_FPLOAD: 1 MXCSR, 2 x87 status, 4 x87 control word
	ic_memop mem;  // the memory operand, if any (lock neg)
	uc_hook hook;
	// Cuts: a site that moves the PC ends its block there, so the
	// instructions after it in the current block are taken back. The
	// block it ran in last is cached: cut_block (an ic_block id), how many
	// instructions of it follow the site, and the cuts not yet told to Go.
	uint64_t cut_addr, cut_from; // the block's address, and the first instruction cut
	uint32_t cut_size, cut_block, cut_after;
	uint64_t cut_pending;
} ic_site;

// The sites of one CPU.
typedef struct ic_sites {
	ic_state *s;
	ic_site *head; // every site
	// A fixing site whose instruction ran (its hook ran before it) and
	// whose repair is due at the next instruction, with what it saved.
	ic_site *armed;
	uint64_t saved[2];
	// Loads of MXCSR with DAZ set (IC_SITE_FPLOAD): the emulated CPU's
	// min and max ignore it.
	uint64_t daz_loads;
	// Loads that unmask an FP exception, of MXCSR and of the x87 control
	// word: the emulated CPU raises none.
	uint64_t unmasked_sse, unmasked_x87;
	// A refusal: the site that stopped the run, 0 if none.
	uint64_t refused_pc;
	uint32_t refused_kind;
} ic_sites;

ic_sites *ic_sites_new(ic_state *s);
ic_site *ic_site_add(ic_sites *ss, uint64_t pc, uint32_t len, uint32_t kind, uc_err *err);
uc_err ic_site_del(ic_sites *ss, ic_site *site);
void ic_sites_settle(ic_sites *ss, int faulted, uint64_t fault_pc);
void ic_site_cuts(ic_site *site);
void ic_site_skip(ic_sites *ss, ic_site *site, uint64_t addr);

#endif
