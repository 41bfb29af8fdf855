// The C hot path of icount: per-block counting, the calling-context tree
// and the hooks Unicorn calls.
#ifndef ICOUNT_HOTPATH_H
#define ICOUNT_HOTPATH_H

#include <stdint.h>
#include <unicorn/unicorn.h>

#include "memory.h"

#if UC_API_MAJOR < 2 || (UC_API_MAJOR == 2 && UC_API_MINOR < 1)
#error "icount needs Unicorn 2.1 or newer: 2.0 sends every guest store through a slow path (6x slower). Run 'make deps'."
#endif

// How a block ends, as far as call tracking is concerned.
enum {
	IC_END_PLAIN = 0, // falls through or branches within the function
	IC_END_CALL = 1,  // call / bl / blr
	IC_END_RET = 2,   // ret
	IC_END_IJMP = 3,  // an indirect jump (switch tables, longjmp)
	// Go's runtime.gogo: the jump that resumes a goroutine where it was
	// (after its stack grew, a panic recovered, or another goroutine ran),
	// on another stack than the frames it left.
	IC_END_RESUME = 4,
	// Not a block's end: the entry of a signal's handler, the pseudo-block
	// (ic_state.signal_entry) a thread is interrupted by (ic_cct_signal).
	IC_END_SIGNAL = 5,
};

// One translated block as the emulator ran it, keyed by start address and
// size in bytes: an entry of the block table (blocks.c). An entry takes one
// 64-byte cache line, aligned: the hook's one access.
typedef struct ic_block {
	uint64_t addr;
	uint64_t execs; // times the block was entered (inside the region collected)
	uint64_t cut;   // instructions that did not complete in cut-short executions
	uint64_t func;  // entry address of the function holding it, 0 if unknown
	uint32_t size;  // bytes
	uint32_t ninsn; // instructions, from the Go decoder on first sight
	uint32_t end;   // IC_END_*
	uint32_t id;    // unique over the run: the decoder's key for this block
	// The cell (cells.c) of the context the block ran in last: its node
	// and the cell's index. A block runs in the same context as last
	// time, mostly: its cell is found here without a hash probe.
	uint32_t cell_node;
	uint32_t cell; // 0 for none yet
	// Its code changed (ic_forget_code): the index no longer has it, and
	// the next block run at its address is another.
	uint32_t forgotten;
	uint32_t pad;
} __attribute__((aligned(64))) ic_block;

// IC_BLOCK_CHUNK is the number of entries of a chunk of the block table
// (blocks.c): 64 KiB.
#define IC_BLOCK_CHUNK 1024

// ic_hash mixes the address bits that tell blocks apart, cheaply.
static inline uint32_t ic_hash(uint32_t mask, uint64_t addr) { return (uint32_t)(addr ^ (addr >> 13)) & mask; }

// A link (links.c): what the code translated at one address passes the
// block hook, which finds the block's entry through it. b is the entry of
// the block last run from there, or s->no_block.
typedef struct ic_link {
	ic_block *b;
	struct ic_state *s;
	uint64_t addr;
} ic_link;

// A node of the calling-context tree: one function reached by one path of
// calls from the root, the last of them made at one call site.
typedef struct ic_node {
	uint64_t func;   // entry address of the function
	uint64_t site;   // where it was entered from, with cells (cct.c); 0 for the root
	uint64_t insns;  // instructions executed in this context's own code
	uint64_t calls;  // times this context was entered
	uint32_t parent; // index of the parent node; the root is its own parent
	uint16_t depth;  // root is 0
	uint16_t roi;    // inside the region of interest (--collect)
} ic_node;

// IC_SITE_JUMP flags a node's site that is the end of the block that
// jumped into it, not a call's return address.
#define IC_SITE_JUMP (1ull << 63)

// A cell: one block's executions in one context (node) of the tree, kept
// when asked for (ic_enable_cct). The instructions a node executed are its
// cells' executions times their blocks' instructions, less the cuts of its
// cells.
typedef struct ic_cell {
	uint64_t execs;
	uint32_t node;
	uint32_t block; // the block's id
} ic_cell;

// The executions of a cell cut short before its block's instruction
// index: that instruction and those after it did not complete.
typedef struct ic_cellcut {
	uint32_t cell; // index of the cell; 0 for an empty slot
	uint32_t index;
	uint64_t execs;
} ic_cellcut;

