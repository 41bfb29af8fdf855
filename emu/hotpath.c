#include "cct_follow.h"

#include <stdlib.h>
#include <string.h>

#include "_cgo_export.h"

#define IC_ARCH_X86_64 1
#define IC_ARCH_ARM64 2

// tlb_resize flushes the emulator's TLB every IC_FLUSH_BLOCKS blocks.
// QEMU sizes its TLB only when it is flushed: a guest that never makes it
// flush keeps the smallest TLB, and one whose working set is larger than a
// megabyte then runs up to 20 times slower. tlbsize.c keeps the sizing
// from shrinking it below a floor.
#define IC_FLUSH_BLOCKS (1u << 20)

__attribute__((noinline, cold)) static void tlb_resize(ic_state *s) {
	s->until_flush = IC_FLUSH_BLOCKS;
	uc_ctl_flush_tlb(s->uc);
	// A stop asked from another thread (ic_ask_stop) is taken here, so that
	// it falls at a known place: the hook running now goes on to count its
	// block, which then does not run; Go takes it back.
	if (__atomic_load_n(&s->stop_asked, __ATOMIC_ACQUIRE)) {
		s->stop_hit = 1;
		uc_emu_stop(s->uc);
	}
}

// ic_ask_stop asks, from any thread, that the next block's hook stop the
// emulator. A store racing with the hook's decrement of until_flush can be
// lost: ask again until the run returns.
void ic_ask_stop(ic_state *s) {
	__atomic_store_n(&s->stop_asked, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&s->until_flush, 1, __ATOMIC_RELAXED);
}

ic_state *ic_new(uc_engine *uc, uintptr_t handle) {
	ic_state *s = calloc(1, sizeof *s);
	if (!s) return NULL;
	s->uc = uc;
	s->handle = handle;
	s->cur_in_roi = 1;
	s->until_flush = IC_FLUSH_BLOCKS;
	ic_links_init(s);
	if (ic_blocks_init(s) != 0) {
		ic_free(s);
		return NULL;
	}
	return s;
}

// release frees what s holds of a program's run: blocks and call tree.
static void release(ic_state *s) {
	ic_cct_free(s);
	ic_blocks_free(s);
}

void ic_free(ic_state *s) {
	if (!s) return;
	release(s);
	ic_links_free(s);
	if (s->scratch) uc_context_free(s->scratch);
	free(s);
}

// ic_reset makes s as ic_new made it, for another program on the same
// engine (spare.go): what it counted goes, and so do its sites, which the
// caller has freed; the engine, the memory, the scratch context and the
// hooks stay, the block hook as it was until ic_set_block_hook, and the
// links, unbound, which code translated before may pass. It returns
// -1 when out of memory.
int ic_reset(ic_state *s) {
	release(s);
	ic_state keep = *s;
	memset(s, 0, sizeof *s);
	s->uc = keep.uc;
	s->handle = keep.handle;
	s->pc_reg = keep.pc_reg;
	s->mem = keep.mem;
	s->scratch = keep.scratch;
	s->block_hook = keep.block_hook;
	s->block_callback = keep.block_callback;
	s->block_call_described = keep.block_call_described;
	s->block_call_removals = keep.block_call_removals;
	s->block_call_descriptions = keep.block_call_descriptions;
	s->block_regions = keep.block_regions;
	s->linkchunks = keep.linkchunks, s->nlinks = keep.nlinks, s->caplinkchunks = keep.caplinkchunks;
	s->linkslots = keep.linkslots, s->nlinkslots = keep.nlinkslots;
	ic_links_init(s);
	ic_links_unbind(s);
	s->hook_limited = keep.hook_limited;
	s->budget = UINT64_MAX; // for a limited variant, with limited 0
	s->cur_in_roi = 1;
	s->until_flush = IC_FLUSH_BLOCKS;
	return ic_blocks_init(s);
}

// mark_code marks the pages of a block first seen as holding translated
// code, so that a guest store there discards it (emu/codewrite.go). A page
// that is writable may have write access in the TLB: the TLB is flushed,
// before the block runs, so that even its own stores are seen. While a
// store into code runs by itself (hold_marks), the block's range is kept
// for Go instead.
static void mark_code(ic_state *s, uint64_t addr, uint32_t size) {
	ic_mem *m = s->mem;
	if (m->hold_marks) {
		if (m->held_lo == m->held_hi) m->held_lo = addr, m->held_hi = addr + size;
		if (addr < m->held_lo) m->held_lo = addr;
		if (addr + size > m->held_hi) m->held_hi = addr + size;
		return;
	}
	int r = ic_mem_mark_code(m, addr, addr + size);
	if (r < 0) {
		s->oom = 1;
		uc_emu_stop(s->uc);
	} else if (r > 0) {
		uc_ctl_flush_tlb(s->uc);
	}
}

