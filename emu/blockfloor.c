// The floor under the block hook, for BenchmarkBlockHook: the same code
// run with no block hook at all, and with one that does nothing. What the
// emulator costs per block without counting, and what Unicorn's call of a
// block hook costs by itself, are what the hook's own work is measured
// against (docs/unicorn-from-source.md: the per-block floor).
#include "hotpath.h"

static void hook_nothing(uc_engine *uc, uint64_t addr, uint32_t size, void *ud) {
	(void)uc, (void)addr, (void)size, (void)ud;
}

// ic_floor_block_hook replaces s's block hook by a hook that does nothing
// (empty != 0), called as the block hook is, or by none. Nothing is
// counted after it: s is for a benchmark only.
uc_err ic_floor_block_hook(ic_state *s, int empty) {
	return ic_replace_block_hook(s, empty ? (void *)hook_nothing : NULL);
}