// A frame of the shadow stack.
typedef struct ic_frame {
	uint64_t ret; // the return address a ret must reach, 0 for a frame entered by a jump
	uint64_t sp;  // the stack pointer at entry
	uint32_t node;
	uint32_t kind; // IC_FRAME_*
} ic_frame;

// How a frame was entered.
enum {
	IC_FRAME_CALL = 0,
	IC_FRAME_JUMPED = 1, // by a jump (tail call, fall-through), not a call
	IC_FRAME_SIGNAL = 2, // a signal's handler, entered at its delivery, left at rt_sigreturn
};

// The part of the state that belongs to one guest thread: its shadow
// stack and the block it ran last. The running thread's lives in ic_state;
// the others' are kept here while they wait (ic_thread_switch).
typedef struct ic_thread {
	ic_frame *frames;
	uint32_t depth, capframes;
	uint32_t top;
	uint64_t top_func;
	uint64_t last_addr; // the block it ran last, by address and size: one
	uint32_t last_size; // forgotten since is not followed from
	// A signal delivered to it whose handler has not run a block yet
	// (ic_state.signal_entry): where it interrupted the thread, and where
	// the handler returns to.
	int signal_pending;
	uint64_t signal_pc, signal_ret;
	uint32_t cur_cell;
	int cur_in_roi;
	uint64_t cur_g; // Go: the goroutine it ran (goroutines.c), whose frames gstacks holds; 0 for none
} ic_thread;

// An edge of the calling-context tree the call tree entered: the node that
// block from, by a call or a jump in the context parent, entered func in
// (cct_follow.h). The block decides the node's site, so the three find
// the node; an interpreter's dispatch enters many functions from one
// context.
typedef struct ic_edge {
	const struct ic_block *from;
	uint64_t func;
	uint32_t parent, node;
} ic_edge;

#define IC_EDGES 2048

// A Go goroutine's shadow stack while it does not run (goroutines.c).
typedef struct ic_gstack {
	uint64_t g; // its runtime.g; 0 for an empty slot
	ic_frame *frames;
	uint32_t depth, capframes;
	uint64_t lo, hi; // its stack's bounds when it last ran
} ic_gstack;

// The ids of the blocks first seen in one 4 KiB page (every page a block
// touches), so that the blocks of a page whose code changed are found
// without walking the whole table.
typedef struct ic_pageids {
	uint64_t page; // page number + 1; 0 for an empty slot
	uint32_t n, cap;
	uint32_t *ids;
} ic_pageids;