// ic_insert adds a block first seen at addr and asks Go to decode it. It
// returns NULL with s->restart set when Go hooked an instruction of it.
__attribute__((noinline, cold)) static ic_block *ic_insert(ic_state *s, uint64_t addr, uint32_t size) {
	ic_block *b = ic_block_add(s, addr, size);
	if (!b) return NULL; // out of memory (restart not set)
	mark_code(s, addr, size);
	if (icountGoNewBlock(s->handle, b) & IC_RESTART) {
		s->restart = 1; // count_block restarts it
		return NULL;
	}
	return b;
}

// relink finds the entry of a block whose link does not hold it, adding
// it on first sight, and binds the link to it.
__attribute__((noinline)) static ic_block *relink(ic_link *l, uint64_t addr, uint32_t size) {
	ic_block *b = ic_block_find(l->s, addr, size);
	if (!b) b = ic_insert(l->s, addr, size);
	if (b) l->b = b;
	return b;
}

// count_block is the work done before every execution of every translated
// block: the one piece of icount that runs per block. It finds the block's
// entry through the link the block passes (links.c), touches that one
// entry and, without attribution, keeps no running total (a
// read-modify-write of one shared counter per block costs 4% of the run);
// totals are summed from the table. With attribution it follows calls and
// returns in the calling-context tree and charges the block's instructions
// to the current context, and with cells counts the execution in the
// block's cell of that context (cells.c); only a block that follows a call,
// a return or an indirect jump that leaves a frame, or that lies in another
// function than the current context's (ic_cct_moves), takes the slow path,
// and only a block that ran in another context last time looks its cell
// up. With an instruction limit, a block that would pass it is not run:
// the emulator stops at its start, and Go runs the instructions left one
// block at a time (ic_limit_hit).
//
// Given full, it is the hook's common case, which calls no function and so
// needs no stack frame (no registers saved and restored): anything
// that would call one goes to full, which is count_block without full.
static inline __attribute__((always_inline)) void count_block(uc_engine *uc, ic_link *l, uint64_t addr,
                                                              uint32_t size, const int cct, const int roi,
                                                              const int cells, const int limited,
                                                              void (*const full)(uc_engine *, ic_link *,
                                                                                 uint64_t, uint32_t)) {
	ic_state *s = l->s;
	ic_block *b = l->b;
	// The common case: the link holds the block; no limit, flush or call
	// to follow; its cell where it was. Anything else goes to full before
	// anything changed here.
	if (full) {
		if (__builtin_expect(b->addr != addr || b->size != size || s->until_flush <= 1 ||
		                         (limited && b->ninsn > s->budget) ||
		                         (cct && ic_cct_moves(s, s->cur, s->cur_end, b)) ||
		                         (cells && b->cell_node != s->top),
		                     0)) {
			full(uc, l, addr, size);
			return;
		}
	} else if (__builtin_expect(b->addr != addr || b->size != size, 0)) {
		b = relink(l, addr, size);
		if (__builtin_expect(!b, 0)) {
			if (s->restart) {
				ic_restart(s, addr); // a site was hooked in it: this entry does not count
				return;
			}
			s->oom = 1;
			uc_emu_stop(uc);
			return;
		}
	}
	if (limited) {
		if (!full && __builtin_expect(b->ninsn > s->budget, 0)) {
			s->limit_hit = 1;
			s->limit_pc = addr;
			uc_emu_stop(uc);
			return;
		}
		s->budget -= b->ninsn;
	}
	if (full) {
		s->until_flush--;
	} else if (__builtin_expect(--s->until_flush == 0, 0)) {
		tlb_resize(s);
	}
	if (!cct) {
		b->execs++;
		s->cur = b; // cur_end is the call tree's, which this CPU has not
		return;
	}
	ic_block *prev = s->cur;
	uint32_t prev_end = s->cur_end;
	ic_set_cur(s, b);
	if (!full && __builtin_expect(ic_cct_moves(s, prev, prev_end, b), 0)) ic_cct_follow(s, prev, b);
	if (!roi || s->nodes[s->top].roi) {
		b->execs++;
		s->top_insns += b->ninsn;
		if (cells) {
			uint32_t c = full || __builtin_expect(b->cell_node == s->top, 1) ? b->cell : ic_cell_of(s, b);
			s->cells[c].execs++;
			s->cur_cell = c;
		}
		if (roi) s->cur_in_roi = 1;
	} else {
		s->outside_insns += b->ninsn;
		s->outside_execs++;
		s->cur_in_roi = 0;
	}
}

