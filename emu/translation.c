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
#include <stddef.h>
#include <malloc.h>
#include <stdint.h>
#include <sys/mman.h>

#include "hotpath.h"

struct CPUState;

void __wrap_tlb_reset_dirty_by_vaddr_x86_64(struct CPUState *cpu, uint64_t start, uint64_t length) {
	(void)cpu, (void)start, (void)length;
}

void __wrap_tlb_reset_dirty_by_vaddr_aarch64(struct CPUState *cpu, uint64_t start, uint64_t length) {
	(void)cpu, (void)start, (void)length;
}

// The table of translated blocks starts small. Unicorn sizes it for 32,768
// blocks (a megabyte, cleared bucket by bucket) when an engine starts and
// again at every flush of the translation buffer (one of which every
// engine of a Unicorn before 2.1.3 has at its start, fork.c), which took
// a tenth of the time icount needs to run a small program. The table grows
// as blocks are added (QHT_MODE_AUTO_RESIZE, which Unicorn asks for),
// doubling when its buckets overflow.
struct qht;
struct uc_struct;
void __real_qht_init(struct qht *ht, void *cmp, size_t n_elems, unsigned int mode);
_Bool __real_qht_reset_size(struct uc_struct *uc, struct qht *ht, size_t n_elems);

#define IC_QHT_INITIAL 2048

static size_t qht_initial(size_t n_elems) { return n_elems < IC_QHT_INITIAL ? n_elems : IC_QHT_INITIAL; }

void __wrap_qht_init(struct qht *ht, void *cmp, size_t n_elems, unsigned int mode) {
	__real_qht_init(ht, cmp, qht_initial(n_elems), mode);
}

_Bool __wrap_qht_reset_size(struct uc_struct *uc, struct qht *ht, size_t n_elems) {
	return __real_qht_reset_size(uc, ht, qht_initial(n_elems));
}

// Unicorn asks for huge pages for its translation buffer: the first
// translated block's store into it makes the host clear 2 MiB, which took
// a tenth of the time icount needs to run a program of a few hundred
// blocks (a huge page's fault costs milliseconds in some VMs). The buffer's
// first IC_CODE_SMALL bytes get small pages, given as they fill; the rest,
// which only a program with much code reaches, gets huge pages as Unicorn
// asked (a program translating 17 MB of code would otherwise take 4,000
// more page faults). Unicorn asks for nothing else.
#define IC_CODE_SMALL (2u << 20)

int __real_qemu_madvise(void *addr, size_t len, int advice);

int __wrap_qemu_madvise(void *addr, size_t len, int advice) {
	if (advice != MADV_HUGEPAGE) return __real_qemu_madvise(addr, len, advice);
	if (len <= IC_CODE_SMALL) return 0;
	return __real_qemu_madvise((char *)addr + IC_CODE_SMALL, len - IC_CODE_SMALL, advice);
}

// Unicorn's tables of translated code grow as blocks are added (the block
// hook's regions, QEMU's hash of blocks): each growth callocs a larger
// array and frees the old. glibc gives an array over 128 KiB pages of its
// own, fresh from the kernel, and takes them back when it is freed, so
// every growth pays a page fault for each page of the new array (10 µs in
// some VMs). Served from the heap, the arrays reuse pages freed before.
__attribute__((constructor)) static void malloc_from_heap(void) { mallopt(M_MMAP_THRESHOLD, 32 << 20); }

// Unicorn keeps, for every hook, a hash table of the blocks it translated
// the hook into (their address ranges, a key allocated for each), so that
// deleting the hook discards those blocks. The block hook is in every
// block: its table took an entry per block translated, and its growth, its
// keys and their lookups were a tenth of what a first-seen block cost.
// icount deletes the block hook only to put another variant in its place,
// and then discards all translated code itself (ic_set_block_hook); so the
// table of the block hook that runs is left empty: Unicorn asks it whether
// it holds a block before adding it, and the answer is yes. The table is
// known as the one Unicorn makes while the block hook is added
// (ic_capture_regions), and asked only while that hook's engine runs on
// this thread (ic_emu_start); any other table is Unicorn's as before.
static __thread int regions_capture;    // set while the block hook is added
static __thread void *regions_captured; // the table Unicorn made for it

void *__real_g_hash_table_new_full(void *hash, void *equal, void *key_free, void *value_free);
void *__real_g_hash_table_lookup(void *table, const void *key);

void *__wrap_g_hash_table_new_full(void *hash, void *equal, void *key_free, void *value_free) {
	void *t = __real_g_hash_table_new_full(hash, equal, key_free, value_free);
	if (regions_capture) regions_captured = t;
	return t;
}

void *__wrap_g_hash_table_lookup(void *table, const void *key) {
	if (table && table == ic_running_regions()) return (void *)1;
	return __real_g_hash_table_lookup(table, key);
}

// ic_capture_regions(1) goes before the block hook is added and
// ic_capture_regions(0) after, which returns the table made in between
// (NULL if none).
void *ic_capture_regions(int on) {
	void *t = regions_captured;
	regions_capture = on;
	regions_captured = NULL;
	return on ? NULL : t;
}

