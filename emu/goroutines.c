// Go's goroutines, each with its own shadow stack.
//
// A Go program runs many goroutines on a few threads: runtime.gogo resumes
// one (IC_END_RESUME) after another ran, after its stack grew or after a
// panic was recovered, with its g in a register (R14 on x86-64, R28 on
// arm64). One shadow stack per thread would mix their frames: a goroutine
// resumed at the entry of a function it was preempted in (at its stack
// check) would find that function's frame popped by another goroutine's
// resume, and count a call more. So each goroutine keeps its own: the
// running thread's frames are its current goroutine's, and gstacks holds
// every other goroutine's, by g, until a thread resumes it.
//
// Go moves a goroutine's stack to grow or shrink it, and the frames' stack
// pointers with it: when a goroutine is resumed on a stack whose bounds
// (its g's first two words, stack.lo and stack.hi) moved, the frames
// entered on the old one move by the same distance, so that an unwind by
// stack pointer (cct.c) compares like with like.
//
// A goroutine's first frame is a child of the root, as a later thread's
// is. A goroutine ends in runtime.goexit0 (which goexit1 calls on the
// thread's g0 stack, from a goroutine's last return or runtime.Goexit);
// its stack is dropped
// when its thread leaves it, so that the next goroutine given the same g
// (the runtime reuses them) starts with an empty one. A thread's frames
// before its first goroutine (the runtime's start, on the thread's g0) are
// dropped when it resumes one: nothing resumes them.
#include "hotpath.h"

#include <stdlib.h>
#include <string.h>

#define IC_GSTACK_MIN 16

// ic_track_goroutines keeps a shadow stack per goroutine from the next
// resume on; g_reg is the register holding g, goexit0 the entry of
// runtime.goexit0 (0 if the program has none known).
void ic_track_goroutines(ic_state *s, int g_reg, uint64_t goexit0) {
	if (!s->nodes) return; // no call tree
	s->g_reg = g_reg;
	s->goexit0 = goexit0;
}

static uint32_t g_hash(uint32_t mask, uint64_t g) { return (uint32_t)((g * 0x9E3779B97F4A7C15ull) >> 32) & mask; }

static int grow_gstacks(ic_state *s) {
	uint32_t n = s->ngslots ? 2 * s->ngslots : 256;
	ic_gstack *t = calloc(n, sizeof *t);
	if (!t) return -1;
	for (uint32_t i = 0; i < s->ngslots; i++) {
		if (!s->gstacks[i].g) continue;
		uint32_t h = g_hash(n - 1, s->gstacks[i].g);
		while (t[h].g) h = (h + 1) & (n - 1);
		t[h] = s->gstacks[i];
	}
	free(s->gstacks);
	s->gstacks = t;
	s->ngslots = n;
	return 0;
}

// find returns the slot of g's kept frames, NULL if none.
static ic_gstack *find(const ic_state *s, uint64_t g) {
	if (!g || !s->ngstacks) return NULL;
	uint32_t mask = s->ngslots - 1;
	for (uint32_t h = g_hash(mask, g); s->gstacks[h].g; h = (h + 1) & mask) {
		if (s->gstacks[h].g == g) return &s->gstacks[h];
	}
	return NULL;
}

// put keeps the running frames as g's, shrunk when they hold far more
// room than frames; the running thread is left with none.
static int put(ic_state *s, uint64_t g) {
	if (2 * (s->ngstacks + 1) > s->ngslots && grow_gstacks(s) != 0) return -1;
	if (s->capframes > 4 * IC_GSTACK_MIN && s->depth < s->capframes / 4) {
		uint32_t cap = s->depth < IC_GSTACK_MIN ? IC_GSTACK_MIN : s->depth;
		ic_frame *f = realloc(s->frames, cap * sizeof *f);
		if (f) s->frames = f, s->capframes = cap;
	}
	ic_gstack *e = find(s, g);
	if (e) {
		free(e->frames); // cannot happen: a goroutine runs on one thread at a time
	} else {
		uint32_t mask = s->ngslots - 1, h = g_hash(mask, g);
		while (s->gstacks[h].g) h = (h + 1) & mask;
		e = &s->gstacks[h];
		s->ngstacks++;
	}
	*e = (ic_gstack){
	    .g = g, .frames = s->frames, .depth = s->depth, .capframes = s->capframes, .lo = s->g_lo, .hi = s->g_hi};
	s->frames = NULL, s->depth = 0, s->capframes = 0;
	return 0;
}

// ic_thread_frames returns the frames of t, a thread not running, and
// sets *depth to their number: its own, or those of the goroutine it ran.
ic_frame *ic_thread_frames(const ic_state *s, const ic_thread *t, uint32_t *depth) {
	const ic_gstack *e = t->cur_g ? find(s, t->cur_g) : NULL;
	*depth = e ? e->depth : t->depth;
	return e ? e->frames : t->frames;
}

