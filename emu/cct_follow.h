// The call tree's following of each move the guest makes (cct.c tells
// how the tree is kept): what the block hook's full path (hotpath.c) does
// for every call, return and jump out of a function, inlined there so that
// an interpreter's millions of them each cost no call. Only the rare parts
// are functions of cct.c.
#ifndef ICOUNT_CCT_FOLLOW_H
#define ICOUNT_CCT_FOLLOW_H

#include "hotpath.h"

#define IC_MAX_DEPTH 512

int64_t ic_cct_find_child(ic_state *s, uint32_t parent, uint64_t func, uint64_t site);
uint64_t ic_cct_read_sp_unplaced(ic_state *s);
int ic_cct_grow_frames(ic_state *s);
void ic_cct_set_root(ic_state *s, uint64_t func);
void ic_cct_unwind(ic_state *s, uint64_t sp, uint64_t func);
int ic_cct_enter_rare(ic_state *s, ic_block *prev, ic_block *b, uint64_t func, uint32_t end);

// child returns the node for func entered from parent at site, by the
// block from, whose end site is, or NULL (the edges remember only what a
// block entered: a block's site is always the same).
static inline __attribute__((always_inline)) int64_t child(ic_state *s, uint32_t parent, uint64_t func,
                                                           uint64_t site, const ic_block *from) {
	const ic_node *p = &s->nodes[parent];
	if (p->func == func || p->depth >= IC_MAX_DEPTH) return parent;
	if (!from) return ic_cct_find_child(s, parent, func, site);
	uint64_t k = ((uintptr_t)from >> 6) ^ ((uint64_t)parent << 32) ^ func;
	ic_edge *e = &s->edges[(uint32_t)((k * 0x9E3779B97F4A7C15ull) >> 32) & (IC_EDGES - 1)];
	if (e->from == from && e->parent == parent && e->func == func) return e->node;
	int64_t node = ic_cct_find_child(s, parent, func, site);
	if (node >= 0) *e = (ic_edge){.from = from, .func = func, .parent = parent, .node = (uint32_t)node};
	return node;
}

// read_sp reads the stack pointer, from its place in the CPU state once
// found: uc_reg_read is a tenth of an interpreter's run with attribution.
static inline __attribute__((always_inline)) uint64_t read_sp(ic_state *s) {
	if (__builtin_expect(s->sp_at != NULL, 1)) return *s->sp_at;
	return ic_cct_read_sp_unplaced(s);
}

static inline __attribute__((always_inline)) void set_top(ic_state *s) {
	ic_settle_top(s);
	s->top = s->frames[s->depth - 1].node;
	s->top_func = s->nodes[s->top].func;
}

// push pushes a frame for func, entered as kind says (IC_FRAME_*), by a
// call or a signal returning to ret or, with ret 0, by a jump; site is
// where it was entered from (the node's key, with cells), and from the
// block whose call or jump entered it (NULL if none did).
static inline __attribute__((always_inline)) void push(ic_state *s, uint64_t func, uint64_t ret, uint64_t site,
                                                       uint64_t sp, uint32_t kind, const ic_block *from) {
	uint32_t parent = s->depth ? s->top : 0;
	// A later thread's first frame is a child of the root.
	int64_t node = s->depth || s->root_set ? child(s, parent, func, s->cells ? site : 0, from) : 0;
	if (__builtin_expect(node < 0, 0)) {
		s->oom = 1;
		uc_emu_stop(s->uc);
		return;
	}
	if (__builtin_expect(s->depth == s->capframes, 0) && ic_cct_grow_frames(s) != 0) return;
	if (__builtin_expect(node == 0 && !s->root_set, 0)) ic_cct_set_root(s, func);
	s->nodes[node].calls++;
	s->frames[s->depth++] = (ic_frame){.ret = ret, .sp = sp, .node = (uint32_t)node, .kind = kind};
	set_top(s);
}

static inline __attribute__((always_inline)) void pop_to(ic_state *s, uint32_t depth) {
	if (depth < 1) depth = 1; // the root frame stays
	if (depth < s->depth) {
		s->depth = depth;
		set_top(s);
	}
}

// pop_return pops to the frame a return to target leaves; it reports
// whether one was found. A signal handler's frame stays when the handler
// returns to its restorer: the handler is left at rt_sigreturn
// (ic_cct_sigreturn).
static inline __attribute__((always_inline)) int pop_return(ic_state *s, uint64_t target) {
	for (uint32_t d = s->depth; d > 1; d--) {
		if (s->frames[d - 1].ret == target) {
			pop_to(s, s->frames[d - 1].kind == IC_FRAME_SIGNAL ? d : d - 1);
			return 1;
		}
	}
	return 0;
}

// jump_into handles reaching func without a call, from the block from
// (NULL if unknown): back to it if it is the function of a frame reached
// only through jumps from it, else a new frame.
static inline __attribute__((always_inline)) void jump_into(ic_state *s, uint64_t func, uint64_t sp,
                                                            const ic_block *from) {
	for (uint32_t d = s->depth; d > 1 && s->frames[d - 1].kind == IC_FRAME_JUMPED; d--) {
		if (s->nodes[s->frames[d - 2].node].func == func) {
			pop_to(s, d - 1);
			return;
		}
	}
	push(s, func, 0, from ? (from->addr + from->size) | IC_SITE_JUMP : 0, sp, IC_FRAME_JUMPED, from);
}

// ic_cct_moves says whether the move from prev (NULL when unknown), whose
// end is end (s->cur_end while prev is s->cur), to b needs ic_cct_follow:
// any but a fall or branch within the top frame's function, or an
// indirect jump within it that leaves no frame (the stack pointer has not
// risen above where the top frame was entered), which an interpreter's
// dispatch makes for every instruction it runs.
static inline __attribute__((always_inline)) int ic_cct_moves(const ic_state *s, const ic_block *prev,
                                                              uint32_t end, const ic_block *b) {
	if (!prev || (b->func && b->func != s->top_func)) return 1;
	if (end == IC_END_PLAIN) return 0;
	return end != IC_END_IJMP || !s->sp_at || s->depth <= 1 || s->frames[s->depth - 1].sp < *s->sp_at;
}

// ic_cct_follow follows the move from prev (NULL when a thread resumed
// after its last block's code changed) to b. The common ends are tested
// in turn, most frequent first, rather than through a jump table: a
// call-heavy program comes here at every call and return.
static inline __attribute__((always_inline)) void ic_cct_follow(ic_state *s, ic_block *prev, ic_block *b) {
	uint64_t func = b->func ? b->func : b->addr;
	uint32_t end = prev ? prev->end : IC_END_PLAIN;
	if (__builtin_expect(end >= IC_END_RESUME || s->depth == 0, 0)) {
		if (ic_cct_enter_rare(s, prev, b, func, end)) return;
	} else if (end == IC_END_CALL) {
		if (func == s->goexit0 && s->goexit0) s->g_exited = 1; // the goroutine ends
		push(s, func, prev->addr + prev->size, prev->addr + prev->size, read_sp(s), IC_FRAME_CALL, prev);
		return;
	} else if (end == IC_END_RET) {
		if (!pop_return(s, b->addr)) ic_cct_unwind(s, read_sp(s), b->func);
	} else if (end == IC_END_IJMP) {
		ic_cct_unwind(s, read_sp(s), b->func);
	}
	if (b->func && b->func != s->top_func) {
		jump_into(s, b->func, read_sp(s), prev);
	}
}

#endif
