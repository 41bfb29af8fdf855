// The region lookup of Unicorn 2.1's memory slow path, cached. Every
// guest load or store that misses the emulator's TLB (a conflict in the
// direct-mapped TLB answered by the victim TLB, most often) calls
// uc->memory_mapping to find the memory region of the address, which walks
// QEMU's physical page map (flatview_translate, phys_page_find) even with
// no memory hook to serve: a tenth of an interpreter's run on arm64, whose
// 1 KiB pages miss the TLB four times as often. Guest memory is a few
// regions of 64 GiB each, one per slab icount maps (memory.c), so the
// answer is the same for every address of a slab. The linker sends the
// emulator's calls here (cpu.go: --wrap): a cache per thread (each engine
// runs on one thread) keyed by engine, map and slab answers them for the
// slabs mapped whole (uc_mem_map_ptr of a slab, which icount alone makes),
// and any change of any engine's regions (uc_mem_map, uc_mem_map_ptr,
// uc_mem_unmap, uc_close) empties every cache. Other addresses (the
// unassigned space between slabs, the probes' small regions) go to the
// emulator every time: QEMU gives unassigned space as one section as large
// as the address space, which says nothing of what is mapped inside it.
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdint.h>

#include <unicorn/unicorn.h>

#include "memory.h"

struct uc_struct;
struct FlatView;
struct MemoryRegion;
// QEMU's MemTxAttrs: a struct of 32 bits of bit-fields, passed as one.
typedef struct {
	uint32_t bits;
} ic_memtxattrs;

// generation counts the changes of any engine's regions.
static uint64_t generation = 1;

typedef struct {
	uint64_t gen; // generation when filled; 0: empty
	struct uc_struct *uc;
	struct FlatView *fv;
	uint64_t slab; // slab index, and 1 << 63 for a write
	struct MemoryRegion *mr;
	uint64_t delta; // xlat - addr for every address of the slab
} ic_region_entry;

#define IC_REGION_CACHE 64
static __thread ic_region_entry cache[IC_REGION_CACHE];

#define SLAB (1ull << IC_SLAB_BITS)

// The slabs mapped whole, by engine: what the cache may answer for.
typedef struct {
	struct uc_struct *uc;
	uint64_t slab;
} ic_whole;
static ic_whole *wholes;
static size_t nwholes, capwholes;
static pthread_mutex_t wholes_mu = PTHREAD_MUTEX_INITIALIZER;

static bool is_whole(struct uc_struct *uc, uint64_t slab) {
	bool found = false;
	pthread_mutex_lock(&wholes_mu);
	for (size_t i = 0; i < nwholes && !found; i++) found = wholes[i].uc == uc && wholes[i].slab == slab;
	pthread_mutex_unlock(&wholes_mu);
	return found;
}

static void add_whole(struct uc_struct *uc, uint64_t slab) {
	pthread_mutex_lock(&wholes_mu);
	if (nwholes == capwholes) {
		size_t cap = capwholes ? 2 * capwholes : 64;
		ic_whole *w = realloc(wholes, cap * sizeof *w);
		if (w) wholes = w, capwholes = cap;
	}
	if (nwholes < capwholes) wholes[nwholes++] = (ic_whole){uc, slab};
	pthread_mutex_unlock(&wholes_mu);
}

// drop_wholes forgets uc's slabs that meet [lo, hi) (hi 0: all of them).
static void drop_wholes(struct uc_struct *uc, uint64_t lo, uint64_t hi) {
	pthread_mutex_lock(&wholes_mu);
	for (size_t i = 0; i < nwholes;) {
		uint64_t a = wholes[i].slab << IC_SLAB_BITS;
		if (wholes[i].uc == uc && (hi == 0 || (a < hi && lo < a + SLAB))) {
			wholes[i] = wholes[--nwholes];
		} else {
			i++;
		}
	}
	pthread_mutex_unlock(&wholes_mu);
}

typedef struct MemoryRegion *translate_fn(struct uc_struct *uc, struct FlatView *fv, uint64_t addr, uint64_t *xlat,
                                          uint64_t *plen, bool is_write, ic_memtxattrs attrs);