// take makes g's kept frames the running ones, removing them from gstacks;
// it reports whether g had any.
static int take(ic_state *s, uint64_t g) {
	ic_gstack *slot = find(s, g);
	if (!slot) return 0;
	uint32_t mask = s->ngslots - 1, h = (uint32_t)(slot - s->gstacks);
	ic_gstack e = s->gstacks[h];
	// Empty the slot, moving back each entry after it whose probe passed
	// it (its home is not between the hole and it).
	for (uint32_t j = (h + 1) & mask; s->gstacks[j].g; j = (j + 1) & mask) {
		uint32_t home = g_hash(mask, s->gstacks[j].g);
		if (((j - home) & mask) >= ((j - h) & mask)) {
			s->gstacks[h] = s->gstacks[j];
			h = j;
		}
	}
	s->gstacks[h] = (ic_gstack){0};
	s->ngstacks--;
	s->frames = e.frames, s->depth = e.depth, s->capframes = e.capframes;
	s->g_lo = e.lo, s->g_hi = e.hi;
	if (s->depth) {
		ic_settle_top(s);
		s->top = s->frames[s->depth - 1].node;
		s->top_func = s->nodes[s->top].func;
	}
	return 1;
}

// park puts the running frames away: as the current goroutine's, or
// dropped when it has ended or there is none.
static int park(ic_state *s) {
	if (s->cur_g && !s->g_exited) return put(s, s->cur_g);
	free(s->frames);
	s->frames = NULL, s->depth = 0, s->capframes = 0;
	return 0;
}

// fresh gives the running thread an empty stack, whose next block pushes
// its first frame under the root.
static int fresh(ic_state *s) {
	s->frames = calloc(IC_GSTACK_MIN, sizeof *s->frames);
	if (!s->frames) return -1;
	ic_settle_top(s);
	s->capframes = IC_GSTACK_MIN, s->depth = 0, s->top = 0, s->top_func = 0;
	s->g_lo = s->g_hi = 0;
	return 0;
}

// follow_stack moves the frames entered on the running goroutine's stack
// when the runtime has moved that stack since it last ran.
static void follow_stack(ic_state *s) {
	uint64_t bounds[2] = {0, 0}; // g.stack: lo, hi
	if (uc_mem_read(s->uc, s->cur_g, bounds, sizeof bounds) != UC_ERR_OK) return;
	if (s->g_hi && bounds[1] != s->g_hi) {
		uint64_t delta = bounds[1] - s->g_hi; // as the runtime's copystack moves them
		for (uint32_t d = 0; d < s->depth; d++) {
			if (s->frames[d].sp >= s->g_lo && s->frames[d].sp <= s->g_hi) s->frames[d].sp += delta;
		}
	}
	s->g_lo = bounds[0], s->g_hi = bounds[1];
}

// ic_goroutine_resumed switches to the frames of the goroutine gogo has
// just resumed, when it is another than the one running, and follows its
// stack if it moved; -1 when out of memory.
int ic_goroutine_resumed(ic_state *s) {
	uint64_t g = 0;
	uc_reg_read(s->uc, s->g_reg, &g);
	if (g != s->cur_g || s->g_exited) {
		if (park(s) != 0) return -1;
		s->cur_g = g, s->g_exited = 0;
		if (!take(s, g) && fresh(s) != 0) return -1;
	}
	if (g) follow_stack(s);
	return 0;
}

// ic_goroutines_thread_out puts the running thread's goroutine's frames
// away as the thread stops running (ic_thread_switch): another thread may
// resume the goroutine meanwhile. It returns the goroutine the thread is
// to take back, 0 for none (the thread keeps its own frames in s, or
// none: its goroutine ended).
uint64_t ic_goroutines_thread_out(ic_state *s) {
	uint64_t g = s->g_exited ? 0 : s->cur_g;
	if (s->cur_g && park(s) != 0) {
		s->oom = 1;
		uc_emu_stop(s->uc);
	}
	s->cur_g = 0, s->g_exited = 0, s->g_lo = s->g_hi = 0;
	return g;
}

// ic_goroutines_thread_in takes back the frames of the goroutine g a
// thread ran when it stopped, after ic_thread_switch loaded its state;
// when another thread resumed that goroutine meanwhile, or the one it ran
// ended, the thread starts an empty stack.
void ic_goroutines_thread_in(ic_state *s, uint64_t g) {
	if (!s->nodes || (!g && s->frames)) return; // no tree, or the thread's own frames
	if (g && take(s, g)) {
		s->cur_g = g;
		return;
	}
	ic_set_cur(s, NULL); // the next block starts the stack
	if (fresh(s) != 0) {
		s->oom = 1;
		uc_emu_stop(s->uc);
	}
}

void ic_goroutines_free(ic_state *s) {
	for (uint32_t i = 0; i < s->ngslots; i++) free(s->gstacks[i].frames);
	free(s->gstacks);
	s->gstacks = NULL;
	s->ngslots = s->ngstacks = 0;
}