// The block hook's call in a translated block passes the hook's user data,
// the same for every block; icount gives each address a link of its own
// (links.c) instead, which finds the block's entry without a hash lookup.
// Unicorn adds the call through uc_add_inline_hook, with the arguments as
// the translation's values (TCG temporaries): the last one is swapped for
// a constant holding the link. The translation's context and address are
// what tcg_func_start and tb_gen_code were given last on this thread.
struct TCGContext;
struct hook;
static __thread struct TCGContext *translating; // tcg_func_start's context
static __thread uint64_t translating_pc;         // tb_gen_code's address
static __thread struct CPUState *translating_cpu; // and CPU (regplace.c)

// ic_translating_cpu is the emulator's CPU object that the last
// translation on this thread since ic_translating_reset was for, NULL if
// none: ic_emu_start resets it, so that it is the running engine's.
void *ic_translating_cpu(void) { return translating_cpu; }
void ic_translating_reset(void) { translating_cpu = NULL; }

// Before it emits the call, uc_add_inline_hook describes the hook's
// function to the TCG context as a helper (a name made with snprintf, two
// allocations, two hash-table inserts that replace the same entries), for
// every block: a few per cent of a first-seen block's cost. Then it emits
// the call with tcg_gen_callN, which finds the description by the
// function. Once Unicorn has described the block hook in an engine's
// context, icount emits its call with tcg_gen_callN itself: the same
// call. Unicorn 2.1.1 never removes a description (uc_del_inline_hook has
// no caller); should a Unicorn call it, the count of its calls makes the
// next block's call go through Unicorn again.
static unsigned inline_removals; // uc_del_inline_hook's calls, atomic

// add_inline_hook is uc_add_inline_hook of one target: real is Unicorn's,
// call its tcg_gen_callN, and const_i64 and temp_free make and free the
// temporary of a constant.
static void add_inline_hook(void (*real)(struct uc_struct *, struct hook *, void **, int),
                            void (*call)(struct TCGContext *, void *, void *, int, void **),
                            void *(*const_i64)(struct TCGContext *, int64_t),
                            void (*temp_free)(struct TCGContext *, void *), struct uc_struct *uc,
                            struct hook *hk, void **args, int nargs) {
	void *link = nargs == 4 && translating ? ic_block_link(hk, translating_pc) : NULL;
	if (!link) {
		real(uc, hk, args, nargs);
		return;
	}
	struct TCGContext *ctx = translating;
	// A TCGv is the temporary's offset in the context (tcg.h: tcgv_i64_temp).
	void *temp = (char *)ctx + (uintptr_t)const_i64(ctx, (int64_t)(uintptr_t)link);
	void *data = args[3];
	args[3] = temp;
	unsigned removals = __atomic_load_n(&inline_removals, __ATOMIC_ACQUIRE);
	void *described = ic_block_call_described(hk, removals);
	if (described) {
		call(ctx, described, NULL, nargs, args);
	} else {
		real(uc, hk, args, nargs);
		ic_block_call_describe(hk, removals);
	}
	args[3] = data;
	temp_free(ctx, temp);
}

#define IC_TRANSLATION_WRAPS(arch)                                                                           \
	void __real_tcg_func_start_##arch(struct TCGContext *s);                                              \
	void __wrap_tcg_func_start_##arch(struct TCGContext *s) {                                             \
		translating = s;                                                                                  \
		__real_tcg_func_start_##arch(s);                                                                  \
	}                                                                                                     \
	void *__real_tb_gen_code_##arch(struct CPUState *cpu, uint64_t pc, uint64_t cs_base, uint32_t flags,  \
	                                int cflags);                                                          \
	void *__wrap_tb_gen_code_##arch(struct CPUState *cpu, uint64_t pc, uint64_t cs_base, uint32_t flags,  \
	                                int cflags) {                                                         \
		translating_pc = pc, translating_cpu = cpu;                                                       \
		return __real_tb_gen_code_##arch(cpu, pc, cs_base, flags, cflags);                                \
	}                                                                                                     \
	void *tcg_const_i64_##arch(struct TCGContext *s, int64_t val);                                        \
	void tcg_temp_free_internal_##arch(struct TCGContext *s, void *ts);                                   \
	void tcg_gen_callN_##arch(struct TCGContext *s, void *func, void *ret, int nargs, void **args);        \
	void __real_uc_add_inline_hook_##arch(struct uc_struct *uc, struct hook *hk, void **args, int nargs); \
	void __wrap_uc_add_inline_hook_##arch(struct uc_struct *uc, struct hook *hk, void **args, int nargs) { \
		add_inline_hook(__real_uc_add_inline_hook_##arch, tcg_gen_callN_##arch, tcg_const_i64_##arch,     \
		                tcg_temp_free_internal_##arch, uc, hk, args, nargs);                              \
	}                                                                                                     \
	void __real_uc_del_inline_hook_##arch(struct uc_struct *uc, struct hook *hk);                         \
	void __wrap_uc_del_inline_hook_##arch(struct uc_struct *uc, struct hook *hk) {                        \
		__atomic_add_fetch(&inline_removals, 1, __ATOMIC_ACQ_REL);                                        \
		__real_uc_del_inline_hook_##arch(uc, hk);                                                         \
	}
IC_TRANSLATION_WRAPS(x86_64)
IC_TRANSLATION_WRAPS(aarch64)
