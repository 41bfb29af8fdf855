// Fork's copies: a new engine's page table and host memory made those of
// another (ic_mem_copy_from), and its registers (ic_copy_regs).
//
// Memory is copied eagerly, but only what the host holds: the slabs are
// reserved with MAP_NORESERVE and fill as the guest touches them, so the
// copy visits only the chunks that may hold data (memory.h: IC_CHUNK_BITS)
// of the pages mapped, asks the host's page map which of their pages exist
// (present or swapped), and copies those that are not all zeros. A page
// the parent never touched stays untouched in the child too.
#include "fork.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#define PAGE (1ull << IC_PAGE_BITS)
#define CHUNK (1ull << IC_CHUNK_BITS)
#define SLAB (1ull << IC_SLAB_BITS)

// The bits of a /proc/self/pagemap entry that say a page exists.
#define PM_PRESENT (1ull << 63)
#define PM_SWAPPED (1ull << 62)

static int zeros(const uint8_t *p) {
	const uint64_t *q = (const uint64_t *)p;
	for (size_t i = 0; i < PAGE / 8; i++)
		if (q[i]) return 0;
	return 1;
}

// copy_chunk copies the pages of [lo, hi), within one chunk of src that
// may hold data, to dst. pagemap is /proc/self/pagemap, -1 if the host has
// none: every page is then read.
static int copy_chunk(ic_mem *dst, const ic_mem *src, uint64_t lo, uint64_t hi, int pagemap) {
	const uint8_t *host = src->slab[lo >> IC_SLAB_BITS] + (lo & (SLAB - 1));
	const uint64_t hp = (uint64_t)src->host_page;
	uint64_t first = (uintptr_t)host / hp, n = ((uintptr_t)host + (hi - lo) - 1) / hp - first + 1;
	uint64_t map[CHUNK / 4096 + 1];
	int known = pagemap >= 0 && n <= sizeof map / sizeof map[0] &&
	            pread(pagemap, map, n * 8, (off_t)(first * 8)) == (ssize_t)(n * 8);
	for (uint64_t a = lo; a < hi; a += PAGE) {
		const uint8_t *p = host + (a - lo);
		if (known && !(map[(uintptr_t)p / hp - first] & (PM_PRESENT | PM_SWAPPED))) continue;
		if (zeros(p)) continue;
		if (ic_mem_copy(dst, a, (void *)p, PAGE, 1) != 0) return -1;
	}
	return 0;
}

// copy_data copies what the host holds of [lo, hi), mapped in src.
static int copy_data(ic_mem *dst, const ic_mem *src, uint64_t lo, uint64_t hi, int pagemap) {
	for (uint64_t a = lo, next; a < hi; a = next) {
		uint64_t i = a >> IC_SLAB_BITS;
		if (!src->slab[i]) {
			next = (i + 1) << IC_SLAB_BITS;
			continue;
		}
		next = (a | (CHUNK - 1)) + 1;
		if (next > hi) next = hi;
		uint64_t k = (a & (SLAB - 1)) >> IC_CHUNK_BITS;
		if (!(src->chunks[i][k >> 3] & (1u << (k & 7)))) continue;
		if (copy_chunk(dst, src, a, next, pagemap) != 0) return -1;
	}
	return 0;
}

// ic_mem_copy_from gives dst, which has nothing mapped, every mapping of
// src with its permissions and contents; the marks of pages holding code
// are not copied (dst has no translations). It returns 0, or
// IC_COPY_NOMEM or IC_COPY_NOHOST with *failed_at the address it failed
// at.
int ic_mem_copy_from(ic_mem *dst, const ic_mem *src, uint64_t *failed_at) {
	const uint64_t limit = 1ull << IC_ADDR_BITS;
	int pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	int err = 0;
	for (uint64_t a = 0, end; a < limit && !err; a = end) {
		uint8_t v = ic_mem_lookup(src, a, &end) & ~IC_CODE;
		// The range of pages that share v, whatever the entries they lie in.
		while (end < limit) {
			uint64_t next;
			if ((ic_mem_lookup(src, end, &next) & ~IC_CODE) != v) break;
			end = next;
		}
		if (!(v & IC_MAPPED)) continue;
		*failed_at = a;
		if (ic_mem_set(dst, a, end, v) != 0) err = IC_COPY_NOMEM;
		else if ((v & UC_PROT_ALL) && ic_mem_back(dst, a, end) != 0) err = IC_COPY_NOHOST;
		else if (copy_data(dst, src, a, end, pagemap) != 0) err = IC_COPY_NOHOST;
	}
	if (pagemap >= 0) close(pagemap);
	return err;
}

// ic_copy_regs makes src's registers dst's: the whole CPU state a context
// holds, which for x86-64 and arm64 is a copy of the CPU's own (no pointer
// into the engine is set in it for a user program: only the debug
// registers, which icount refuses, would set one). dst's TLB is flushed,
// as a write of the registers that govern it would.
uc_err ic_copy_regs(uc_engine *dst, uc_engine *src) {
	uc_context *ctx;
	uc_err err = uc_context_alloc(src, &ctx);
	if (err != UC_ERR_OK) return err;
	err = uc_context_save(src, ctx);
	if (err == UC_ERR_OK) err = uc_context_restore(dst, ctx);
	uc_context_free(ctx);
	if (err != UC_ERR_OK) return err;
	return uc_ctl_flush_tlb(dst);
}

// uc_ctl is variadic, which cgo cannot call. The size is used when the
// engine is first initialized: it must be set before anything else.
uc_err ic_set_code_buffer(uc_engine *uc, uint32_t size) { return uc_ctl_set_tcg_buffer_size(uc, size); }

uc_err ic_code_buffer(uc_engine *uc, uint32_t *size) { return uc_ctl_get_tcg_buffer_size(uc, size); }
