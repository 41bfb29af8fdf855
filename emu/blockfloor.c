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
// (empty != 0) or by none, and discards the code translated with the one
// before. Nothing is counted after it: s is for a benchmark only.
uc_err ic_floor_block_hook(ic_state *s, int empty) {
	if (s->block_hook) {
		uc_err err = uc_hook_del(s->uc, s->block_hook);
		if (err != UC_ERR_OK) return err;
		s->block_hook = 0;
		s->block_regions = NULL;
		s->block_callback = NULL;
	}
	uc_err err = uc_ctl_flush_tb(s->uc);
	if (err != UC_ERR_OK || !empty) return err;
	// Its calls are added as the block hook's are (translation.c), with a
	// link for their data.
	err = uc_hook_add(s->uc, &s->block_hook, UC_HOOK_BLOCK, (void *)hook_nothing, NULL, 1, 0);
	if (err == UC_ERR_OK) s->block_callback = (void *)hook_nothing;
	return err;
}
