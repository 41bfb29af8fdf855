// Exit checks: Unicorn's test after every guest memory access, which
// icount does not need.
//
// Unicorn follows every load and store it translates with a test of the
// CPU's exit request (check_exit_request in tcg-op.c): its store helper,
// given an address no memory region holds or one the region does not let
// it write, drops the store, asks the CPU to exit and returns, and the test
// leaves the block before the next instruction. The test is a load and a
// branch, but the branch ends the translator's basic block: every guest
// register the block changed is stored back to the CPU state before it and
// loaded again after. Those spills, more than the test, cost an
// interpreter's run: without them CPython's fib(25) took 12 % less CPU
// time (docs/unicorn-from-source.md).
//
// Under icount no access gets there: the TLB is filled by icount alone
// (memory.c: ic_tlb_fill), which gives only pages of a slab mapped whole
// with every permission, and refuses everything else, which the emulator
// turns into an exception at the exact instruction by unwinding the block
// (its restore of the CPU state from the host return address), not by
// asking it to exit. Whatever else asks the CPU to exit does so from a
// hook whose test the translator emits on its own: the block hook's, at the
// block's start, and a code hook's, after its call; or from the hook of
// an instruction that ends its block (a system call); or from another
// thread, whose request the next block's start sees. So the loads and
// stores of guest code are translated without it.
//
// Unicorn skips the test while its translation state says so (the flag
// uc_struct.no_exit_request, set for an ARM IT block); the wrappers of the
// translator's load and store calls set that flag around each call. The
// flag's place is not published: it is read where check_exit_request
// reads it, from the function's own code, whose first instructions (with
// the layout of Debian's 2.1.1 build) load the uc_struct from the
// TCGContext and test the flag, returning at once when it is set. Any
// other code leaves the flag unfound and the test in place: the run is
// slower, never different.
#include <stdint.h>
#include <string.h>

#include "hotpath.h"
#include "memory.h"

struct TCGContext;

// exit_flag_place is where check_exit_request finds the flag: the
// uc_struct's offset in the TCGContext and the flag's in the uc_struct;
// found says they were read.
struct exit_flag_place {
	int found;
	uint32_t ctx_uc, uc_flag;
};

// find_exit_flag reads the place of the flag from the first instructions
// of check_exit_request:
//   f3 0f 1e fa           endbr64 (when built with CET)
//   48 8b 87 <d32>        mov d32(%rdi), %rax    ; tcg_ctx->uc
//   80 b8 <d32> 00        cmpb $0, d32(%rax)     ; uc->no_exit_request
//   74 <d8>               je <emit the test>
//   c3                    ret
static struct exit_flag_place find_exit_flag(const void *fn) {
	const uint8_t *c = fn;
	struct exit_flag_place p = {0};
	if (c[0] == 0xf3 && c[1] == 0x0f && c[2] == 0x1e && c[3] == 0xfa) c += 4;
	static const uint8_t mov[] = {0x48, 0x8b, 0x87}, cmp[] = {0x80, 0xb8};
	if (memcmp(c, mov, 3) != 0 || memcmp(c + 7, cmp, 2) != 0 || c[13] != 0 || c[14] != 0x74 || c[16] != 0xc3)
		return p;
	memcpy(&p.ctx_uc, c + 3, 4);
	memcpy(&p.uc_flag, c + 9, 4);
	p.found = p.ctx_uc < (1u << 20) && p.uc_flag < (1u << 20);
	return p;
}

// exit_flag returns the flag of ctx's engine, NULL when its place was not
// found.
static uint8_t *exit_flag(const struct exit_flag_place *p, struct TCGContext *ctx) {
	if (!p->found) return NULL;
	char *uc;
	memcpy(&uc, (char *)ctx + p->ctx_uc, sizeof uc);
	return uc ? (uint8_t *)uc + p->uc_flag : NULL;
}