// The hook's variants: with or without the call tree, the region of
// interest, the cells and the instruction limit, each compiled on its own
// so that the common case pays for nothing it does not use. Each is the
// common case, which calls no function (and so needs no stack frame), in
// front of the whole work, which it calls for any other case.
#define IC_HOOK(name, cct, roi, cells, limited)                                                   \
	__attribute__((noinline)) static void name##_full(uc_engine *uc, ic_link *l, uint64_t addr, \
	                                                  uint32_t size) {                         \
		count_block(uc, l, addr, size, cct, roi, cells, limited, NULL);                           \
	}                                                                                             \
	static void name(uc_engine *uc, uint64_t addr, uint32_t size, void *ud) {                   \
		count_block(uc, ud, addr, size, cct, roi, cells, limited, name##_full);                   \
	}
IC_HOOK(hook_count, 0, 0, 0, 0)
IC_HOOK(hook_count_limited, 0, 0, 0, 1)
IC_HOOK(hook_cct, 1, 0, 0, 0)
IC_HOOK(hook_cct_limited, 1, 0, 0, 1)
IC_HOOK(hook_cct_roi, 1, 1, 0, 0)
IC_HOOK(hook_cct_roi_limited, 1, 1, 0, 1)
IC_HOOK(hook_cells, 1, 0, 1, 0)
IC_HOOK(hook_cells_limited, 1, 0, 1, 1)
IC_HOOK(hook_cells_roi, 1, 1, 1, 0)
IC_HOOK(hook_cells_roi_limited, 1, 1, 1, 1)

// ic_cut takes back the instructions of the current block's execution that
// did not complete: the last notrun of its block's, so that it stopped
// before its instruction ninsn - notrun.
void ic_cut(ic_state *s, uint32_t notrun) {
	if (!s->cur) return;
	if (s->limited) s->budget += notrun;
	if (!s->cur_in_roi) {
		s->outside_insns -= notrun;
		return;
	}
	s->cur->cut += notrun;
	if (s->nodes) {
		ic_settle_top(s);
		s->nodes[s->top].insns -= notrun;
	}
	if (s->cells) ic_cell_cut(s, s->cur_cell, s->cur->ninsn > notrun ? s->cur->ninsn - notrun : 0);
}

// hook_syscall runs at an x86-64 syscall instruction (RIP at it). It does
// what the instruction does to the registers on hardware, which Unicorn
// leaves undone: RCX gets the address after it and R11 RFLAGS (RF clear);
// then Go makes the call.
static void hook_syscall(uc_engine *uc, void *ud) {
	ic_state *s = ud;
	uint64_t rip = 0, rflags = 0;
	uc_reg_read(uc, UC_X86_REG_RIP, &rip);
	uc_reg_read(uc, UC_X86_REG_EFLAGS, &rflags);
	rip += 2;                // syscall is 0f 05
	rflags &= ~(1ull << 16);  // RF
	uc_reg_write(uc, UC_X86_REG_RCX, &rip);
	uc_reg_write(uc, UC_X86_REG_R11, &rflags);
	icountGoSyscall(s->handle);
}

static void hook_intr(uc_engine *uc, uint32_t intno, void *ud) {
	ic_state *s = ud;
	icountGoInterrupt(s->handle, intno);
	ic_inflight_clear(s);
}

// The block hook's variants: [limited][none, call tree, call tree and
// region, call tree and cells, call tree, region and cells].
#define IC_BLOCK_HOOKS                                                                                   \
	{                                                                                                \
		{(void *)hook_count, (void *)hook_cct, (void *)hook_cct_roi, (void *)hook_cells,                 \
		 (void *)hook_cells_roi},                                                                        \
		{(void *)hook_count_limited, (void *)hook_cct_limited, (void *)hook_cct_roi_limited,             \
		 (void *)hook_cells_limited, (void *)hook_cells_roi_limited},                                    \
	}

// ic_install_hooks installs every hook but the block hook
// (ic_set_block_hook); it must run before the first uc_emu_start, since
// hooks are compiled into translated code.
uc_err ic_install_hooks(ic_state *s, int arch) {
	s->pc_reg = arch == IC_ARCH_X86_64 ? UC_X86_REG_RIP : UC_ARM64_REG_PC;
	uc_err err = uc_hook_add(s->uc, &(uc_hook){0}, UC_HOOK_INTR, (void *)hook_intr, s, 1, 0);
	if (err != UC_ERR_OK) return err;
	if (arch == IC_ARCH_X86_64) {
		err = uc_hook_add(s->uc, &(uc_hook){0}, UC_HOOK_INSN, (void *)hook_syscall, s, 1, 0,
		                  UC_X86_INS_SYSCALL);
	}
	return err;
}

// ic_use_limited replaces the block hook by its limited variant, which
// stops before a block that would pass s->budget: a second guest thread
// runs in slices so bounded. Call it between runs. Unicorn calls a lone
// hook of a kind directly from the code it translated, so replacing the
// hook discards all translated code (ic_set_block_hook): it is translated
// again as it runs.
uc_err ic_use_limited(ic_state *s) {
	if (s->limited) return UC_ERR_OK;
	s->limited = 1;
	s->budget = UINT64_MAX;
	return s->hook_limited ? UC_ERR_OK : ic_set_block_hook(s);
}

// ic_set_block_hook installs the variant of the block hook that s's
// settings call for (a call tree, a region, a limit), in place of the one
// installed before, if any (ic_replace_block_hook).
uc_err ic_set_block_hook(ic_state *s) {
	void *hooks[2][5] = IC_BLOCK_HOOKS;
	void *block = hooks[s->limited != 0][s->nodes ? (s->nroi ? 2 : 1) + (s->cells ? 2 : 0) : 0];
	uc_err err = ic_replace_block_hook(s, block);
	if (err == UC_ERR_OK) s->hook_limited = s->limited != 0;
	return err;
}

// ic_replace_block_hook installs callback (NULL: none) as s's block hook,
// with s's link for its data, in place of the one installed before, if
// any. Every translated block calls the hook it was translated with, and
// Unicorn does not know which blocks those are (the hook's table of them
// is left empty, translation.c): they are all discarded.
uc_err ic_replace_block_hook(ic_state *s, void *callback) {
	if (s->block_hook) {
		uc_err err = uc_hook_del(s->uc, s->block_hook);
		if (err != UC_ERR_OK) return err;
		s->block_hook = 0;
		s->block_regions = NULL;
		s->block_callback = NULL;
		if ((err = uc_ctl_flush_tb(s->uc)) != UC_ERR_OK) return err;
	}
	if (!callback) return UC_ERR_OK;
	ic_capture_regions(1);
	uc_err err = uc_hook_add(s->uc, &s->block_hook, UC_HOOK_BLOCK, callback, &s->own_link, 1, 0);
	void *regions = ic_capture_regions(0);
	if (err == UC_ERR_OK) s->block_regions = regions, s->block_callback = callback;
	return err;
}

// running is the state whose engine runs on this thread (ic_emu_start).
static __thread ic_state *running;

// ic_emu_start is uc_emu_start for s's engine, with no address to stop
// at, while the table of s's block hook is left empty and its blocks are
// given links (translation.c).
uc_err ic_emu_start(ic_state *s, uint64_t pc, size_t count) {
	ic_state *was = running;
	running = s;
	ic_translating_reset();
	uc_err err = uc_emu_start(s->uc, pc, 0, 0, count);
	running = was;
	return err;
}

// ic_running_regions is the table of the running engine's block hook
// (translation.c), NULL when no engine runs on this thread.
void *ic_running_regions(void) { return running ? running->block_regions : NULL; }

// ic_block_link returns the link to give the block hook in the code
// translated at addr, when hook is the block hook of the engine running
// on this thread; NULL to give the hook's own user data.
void *ic_block_link(void *hook, uint64_t addr) {
	ic_state *s = running;
	if (!s || (uc_hook)hook != s->block_hook) return NULL;
	return ic_link_at(s, addr);
}

// ic_block_call_described returns the function of hook, the block hook of
// the engine running on this thread, when the engine's TCG context holds
// its helper description, as Unicorn added it the last time it added the
// hook's call, and removals (uc_del_inline_hook's calls, any engine's) is
// what it was then; NULL otherwise.
void *ic_block_call_described(void *hook, unsigned removals) {
	ic_state *s = running;
	if (!s || (uc_hook)hook != s->block_hook || s->block_call_described != s->block_callback ||
	    s->block_call_removals != removals)
		return NULL;
	return s->block_callback;
}

// ic_block_call_describe records that Unicorn has just added the call of
// hook, the running engine's block hook, when removals descriptions had
// been removed: its context holds the description.
void ic_block_call_describe(void *hook, unsigned removals) {
	ic_state *s = running;
	if (!s || (uc_hook)hook != s->block_hook) return;
	s->block_call_described = s->block_callback;
	s->block_call_removals = removals;
	s->block_call_descriptions++;
}

// ic_thread_init readies the per-thread state of a new guest thread: an
// empty shadow stack, whose first frame the thread's first block pushes.
int ic_thread_init(ic_state *s, ic_thread *t) {
	memset(t, 0, sizeof *t);
	t->cur_in_roi = 1;
	if (!s->nodes) return 0;
	t->capframes = 64;
	t->frames = calloc(t->capframes, sizeof *t->frames);
	return t->frames ? 0 : -1;
}

// ic_thread_switch keeps the running thread's state in save and makes
// load's the running one.
void ic_thread_switch(ic_state *s, ic_thread *save, ic_thread *load) {
	// The running thread's frames belong to s; save holds none, or the
	// unused ones of a context never run. A Go program's goroutine's
	// frames go to gstacks (goroutines.c), not with its thread.
	free(save->frames);
	if (s->nodes) ic_settle_top(s);
	uint64_t g = ic_goroutines_thread_out(s);
	*save = (ic_thread){.frames = s->frames, .depth = s->depth, .capframes = s->capframes, .top = s->top,
	                    .top_func = s->top_func, .cur_cell = s->cur_cell, .cur_in_roi = s->cur_in_roi, .cur_g = g};
	if (s->cur == &s->signal_entry) {
		save->signal_pending = 1, save->signal_pc = s->signal_entry.addr, save->signal_ret = s->signal_ret;
	} else if (s->cur) {
		save->last_addr = s->cur->addr, save->last_size = s->cur->size;
	}
	s->frames = load->frames, s->depth = load->depth, s->capframes = load->capframes;
	s->top = load->top, s->top_func = load->top_func, s->cur_in_roi = load->cur_in_roi;
	s->cur_cell = load->cur_cell;
	load->frames = NULL;
	// A block forgotten since (its code changed) is not followed from.
	ic_set_cur(s, load->last_size ? ic_block_find(s, load->last_addr, load->last_size) : NULL);
	if (load->signal_pending) {
		// Its handler's first block is entered as called from where the
		// signal interrupted it (ic_cct_signal).
		s->signal_entry = (ic_block){.addr = load->signal_pc, .end = IC_END_SIGNAL};
		s->signal_ret = load->signal_ret;
		ic_set_cur(s, &s->signal_entry);
		load->signal_pending = 0;
	}
	ic_goroutines_thread_in(s, load->cur_g);
}

void ic_thread_free(ic_thread *t) {
	free(t->frames);
	t->frames = NULL;
}

// uc_ctl is variadic, which cgo cannot call: these wrap the uses icount has.
uc_err ic_set_cpu_model(uc_engine *uc, int model) { return uc_ctl_set_cpu_model(uc, model); }

// ic_set_exit makes uc_emu_start stop at the address at, or (at 0) at no
// address at all: the guest then runs until a hook stops it. uc_emu_start's
// own `until` would do for the first, but after every run Unicorn discards
// the code at until - 1, translating that address as a fetch: with no
// executable memory there, the TLB fill refuses it outside the emulator's
// loop, which stops the next run with a spurious UC_ERR_EXCEPTION.
uc_err ic_set_exit(uc_engine *uc, uint64_t at) {
	uc_err err = uc_ctl_exits_enable(uc);
	if (err != UC_ERR_OK) return err;
	return uc_ctl_set_exits(uc, &at, at != 0 ? 1 : 0);
}

