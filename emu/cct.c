// The calling-context tree: a shadow stack of frames, each pointing at a
// node of the tree, kept in step with the guest's calls and returns.
//
// A call pushes a frame for the callee. A return pops to the frame whose
// return address it reaches; a return or indirect jump that reaches none
// (longjmp, exceptions, signal returns) pops every frame entered below the
// stack pointer, as callgrind does. Go's runtime.gogo, which resumes a
// goroutine on another stack, switches to that goroutine's shadow stack
// (goroutines.c) and pops to the last frame of the function it resumes. A block in another function than the
// current frame's, reached without a call (a tail call, a jump into a .cold
// part, falling off the end of a function), pushes a frame marked as jumped,
// or pops back to that function if it is just below on the stack. A
// signal's handler is entered as called from where the thread was
// interrupted, and left, with what it called, as it returns
// (ic_cct_signal, ic_cct_sigreturn).
//
// A node is a function called from one call site of its parent's context:
// its key is (parent, function, site). With cells (per-line attribution)
// the site is the return address of the call that entered it, or for a
// frame entered by a jump the end of the block that jumped, flagged
// IC_SITE_JUMP (0 for the root), so that the edge into it knows where it
// was entered from; without, it is 0 and a node is a function called in a
// context.
//
// The tree stays bounded: a function calling itself directly stays in its
// node (recursion is collapsed), and below depth IC_MAX_DEPTH every call
// stays in the node reached, so deep mutual recursion adds no nodes.
//
// What is done at each move is in cct_follow.h, which the block hook
// inlines; this file has the rest: the tree's nodes, the rare moves,
// signals, and the tree's making and freeing.
#include "cct_follow.h"

#include <stdlib.h>
#include <string.h>

#define IC_MAX_FRAMES (1u << 22)

