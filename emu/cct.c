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
#include "hotpath.h"

#include <stdlib.h>
#include <string.h>

#define IC_MAX_DEPTH 512
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

// find_child looks up, or adds, the node for func called from parent at
// site, and makes it the parent's last child.
__attribute__((noinline)) static int64_t find_child(ic_state *s, uint32_t parent, uint64_t func, uint64_t site) {
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
	ic_node *p = &s->nodes[parent];
	p->last_func = func;
	p->last_site = site;
	p->last_child = (uint32_t)found;
	return found;
}

// child returns the node for func called from parent at site, by the
// block from when a call entered it (NULL otherwise).
static inline __attribute__((always_inline)) int64_t child(ic_state *s, uint32_t parent, uint64_t func,
                                                           uint64_t site, const ic_block *from) {
	const ic_node *p = &s->nodes[parent];
	if (p->func == func || p->depth >= IC_MAX_DEPTH) return parent;
	if (p->last_func == func && p->last_site == site && p->last_child) return p->last_child;
	if (!from) return find_child(s, parent, func, site);
	uint64_t k = ((uintptr_t)from >> 6) ^ ((uint64_t)parent << 32) ^ func;
	ic_call *c = &s->calls[(uint32_t)((k * 0x9E3779B97F4A7C15ull) >> 32) & (IC_CALLS - 1)];
	if (c->from == from && c->parent == parent && c->func == func) return c->node;
	int64_t node = find_child(s, parent, func, site);
	if (node >= 0) *c = (ic_call){.from = from, .func = func, .parent = parent, .node = (uint32_t)node};
	return node;
}

// read_sp_unplaced reads the stack pointer while its place in the CPU
// state is not known: it looks for the place once the emulator has
// translated (regplace.c), and reads through uc_reg_read if none was found.
__attribute__((noinline)) static uint64_t read_sp_unplaced(ic_state *s) {
	if (!s->sp_sought && ic_translating_cpu()) {
		s->sp_sought = 1;
		s->sp_at = ic_reg_place(s->uc, s->sp_reg);
	}
	if (s->sp_at) return *s->sp_at;
	uint64_t sp = 0;
	uc_reg_read(s->uc, s->sp_reg, &sp);
	return sp;
}

// read_sp reads the stack pointer, from its place in the CPU state once
// found: uc_reg_read is a tenth of an interpreter's run with attribution.
static inline __attribute__((always_inline)) uint64_t read_sp(ic_state *s) {
	if (__builtin_expect(s->sp_at != NULL, 1)) return *s->sp_at;
	return read_sp_unplaced(s);
}

static inline __attribute__((always_inline)) void set_top(ic_state *s) {
	s->top = s->frames[s->depth - 1].node;
	s->top_func = s->nodes[s->top].func;
}