typedef struct ic_state {
	uc_engine *uc;
	uintptr_t handle; // cgo.Handle of the Go-side CPU
	int pc_reg;       // the program counter's register (ic_install_hooks)

	// The block table (blocks.c): entries in chunks, block id n the
	// (n - 1)th; the index, open addressing on address and size; the
	// blocks of each page (open addressing on page number).
	ic_block **chunks;
	uint32_t capchunks;
	uint32_t nblocks; // entries: ids 1 to nblocks
	uint32_t *slots;  // ids, 0 for an empty slot
	uint32_t nslots;  // power of two
	uint32_t nindexed;
	ic_pageids *pages;
	uint32_t npageslots, npages;
	// Arrays of chunks outgrown, freed with the table: each is half the
	// next, and a reader on another thread never reads freed memory.
	ic_block **retired[32];
	int nretired;

	ic_block *cur;        // the block executing now, NULL before the first
	uint32_t cur_end;     // its end (IC_END_*), with a call tree (ic_set_cur)
	// A signal's delivery, as cur while its handler is entered: its addr
	// is where the thread was interrupted (ic_cct_signal); signal_ret is
	// where the handler returns to (the restorer, which makes the
	// rt_sigreturn call).
	ic_block signal_entry;
	uint64_t signal_ret;
	uint32_t until_flush; // blocks until the next TLB flush

	// Calling-context tree, kept only with attribution on.
	ic_node *nodes;
	uint32_t nnodes, capnodes;
	uint32_t *children; // open addressing on (parent, func): node index + 1
	uint32_t nchild;    // slots, a power of two
	ic_edge *edges;     // IC_EDGES direct-mapped on (block, parent, func)
	ic_frame *frames;
	uint32_t depth, capframes;
	uint32_t top;      // node of the top frame
	uint64_t top_func; // its function
	// Instructions run in top's context not yet added to its node: the
	// hook adds a block's here, into the line it writes anyway, and
	// ic_settle_top moves them to the node before top changes or the
	// tree is read.
	uint64_t top_insns;
	int sp_reg; // the stack pointer's Unicorn register id
	// Where the CPU state keeps it (regplace.c), NULL until found or if
	// not found; sp_sought says it was looked for.
	uint64_t *sp_at;
	int sp_sought;
	// Go's goroutines (goroutines.c): each has its own shadow stack. g_reg
	// is the register holding the running goroutine's g (0 in a program
	// that is not Go's), goexit0 the entry of runtime.goexit0, which a
	// goroutine's end calls; cur_g is the goroutine whose frames are
	// the running thread's (0: the thread's own, before its first), and
	// g_exited says it has ended; g_lo and g_hi are the bounds of its
	// stack, as of when it was resumed last. gstacks holds the stacks of
	// the others (open addressing on g).
	int g_reg;
	uint64_t goexit0;
	uint64_t cur_g;
	int g_exited;
	uint64_t g_lo, g_hi;
	ic_gstack *gstacks;
	uint32_t ngstacks, ngslots;
	uint64_t *roi;     // sorted entry addresses of the functions to collect
	uint32_t nroi;
	int cur_in_roi;         // the current block execution was counted
	// The cells (cells.c), NULL unless asked for: cells[0] takes nothing
	// real (a cell that could not be made counts there). An open-addressing table on (node,
	// block) gives a cell's index + 1; another the cuts by cell and index.
	ic_cell *cells;
	uint32_t ncells, capcells;
	uint32_t *cellslots;
	uint32_t ncellslots; // a power of two
	uint32_t cur_cell;   // the cell of the current block execution
	ic_cellcut *cuts;
	uint32_t ncuts, ncutslots;
	uint64_t outside_insns; // instructions outside the region collected
	uint64_t outside_execs;

	// An instruction limit: the hook stops before a block that would pass it.
	int limited;
	uint64_t budget; // instructions that may still run
	int limit_hit;
	// The block it stopped before: on x86-64 the emulator's RIP is stale
	// then (chained blocks do not write it back).
	uint64_t limit_pc;
	uc_hook block_hook; // the block hook installed, one of the variants
	void *block_callback; // its function
	// The function whose helper description the engine's TCG context
	// holds since icount last had Unicorn add the block hook's call
	// (translation.c), and the count of descriptions removed then.
	void *block_call_described;
	unsigned block_call_removals;
	unsigned block_call_descriptions; // calls Unicorn added itself (tests)
	// The links (links.c), in chunks that never move, and by address
	// (open addressing on a link's number + 1); the hook's own, its user
	// data, which a block translated without a link of its own passes; and
	// the entry that an unbound link points at.
	ic_link **linkchunks;
	uint32_t nlinks, caplinkchunks;
	uint32_t *linkslots;
	uint32_t nlinkslots;
	ic_link own_link;
	ic_block no_block;
	// Unicorn's table of the blocks the block hook was translated into,
	// which icount leaves empty (translation.c: ic_capture_regions).
	void *block_regions;
	int hook_limited;   // it is a limited variant (which, with limited 0, limits nothing)
	int root_set;       // the tree's root has its function (a later thread's first frame is its child)

	ic_mem *mem; // guest memory (memory.h)
	int oom;     // a table could not grow

	// A stop asked from another thread, and taken by a block's hook.
	int stop_asked, stop_hit;

	// x86-64: a context in which icount edits the CPU state that
	// Unicorn's API does not reach: the exception in flight (exception.c),
	// the FP exception flags and FZ (fpstatus.c). NULL on arm64.
	uc_context *scratch;
	// Instruction sites (sites.h), and a restart asked by the first-sight
	// hook of the block being entered (IC_RESTART).
	struct ic_sites *sites;
	int restart;
} ic_state;

// ic_set_cur makes b (NULL: none) the block executing now, keeping its end
// beside it, which the next block's hook reads (ic_cct_moves) without
// going to b's entry. Only the call tree reads it: the hook without one
// sets cur alone (a CPU gets its tree before its first block, and
// ic_enable_cct sets cur_end for whatever cur is then).
static inline __attribute__((always_inline)) void ic_set_cur(ic_state *s, ic_block *b) {
	s->cur = b;
	s->cur_end = b ? b->end : IC_END_PLAIN;
}