// lookup answers a translation from the cache, filling it from real, the
// emulator's own, on a miss, for the slabs mapped whole.
static struct MemoryRegion *lookup(translate_fn *real, struct uc_struct *uc, struct FlatView *fv, uint64_t addr,
                                   uint64_t *xlat, uint64_t *plen, bool is_write, ic_memtxattrs attrs) {
	uint64_t slab = addr >> IC_SLAB_BITS, key = slab | (uint64_t)is_write << 63;
	uint64_t gen = __atomic_load_n(&generation, __ATOMIC_ACQUIRE);
	ic_region_entry *e = &cache[(slab ^ (uint64_t)(uintptr_t)fv >> 6) % IC_REGION_CACHE];
	if (e->gen != gen || e->uc != uc || e->fv != fv || e->slab != key) {
		uint64_t base = slab << IC_SLAB_BITS, x = 0, len = SLAB;
		if (!is_whole(uc, slab)) return real(uc, fv, addr, xlat, plen, is_write, attrs);
		struct MemoryRegion *mr = real(uc, fv, base, &x, &len, is_write, attrs);
		if (len != SLAB) return real(uc, fv, addr, xlat, plen, is_write, attrs);
		*e = (ic_region_entry){gen, uc, fv, key, mr, x - base};
	}
	uint64_t left = SLAB - (addr & (SLAB - 1));
	*xlat = addr + e->delta;
	if (*plen > left) *plen = left;
	return e->mr;
}

struct MemoryRegion *__real_flatview_translate_x86_64(struct uc_struct *uc, struct FlatView *fv, uint64_t addr,
                                                      uint64_t *xlat, uint64_t *plen, bool is_write,
                                                      ic_memtxattrs attrs);
struct MemoryRegion *__real_flatview_translate_aarch64(struct uc_struct *uc, struct FlatView *fv, uint64_t addr,
                                                       uint64_t *xlat, uint64_t *plen, bool is_write,
                                                       ic_memtxattrs attrs);

struct MemoryRegion *__wrap_flatview_translate_x86_64(struct uc_struct *uc, struct FlatView *fv, uint64_t addr,
                                                      uint64_t *xlat, uint64_t *plen, bool is_write,
                                                      ic_memtxattrs attrs) {
	return lookup(__real_flatview_translate_x86_64, uc, fv, addr, xlat, plen, is_write, attrs);
}

struct MemoryRegion *__wrap_flatview_translate_aarch64(struct uc_struct *uc, struct FlatView *fv, uint64_t addr,
                                                       uint64_t *xlat, uint64_t *plen, bool is_write,
                                                       ic_memtxattrs attrs) {
	return lookup(__real_flatview_translate_aarch64, uc, fv, addr, xlat, plen, is_write, attrs);
}

// changed empties every thread's cache: before a change, and after it,
// for what the emulator may have looked up during it.
static void changed(void) { __atomic_add_fetch(&generation, 1, __ATOMIC_RELEASE); }

uc_err __real_uc_mem_map(uc_engine *uc, uint64_t address, size_t size, uint32_t perms);
uc_err __real_uc_mem_map_ptr(uc_engine *uc, uint64_t address, size_t size, uint32_t perms, void *ptr);
uc_err __real_uc_mem_unmap(uc_engine *uc, uint64_t address, size_t size);
uc_err __real_uc_close(uc_engine *uc);

uc_err __wrap_uc_mem_map(uc_engine *uc, uint64_t address, size_t size, uint32_t perms) {
	changed();
	uc_err err = __real_uc_mem_map(uc, address, size, perms);
	changed();
	return err;
}

uc_err __wrap_uc_mem_map_ptr(uc_engine *uc, uint64_t address, size_t size, uint32_t perms, void *ptr) {
	changed();
	uc_err err = __real_uc_mem_map_ptr(uc, address, size, perms, ptr);
	if (err == UC_ERR_OK && size == SLAB && !(address & (SLAB - 1))) add_whole(uc, address >> IC_SLAB_BITS);
	changed();
	return err;
}

uc_err __wrap_uc_mem_unmap(uc_engine *uc, uint64_t address, size_t size) {
	drop_wholes(uc, address, address + size);
	changed();
	uc_err err = __real_uc_mem_unmap(uc, address, size);
	changed();
	return err;
}

uc_err __wrap_uc_close(uc_engine *uc) {
	drop_wholes(uc, 0, 0);
	changed();
	uc_err err = __real_uc_close(uc);
	changed();
	return err;
}