// grow_frames makes room for a frame more, or stops the emulator out of
// memory and returns -1.
__attribute__((noinline, cold)) static int grow_frames(ic_state *s) {
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

// push pushes a frame for func, entered as kind says (IC_FRAME_*), by a
// call or a signal returning to ret or, with ret 0, by a jump; site is
// where it was entered from (the node's key, with cells), and from the
// block whose call entered it (NULL if no call did).
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
	if (__builtin_expect(s->depth == s->capframes, 0) && grow_frames(s) != 0) return;
	if (__builtin_expect(node == 0 && !s->root_set, 0)) {
		// The root: the function execution starts in.
		s->root_set = 1;
		s->nodes[0].func = func;
		s->nodes[0].roi = in_roi(s, func) || s->nroi == 0;
	}
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

// unwind pops every frame entered below sp: the guest has left them, for
// code of func (its entry, 0 if unknown). A frame entered at sp itself is
// left too when func is the function of a frame below it: on arm64 a call
// does not move the stack pointer, so a function's callee is entered at
// its caller's own sp, and a landing pad (a C++ exception's, longjmp's) in
// the caller is reached at that sp.
static void unwind(ic_state *s, uint64_t sp, uint64_t func) {
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

// jump_into handles reaching func without a call, from site: back to it if
// it is the function of a frame reached only through jumps from it, else a
// new frame.
static inline __attribute__((always_inline)) void jump_into(ic_state *s, uint64_t func, uint64_t sp, uint64_t site) {
	for (uint32_t d = s->depth; d > 1 && s->frames[d - 1].kind == IC_FRAME_JUMPED; d--) {
		if (s->nodes[s->frames[d - 2].node].func == func) {
			pop_to(s, d - 1);
			return;
		}
	}
	push(s, func, 0, site, sp, IC_FRAME_JUMPED, NULL);
}

// enter_rare follows what ic_cct_enter sees seldom: a goroutine resumed,
// a signal's handler entered, a stack's first block. It reports whether
// it followed all of it; if not, the block's own function is left to be
// checked.
__attribute__((noinline)) static int enter_rare(ic_state *s, ic_block *prev, ic_block *b, uint64_t func,
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
	if (!resume(s, b->func)) unwind(s, read_sp(s), b->func);
	return 0;
}

// ic_cct_enter follows the move from prev (NULL when a thread resumed
// after its last block's code changed) to b. The common ends are tested
// in turn, most frequent first, rather than through a jump table: a
// call-heavy program comes here at every call and return.
void ic_cct_enter(ic_state *s, ic_block *prev, ic_block *b) {
	uint64_t func = b->func ? b->func : b->addr;
	uint32_t end = prev ? prev->end : IC_END_PLAIN;
	if (__builtin_expect(end >= IC_END_RESUME || s->depth == 0, 0)) {
		if (enter_rare(s, prev, b, func, end)) return;
	} else if (end == IC_END_CALL) {
		if (func == s->goexit0 && s->goexit0) s->g_exited = 1; // the goroutine ends
		push(s, func, prev->addr + prev->size, prev->addr + prev->size, read_sp(s), IC_FRAME_CALL, prev);
		return;
	} else if (end == IC_END_RET) {
		if (!pop_return(s, b->addr)) unwind(s, read_sp(s), b->func);
	} else if (end == IC_END_IJMP) {
		unwind(s, read_sp(s), b->func);
	}
	if (b->func && b->func != s->top_func) {
		jump_into(s, b->func, read_sp(s), prev ? (prev->addr + prev->size) | IC_SITE_JUMP : 0);
	}
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
		if (!cur || cur->end != IC_END_PLAIN || (func && func != s->top_func)) ic_cct_enter(s, cur, &at);
	}
	s->signal_entry = (ic_block){.addr = pc, .end = IC_END_SIGNAL};
	s->signal_ret = ret;
	s->cur = &s->signal_entry;
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
	s->cur = NULL;
}

// ic_enable_cct turns attribution on, with cells or not; call it before
// ic_install_hooks.
int ic_enable_cct(ic_state *s, int sp_reg, const uint64_t *roi, uint32_t nroi, int cells) {
	s->sp_reg = sp_reg;
	s->capnodes = 1024;
	s->nodes = calloc(s->capnodes, sizeof *s->nodes);
	s->capframes = 1024;
	s->frames = calloc(s->capframes, sizeof *s->frames);
	s->calls = calloc(IC_CALLS, sizeof *s->calls);
	if (nroi) {
		s->roi = malloc(nroi * sizeof *roi);
		if (s->roi) memcpy(s->roi, roi, nroi * sizeof *roi);
		s->nroi = nroi;
	}
	if (!s->nodes || !s->frames || !s->calls || (nroi && !s->roi) || grow_children(s, 2048) != 0 ||
	    (cells && ic_cells_init(s) != 0))
		return -1;
	s->nnodes = 1; // the root, filled in by the first block
	return 0;
}

void ic_cct_free(ic_state *s) {
	free(s->nodes);
	free(s->frames);
	free(s->children);
	free(s->calls);
	free(s->roi);
	ic_cells_free(s);
	ic_goroutines_free(s);
}