// The translator's loads and stores of one target (tcg-op.c), each given
// the flag for its call, unless it is set already (an ARM IT block). A
// TCGv is a pointer-sized handle, a TCGArg a uintptr_t and a MemOp an enum.
#define IC_EXIT_CHECK_WRAP(name, arch)                                                                   \
	void __real_##name##_##arch(struct TCGContext *s, void *val, void *addr, uintptr_t idx, int memop); \
	void __wrap_##name##_##arch(struct TCGContext *s, void *val, void *addr, uintptr_t idx, int memop) { \
		uint8_t *flag = exit_flag(&place_##arch, s);                                                    \
		int set = flag && !*flag;                                                                       \
		if (set) *flag = 1;                                                                             \
		__real_##name##_##arch(s, val, addr, idx, memop);                                               \
		if (set) *flag = 0;                                                                             \
	}

#define IC_EXIT_CHECK_WRAPS(arch)                          \
	void check_exit_request_##arch(struct TCGContext *s); \
	static struct exit_flag_place place_##arch;           \
	IC_EXIT_CHECK_WRAP(tcg_gen_qemu_ld_i32, arch)         \
	IC_EXIT_CHECK_WRAP(tcg_gen_qemu_ld_i64, arch)         \
	IC_EXIT_CHECK_WRAP(tcg_gen_qemu_st_i32, arch)         \
	IC_EXIT_CHECK_WRAP(tcg_gen_qemu_st_i64, arch)
IC_EXIT_CHECK_WRAPS(x86_64)
IC_EXIT_CHECK_WRAPS(aarch64)

// The places are read once, as the process starts, before any engine
// translates.
__attribute__((constructor)) static void find_exit_flags(void) {
	place_x86_64 = find_exit_flag((const void *)check_exit_request_x86_64);
	place_aarch64 = find_exit_flag((const void *)check_exit_request_aarch64);
}

// ic_exit_checks_skipped tells whether the loads and stores of guest code
// are translated without the test, on a bare engine of arch (1: x86-64, 2:
// arm64), which has no TLB hook: a store to memory no region holds, then
// a move of 1 to a register, in one block. With the test the store leaves
// the block, the move does not run, and the register stays 0; without
// it, the block goes on to its end and the register is 1 (the engine
// stops at the next block with the store's error all the same). It
// returns 1 when the test was skipped, 0 when it was not, -1 when the
// engine could not run the block.
int ic_exit_checks_skipped(int arch) {
	// x86-64: mov [0x200000], al; mov ecx, 1
	static const uint8_t x86[] = {0x88, 0x04, 0x25, 0x00, 0x00, 0x20, 0x00, 0xb9, 0x01, 0x00, 0x00, 0x00};
	// arm64: movz x1, #0x20, lsl #16; strb w0, [x1]; movz x2, #1
	static const uint8_t arm64[] = {0x01, 0x04, 0xa0, 0xd2, 0x20, 0x00, 0x00, 0x39, 0x22, 0x00, 0x80, 0xd2};
	const uint8_t *code = arch == 1 ? x86 : arm64;
	size_t size = arch == 1 ? sizeof x86 : sizeof arm64;
	int reg = arch == 1 ? UC_X86_REG_RCX : UC_ARM64_REG_X2;
	uc_engine *uc;
	if (uc_open(arch == 1 ? UC_ARCH_X86 : UC_ARCH_ARM64, arch == 1 ? UC_MODE_64 : UC_MODE_ARM, &uc) != UC_ERR_OK)
		return -1;
	int skipped = -1;
	uint64_t value = 0;
	if (uc_mem_map(uc, 0x1000, 0x1000, UC_PROT_ALL) == UC_ERR_OK && uc_mem_write(uc, 0x1000, code, size) == UC_ERR_OK &&
	    uc_emu_start(uc, 0x1000, 0x1000 + size, 0, 0) == UC_ERR_WRITE_UNMAPPED &&
	    uc_reg_read(uc, reg, &value) == UC_ERR_OK)
		skipped = value == 1;
	uc_close(uc);
	return skipped;
}

// ic_mem_withhold_writes makes Unicorn's own region of the slab holding
// addr read-only and flushes the TLB, which icount never does: the tests'
// way to make the emulator's store helper drop a store, as nothing of
// icount's memory lets it (TestDroppedStoreStops).
uc_err ic_mem_withhold_writes(uc_engine *uc, uint64_t addr) {
	uc_err err = uc_mem_protect(uc, addr & ~(IC_SLAB_SIZE - 1), IC_SLAB_SIZE, UC_PROT_READ | UC_PROT_EXEC);
	return err != UC_ERR_OK ? err : uc_ctl_flush_tlb(uc);
}