static uint32_t child_hash(uint32_t mask, uint32_t parent, uint64_t func, uint64_t site) {
	uint64_t k = func ^ ((uint64_t)parent << 40) ^ parent ^ (site * 0xFF51AFD7ED558CCDull);
	return (uint32_t)((k * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

static int grow_children(ic_state *s, uint32_t n) {
	uint32_t *t = calloc(n, sizeof *t);
	if (!t) return -1;
	for (uint32_t i = 1; i < s->nnodes; i++) {
		uint32_t h = child_hash(n - 1, s->nodes[i].parent, s->nodes[i].func, s->nodes[i].site);
		while (t[h]) h = (h + 1) & (n - 1);
		t[h] = i + 1;
	}
	free(s->children);
	s->children = t;
	s->nchild = n;
	return 0;
}

static int in_roi(const ic_state *s, uint64_t func) {
	uint32_t lo = 0, hi = s->nroi;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		if (s->roi[mid] < func) lo = mid + 1;
		else hi = mid;
	}
	return lo < s->nroi && s->roi[lo] == func;
}

// new_node adds a node for func called from site under parent; returns its
// index or -1.
__attribute__((noinline, cold)) static int64_t new_node(ic_state *s, uint32_t parent, uint64_t func, uint64_t site) {
	if (s->nnodes == s->capnodes) {
		ic_node *n = realloc(s->nodes, 2 * (size_t)s->capnodes * sizeof *n);
		if (!n) return -1;
		s->nodes = n;
		s->capnodes *= 2;
	}
	if (2 * (s->nnodes + 1) > s->nchild && grow_children(s, 2 * s->nchild) != 0) return -1;
	uint32_t i = s->nnodes++;
	ic_node *n = &s->nodes[i];
	memset(n, 0, sizeof *n);
	n->func = func;
	n->site = site;
	n->parent = parent;
	n->depth = s->nodes[parent].depth + 1;
	n->roi = s->nodes[parent].roi || in_roi(s, func);
	uint32_t h = child_hash(s->nchild - 1, parent, func, site);
	while (s->children[h]) h = (h + 1) & (s->nchild - 1);
	s->children[h] = i + 1;
	return i;
}

// ic_cct_find_child looks up, or adds, the node for func called from
// parent at site.
__attribute__((noinline)) int64_t ic_cct_find_child(ic_state *s, uint32_t parent, uint64_t func, uint64_t site) {
	int64_t found = -1;
	uint32_t h = child_hash(s->nchild - 1, parent, func, site);
	for (uint32_t slot; (slot = s->children[h]) != 0; h = (h + 1) & (s->nchild - 1)) {
		const ic_node *n = &s->nodes[slot - 1];
		if (n->parent == parent && n->func == func && n->site == site) {
			found = slot - 1;
			break;
		}
	}
	if (found < 0 && (found = new_node(s, parent, func, site)) < 0) return -1;
	return found;
}

// ic_cct_read_sp_unplaced reads the stack pointer while its place in the
// CPU state is not known: it looks for the place once the emulator has
// translated (regplace.c), and reads through uc_reg_read if none was found.
__attribute__((noinline)) uint64_t ic_cct_read_sp_unplaced(ic_state *s) {
	if (!s->sp_sought && ic_translating_cpu()) {
		s->sp_sought = 1;
		s->sp_at = ic_reg_place(s->uc, s->sp_reg);
	}
	if (s->sp_at) return *s->sp_at;
	uint64_t sp = 0;
	uc_reg_read(s->uc, s->sp_reg, &sp);
	return sp;
}

// ic_cct_grow_frames makes room for a frame more, or stops the emulator
// out of memory and returns -1.
__attribute__((noinline, cold)) int ic_cct_grow_frames(ic_state *s) {
	ic_frame *f = s->depth < IC_MAX_FRAMES ? realloc(s->frames, 2 * (size_t)s->capframes * sizeof *f) : NULL;
	if (!f) {
		s->oom = 1;
		uc_emu_stop(s->uc);
		return -1;
	}
	s->frames = f;
	s->capframes *= 2;
	return 0;
}

// ic_cct_set_root makes func the root's function: the function execution
// starts in.
__attribute__((noinline, cold)) void ic_cct_set_root(ic_state *s, uint64_t func) {
	s->root_set = 1;
	s->nodes[0].func = func;
	s->nodes[0].roi = in_roi(s, func) || s->nroi == 0;
}

// ic_cct_unwind pops every frame entered below sp: the guest has left them, for
// code of func (its entry, 0 if unknown). A frame entered at sp itself is
// left too when func is the function of a frame below it: on arm64 a call
// does not move the stack pointer, so a function's callee is entered at
// its caller's own sp, and a landing pad (a C++ exception's, longjmp's) in
// the caller is reached at that sp.
__attribute__((noinline)) void ic_cct_unwind(ic_state *s, uint64_t sp, uint64_t func) {
	uint32_t d = s->depth;
	while (d > 1 && s->frames[d - 1].sp < sp) d--;
	if (func && s->nodes[s->frames[d - 1].node].func != func) {
		for (uint32_t k = d; k > 1 && s->frames[k - 1].sp == sp; k--) {
			if (s->nodes[s->frames[k - 2].node].func == func) {
				d = k - 1;
				break;
			}
		}
	}
	pop_to(s, d);
}

// resume pops to the last frame entered of func, and reports whether
// there was one.
static int resume(ic_state *s, uint64_t func) {
	if (!func) return 0;
	for (uint32_t d = s->depth; d >= 1; d--) {
		if (s->nodes[s->frames[d - 1].node].func == func) {
			pop_to(s, d);
			return 1;
		}
	}
	return 0;
}

// ic_cct_enter_rare follows what ic_cct_follow sees seldom: a goroutine
// resumed, a signal's handler entered, a stack's first block. It reports
// whether it followed all of it; if not, the block's own function is left
// to be checked.
__attribute__((noinline)) int ic_cct_enter_rare(ic_state *s, ic_block *prev, ic_block *b, uint64_t func,
                                                uint32_t end) {
	if (end == IC_END_RESUME && s->g_reg && ic_goroutine_resumed(s) != 0) {
		s->oom = 1;
		uc_emu_stop(s->uc);
		return 1;
	}
	if (s->depth == 0) {
		push(s, func, 0, 0, read_sp(s), IC_FRAME_CALL, NULL);
		return 1;
	}
	if (end == IC_END_SIGNAL) {
		push(s, func, s->signal_ret, prev->addr, read_sp(s), IC_FRAME_SIGNAL, NULL);
		return 1;
	}
	// IC_END_RESUME: the goroutine's own frames are the running ones
	// (goroutines.c). The stack pointer says nothing here: it resumes on
	// a stack its frames were not entered on (a grown one, or its own
	// after the scheduler's). It resumes in the frame of the function it
	// jumps into that was entered last.
	if (!resume(s, b->func)) ic_cct_unwind(s, read_sp(s), b->func);
	return 0;
}

// ic_cct_signal enters a signal's handler on the running thread,
// interrupted at pc (in the function entered at func, 0 if unknown), the
// handler returning to ret: the move to pc the last block made is
// followed first, so that a signal arriving between a call and the
// callee's first block finds the callee called, then the handler's first
// block is entered as called from pc, in a frame marked as a handler's
// (ic_cct_sigreturn). A fault's pc lies in the block that ran last,
// already entered.
void ic_cct_signal(ic_state *s, uint64_t pc, uint64_t func, uint64_t ret) {
	if (!s->nodes) return;
	ic_block *cur = s->cur;
	if (!cur || pc < cur->addr || pc - cur->addr >= cur->size) {
		ic_block at = {.addr = pc, .func = func};
		if (ic_cct_moves(s, cur, s->cur_end, &at)) ic_cct_follow(s, cur, &at);
	}
	s->signal_entry = (ic_block){.addr = pc, .end = IC_END_SIGNAL};
	s->signal_ret = ret;
	ic_set_cur(s, &s->signal_entry);
}

// ic_cct_sigreturn leaves the running thread's innermost handler (the
// handler returned through rt_sigreturn): its frame goes, with every
// frame above it. The next block is entered from the frame below,
// wherever the handler had the thread resume.
void ic_cct_sigreturn(ic_state *s) {
	if (!s->nodes) return;
	for (uint32_t d = s->depth; d > 1; d--) {
		if (s->frames[d - 1].kind == IC_FRAME_SIGNAL) {
			pop_to(s, d - 1);
			break;
		}
	}
	ic_set_cur(s, NULL);
}

// ic_cct_settle adds the instructions counted for the top frame's node
// and not yet added to it (ic_settle_top), for a reader of the tree.
void ic_cct_settle(ic_state *s) {
	if (s->nodes) ic_settle_top(s);
}

// ic_enable_cct turns attribution on, with cells or not; call it before
// ic_install_hooks.
int ic_enable_cct(ic_state *s, int sp_reg, const uint64_t *roi, uint32_t nroi, int cells) {
	s->sp_reg = sp_reg;
	s->capnodes = 1024;
	s->nodes = calloc(s->capnodes, sizeof *s->nodes);
	s->capframes = 1024;
	s->frames = calloc(s->capframes, sizeof *s->frames);
	s->edges = calloc(IC_EDGES, sizeof *s->edges);
	if (nroi) {
		s->roi = malloc(nroi * sizeof *roi);
		if (s->roi) memcpy(s->roi, roi, nroi * sizeof *roi);
		s->nroi = nroi;
	}
	if (!s->nodes || !s->frames || !s->edges || (nroi && !s->roi) || grow_children(s, 2048) != 0 ||
	    (cells && ic_cells_init(s) != 0))
		return -1;
	s->nnodes = 1; // the root, filled in by the first block
	ic_set_cur(s, s->cur);
	return 0;
}

void ic_cct_free(ic_state *s) {
	free(s->nodes);
	free(s->frames);
	free(s->children);
	free(s->edges);
	free(s->roi);
	ic_cells_free(s);
	ic_goroutines_free(s);
}
