// Spare engines (spare.go): the memory side. When a program ends, every
// page holding translated code becomes suspect, with a copy of the bytes
// it holds; then the engine has nothing mapped. The emulator keeps the
// code, keyed by address, and the next program on the engine may run the
// same bytes at the same addresses (a shell's children, ld.so and libc of
// one program after another). Its first fetch from a suspect page is
// refused (ic_tlb_fill), and Go settles the page: the code is kept if the
// page holds the bytes copied, discarded if not.
#include "memory.h"

#include <stdlib.h>
#include <string.h>

#define PAGE_SIZE (1ull << IC_PAGE_BITS)
#define LIMIT (1ull << IC_ADDR_BITS)

// find returns the entry of page number p, NULL if there is none.
static ic_suspect *find(const ic_mem *m, uint64_t p) {
	uint32_t lo = 0, hi = m->nsuspects;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (m->suspects[mid].page < p) lo = mid + 1;
		else hi = mid;
	}
	return lo < m->nsuspects && m->suspects[lo].page == p ? &m->suspects[lo] : NULL;
}

// host returns the host memory of the page at addr, NULL if there is none
// (the page reads as zeros).
static const uint8_t *host(const ic_mem *m, uint64_t addr) {
	const uint8_t *slab = m->slab[addr >> IC_SLAB_BITS];
	return slab ? slab + (addr & ((1ull << IC_SLAB_BITS) - 1)) : NULL;
}

// same tells whether the page at addr holds bytes.
static int same(const ic_mem *m, uint64_t addr, const uint8_t *bytes) {
	static const uint8_t zeros[PAGE_SIZE];
	const uint8_t *p = host(m, addr);
	return memcmp(p ? p : zeros, bytes, PAGE_SIZE) == 0;
}

// ic_mem_suspect tells whether the page holding addr is suspect and not
// settled.
int ic_mem_suspect(const ic_mem *m, uint64_t addr) {
	const ic_suspect *e = m->unsettled ? find(m, addr >> IC_PAGE_BITS) : NULL;
	return e && e->bytes;
}

// ic_mem_settle settles the suspect page holding addr: it returns
// IC_SETTLED_SAME if the page holds the bytes its code was made from,
// IC_SETTLED_CHANGED if not (the caller discards the code), and
// IC_SETTLED_NONE if it is not suspect. Either way it is not from then on.
int ic_mem_settle(ic_mem *m, uint64_t addr) {
	ic_suspect *e = m->unsettled ? find(m, addr >> IC_PAGE_BITS) : NULL;
	if (!e || !e->bytes) return IC_SETTLED_NONE;
	int r = same(m, addr & ~(PAGE_SIZE - 1), e->bytes) ? IC_SETTLED_SAME : IC_SETTLED_CHANGED;
	free(e->bytes);
	e->bytes = NULL;
	if (--m->unsettled == 0) ic_mem_free_suspects(m);
	return r;
}

void ic_mem_free_suspects(ic_mem *m) {
	for (uint32_t i = 0; i < m->nsuspects; i++) free(m->suspects[i].bytes);
	free(m->suspects);
	m->suspects = NULL;
	m->nsuspects = m->unsettled = 0;
}

// ic_mem_spare readies the memory of an engine whose program ended for
// the next one: every page marked as holding code (IC_CODE) becomes
// suspect with a copy of what it holds; pages suspect already stay so,
// with their first copy (their code was made from that). Then nothing is
// mapped, the host memory is given back, and the TLB is flushed. A page
// both marked and suspect (a store into code ran by itself there) may
// hold code of both, and has its code discarded. It returns -1 when out
// of memory: the engine must then be closed.
int ic_mem_spare(ic_mem *m) {
	uint64_t marked = 0;
	for (uint64_t a = 0, end; a < LIMIT; a = end)
		if (ic_mem_lookup(m, a, &end) & IC_CODE) marked += (end - a) / PAGE_SIZE;
	if (marked + m->unsettled > UINT32_MAX) return -1;
	ic_suspect *all = malloc((marked + m->unsettled + 1) * sizeof *all);
	if (!all) return -1;
	// Both lists are by page number: merged, the new list is too.
	uint32_t n = 0, old = 0;
	int failed = 0;
	for (uint64_t a = 0, end; a < LIMIT; a = end) {
		if (!(ic_mem_lookup(m, a, &end) & IC_CODE)) continue;
		for (uint64_t p = a; p < end; p += PAGE_SIZE) {
			uint64_t page = p >> IC_PAGE_BITS;
			for (; old < m->nsuspects && m->suspects[old].page < page; old++)
				if (m->suspects[old].bytes) all[n++] = m->suspects[old];
			if (old < m->nsuspects && m->suspects[old].page == page) {
				uint8_t *both = m->suspects[old++].bytes; // NULL: settled
				if (both) {
					free(both);
					ic_mem_remove_cache(m, p, p + PAGE_SIZE);
					continue;
				}
			}
			uint8_t *copy = failed ? NULL : malloc(PAGE_SIZE);
			if (!copy) {
				failed = 1;
				continue;
			}
			const uint8_t *h = host(m, p);
			if (h) memcpy(copy, h, PAGE_SIZE);
			else memset(copy, 0, PAGE_SIZE);
			all[n++] = (ic_suspect){page, copy};
		}
	}
	for (; old < m->nsuspects; old++)
		if (m->suspects[old].bytes) all[n++] = m->suspects[old];
	free(m->suspects);
	m->suspects = all;
	m->nsuspects = m->unsettled = n;
	if (n == 0) ic_mem_free_suspects(m);
	if (failed) return -1;

	for (uint64_t a = 0, end; a < LIMIT; a = end) {
		uint8_t v = ic_mem_lookup(m, a, &end);
		if (v & IC_MAPPED) ic_mem_release(m, a, end, v & IC_FILE);
	}
	if (ic_mem_set(m, 0, LIMIT, 0) != 0) return -1;
	for (uint32_t i = 0; i < IC_NSLABS; i++)
		if (m->chunks[i]) memset(m->chunks[i], 0, IC_CHUNKS / 8);
	return uc_ctl_flush_tlb(m->uc) == UC_ERR_OK ? 0 : -1;
}