// ic_settle_top adds the instructions counted for the top frame's node
// since top last changed to the node: before top changes, and before the
// tree or the node's count is read or changed.
static inline __attribute__((always_inline)) void ic_settle_top(ic_state *s) {
	if (s->top_insns) {
		s->nodes[s->top].insns += s->top_insns;
		s->top_insns = 0;
	}
}

// Set in what icountGoNewBlock returns when Go hooked an instruction of the
// block being entered: the entry is not counted, and the block runs again
// from its start, retranslated with the hook (ic_restart).
#define IC_RESTART 0x80000000u

ic_state *ic_new(uc_engine *uc, uintptr_t handle);
void ic_free(ic_state *s);
int ic_enable_cct(ic_state *s, int sp_reg, const uint64_t *roi, uint32_t nroi, int cells);
uc_err ic_install_hooks(ic_state *s, int arch);
void ic_cut(ic_state *s, uint32_t notrun);
void ic_cct_settle(ic_state *s);
void ic_forget_code(ic_state *s, uint64_t begin, uint64_t end);

void ic_ask_stop(ic_state *s);
void ic_inflight_find(uc_engine *uc);
void ic_probe_x86(void);
void ic_inflight_clear(ic_state *s);
uc_err ic_use_limited(ic_state *s);
uc_err ic_set_block_hook(ic_state *s);
uc_err ic_replace_block_hook(ic_state *s, void *callback);
uc_err ic_emu_start(ic_state *s, uint64_t pc, size_t count);
void *ic_capture_regions(int on);
void *ic_running_regions(void);
int ic_reset(ic_state *s);
void ic_links_init(ic_state *s);
void ic_links_unbind(ic_state *s);
ic_link *ic_link_at(ic_state *s, uint64_t addr);
void ic_links_free(ic_state *s);
void ic_links_forget(ic_state *s, const ic_block *b);
int ic_blocks_init(ic_state *s);
void ic_blocks_free(ic_state *s);
ic_block *ic_block_of(const ic_state *s, uint32_t id);
ic_block *ic_block_find(const ic_state *s, uint64_t addr, uint32_t size);
ic_block *ic_block_add(ic_state *s, uint64_t addr, uint32_t size);
void *ic_block_link(void *hook, uint64_t addr);
void *ic_block_call_described(void *hook, unsigned removals);
void ic_block_call_describe(void *hook, unsigned removals);
void *ic_translating_cpu(void);
void ic_translating_reset(void);
size_t ic_tlb_entries(void); // tlbsize.c
int ic_exit_checks_skipped(int arch); // exitcheck.c
uc_err ic_mem_withhold_writes(uc_engine *uc, uint64_t addr);
uint64_t *ic_reg_place(uc_engine *uc, int reg);
int ic_thread_init(ic_state *s, ic_thread *t);
void ic_thread_switch(ic_state *s, ic_thread *save, ic_thread *load);
void ic_thread_free(ic_thread *t);
uc_err ic_set_cpu_model(uc_engine *uc, int model);
uc_err ic_set_exit(uc_engine *uc, uint64_t at);

// Shared between hotpath.c, cct.c and cells.c.
void ic_cct_signal(ic_state *s, uint64_t pc, uint64_t func, uint64_t ret);
void ic_cct_sigreturn(ic_state *s);
void ic_track_goroutines(ic_state *s, int g_reg, uint64_t goexit0);
int ic_goroutine_resumed(ic_state *s);
uint64_t ic_goroutines_thread_out(ic_state *s);
void ic_goroutines_thread_in(ic_state *s, uint64_t g);
void ic_goroutines_free(ic_state *s);
ic_frame *ic_thread_frames(const ic_state *s, const ic_thread *t, uint32_t *depth);
void ic_cct_free(ic_state *s);
int ic_cells_init(ic_state *s);
uint32_t ic_cell_of(ic_state *s, ic_block *b);
void ic_cell_cut(ic_state *s, uint32_t cell, uint32_t index);
void ic_cells_free(ic_state *s);
void ic_restart(ic_state *s, uint64_t addr);

#endif
