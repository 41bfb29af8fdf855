// What Unicorn 2.1 does for every block it translates that icount does
// not need: the linker sends the emulator's calls here (cpu.go: --wrap).
//
// After translating a block, Unicorn marks every TLB entry that gives
// write access to the block's page "not dirty", so that the next store
// there takes the slow path, which discards the page's translated code
// (self-modifying code). To find those entries it scans the whole TLB, of
// every MMU mode and the victim TLB: thousands of entries per translated
// block once the TLB has grown, which made translation the larger part of
// a first-seen block's cost. icount catches stores into code itself and
// before the emulator could: the first execution of every block marks its
// pages as holding code (hotpath.c: mark_code), which flushes the TLB when
// a page so marked was writable, and the TLB is never again given write
// access to such a page (memory.c: ic_tlb_fill); a store there is refused
// and handled as a store into code (codewrite.go). Every block Unicorn
// translates runs its block hook, which marks its pages, before any of its
// instructions; so Unicorn's marks would only ever fall on entries that
// icount's flush removes or never grants. The scan is skipped.
#include <stdint.h>

struct CPUState;

void __wrap_tlb_reset_dirty_by_vaddr_x86_64(struct CPUState *cpu, uint64_t start, uint64_t length) {
	(void)cpu, (void)start, (void)length;
}

void __wrap_tlb_reset_dirty_by_vaddr_aarch64(struct CPUState *cpu, uint64_t start, uint64_t length) {
	(void)cpu, (void)start, (void)length;
}
