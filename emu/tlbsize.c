// A floor under the size of the emulator's TLB. QEMU sizes its TLB, a
// direct-mapped table per MMU mode, at each flush (hotpath.c flushes every
// IC_FLUSH_BLOCKS blocks for that): it doubles when more than 70 % of the
// entries were used since the last flush, and shrinks to fit when fewer
// than 30 % were for 100 ms. An interpreter in its steady state uses a few
// dozen pages, whose addresses conflict in a table fitted to their number:
// CPython's fib(27) on x86-64 has its TLB shrink from 1,024 entries to the
// smallest, 64, after which a quarter of the run is the slow path of loads
// and stores evicting one another (victim TLB, refills). The linker sends the
// emulator's calls to tlb_flush here (cpu.go: --wrap); before each, every
// MMU mode the flush will size is told enough use that it grows to
// a floor of entries (IC_TLB_FLOOR_*) and never shrinks below: 64 or 256
// KiB of table per mode in use, whose flush costs microseconds.
//
// The TLB lies before the CPU state, at an offset Unicorn does not
// publish. It is found, once per CPU object, from the two pointers of
// QEMU's CPUState that point into the object (env_ptr, then
// icount_decr_ptr, adjacent): the TLB ends where icount_decr_ptr points.
// What is found is checked (sizes that are powers of two, tables outside
// the object, counts within them); if anything differs from QEMU 5's
// layout the floor is not applied, which changes the speed of a run and
// never its result (TestTLBFloor tells).
#include <malloc.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "hotpath.h"

// The floor: 4 MiB of guest pages, 4 KiB on x86-64, 1 KiB on arm64 (QEMU's
// smallest ARM page, which Unicorn keeps).
#define IC_TLB_FLOOR_X86_64 1024u
#define IC_TLB_FLOOR_AARCH64 4096u

// QEMU 5's layout (include/exec/cpu-defs.h) for a 64-bit host and guest.
enum {
	tlb_entry_bits = 6,  // CPU_TLB_ENTRY_BITS: a CPUTLBEntry is 64 bytes
	tlb_min_entries = 64,  // 1 << CPU_TLB_DYN_MIN_BITS
	tlb_max_entries = 1 << 22,
	tlb_common_size = 32,  // CPUTLBCommon: dirty (uint16_t), three counters
	tlb_desc_size = 696,   // CPUTLBDesc: 6 words, victim TLB of 8, iotlb
	tlb_fast_size = 16,    // CPUTLBDescFast: mask, table; 16-byte aligned
	mmu_modes_x86_64 = 3,  // NB_MMU_MODES
	mmu_modes_aarch64 = 12,
};

// ic_tlb_desc is the head of QEMU's CPUTLBDesc, the part read here.
typedef struct {
	uint64_t large_page_addr, large_page_mask;
	int64_t window_begin_ns;
	size_t window_max_entries;
	size_t n_used_entries;
	size_t vindex;
	uint8_t victim[tlb_desc_size - 6 * 8 - 8];
	void *iotlb;
} ic_tlb_desc;

typedef struct {
	uintptr_t mask;
	void *table;
} ic_tlb_fast;

_Static_assert(sizeof(ic_tlb_desc) == tlb_desc_size, "CPUTLBDesc's size");
_Static_assert(sizeof(ic_tlb_fast) == tlb_fast_size, "CPUTLBDescFast's size");

// ic_tlb is what was found of one CPU object's TLB.
typedef struct {
	const void *cpu; // the CPU object searched, NULL: none yet
	int searched;    // for how many modes (the architecture's)
	uint16_t *dirty; // CPUTLBCommon.dirty: the modes a flush sizes
	ic_tlb_desc *desc;
	ic_tlb_fast *fast;
	int modes; // 0: the layout was not found; apply no floor
} ic_tlb;

// One per thread: each engine runs on one thread, and a thread runs one
// engine at a time (the CPU object is checked at each flush).
static __thread ic_tlb found;

// entries gives the number of entries of a mode's table, 0 if its mask is
// not one QEMU makes.
static size_t entries(const ic_tlb_fast *f) {
	size_t n = (f->mask >> tlb_entry_bits) + 1;
	if (f->mask != (n - 1) << tlb_entry_bits || n < tlb_min_entries || n > tlb_max_entries || (n & (n - 1)))
		return 0;
	return n;
}

// outside says whether p may be a table of its own: not NULL, aligned,
// outside the CPU object.
static bool outside(const void *p, const uint8_t *cpu, size_t size) {
	const uint8_t *q = p;
	return q && !((uintptr_t)q & 7) && (q < cpu || q >= cpu + size);
}

// locate finds the TLB of cpu, a CPUState of modes MMU modes; false if
// what is there is not QEMU 5's layout.
static bool locate(ic_tlb *t, uint8_t *cpu, int modes) {
	size_t size = malloc_usable_size(cpu);
	for (size_t off = 0; off + 16 <= size; off += 8) {
		uint8_t *env, *decr;
		memcpy(&env, cpu + off, 8);
		memcpy(&decr, cpu + off + 8, 8);
		if (!(decr > cpu && env > decr && env < cpu + size && env - decr <= 64)) continue;
		size_t fast_size = (size_t)modes * tlb_fast_size;
		size_t desc_end = tlb_common_size + (size_t)modes * tlb_desc_size;
		size_t tlb_size = ((desc_end + 15) & ~(size_t)15) + fast_size;
		if ((size_t)(decr - cpu) < tlb_size + off + 16 || ((uintptr_t)decr & 15)) continue;
		uint8_t *tlb = decr - tlb_size;
		t->dirty = (uint16_t *)tlb;
		t->desc = (ic_tlb_desc *)(tlb + tlb_common_size);
		t->fast = (ic_tlb_fast *)(decr - fast_size);
		bool fits = true;
		for (int i = 0; i < modes && fits; i++) {
			size_t n = entries(&t->fast[i]);
			ic_tlb_desc *d = &t->desc[i];
			fits = n && outside(t->fast[i].table, cpu, size) && outside(d->iotlb, cpu, size) &&
			       d->n_used_entries <= n && d->window_max_entries <= tlb_max_entries;
		}
		if (fits) return true;
	}
	return false;
}

// floor_tlb tells each mode the flush about to run will size that enough
// of it was used to keep it at floor entries or more.
static void floor_tlb(void *cpu, int modes, size_t floor) {
	if (found.cpu != cpu || found.searched != modes) {
		found = (ic_tlb){.cpu = cpu, .searched = modes};
		if (locate(&found, cpu, modes)) found.modes = modes;
	}
	for (int i = 0; i < found.modes; i++) {
		if (!(*found.dirty & (1u << i))) continue;
		// Half the floor and one in use: a smaller TLB doubles (more than
		// 70 % used), one at the floor stays, a larger one shrinks to the
		// floor at most.
		ic_tlb_desc *d = &found.desc[i];
		if (d->window_max_entries <= floor / 2) d->window_max_entries = floor / 2 + 1;
	}
}

// ic_tlb_entries gives the entries of the largest mode of the TLB last
// flushed on this thread, 0 if its layout was not found.
size_t ic_tlb_entries(void) {
	size_t most = 0;
	for (int i = 0; i < found.modes; i++) {
		size_t n = entries(&found.fast[i]);
		if (n > most) most = n;
	}
	return most;
}

#define IC_TLB_FLOOR_WRAP(arch, modes, floor)    \
	void __real_tlb_flush_##arch(void *cpu);     \
	void __wrap_tlb_flush_##arch(void *cpu) {    \
		floor_tlb(cpu, modes, floor);            \
		__real_tlb_flush_##arch(cpu);            \
	}
IC_TLB_FLOOR_WRAP(x86_64, mmu_modes_x86_64, IC_TLB_FLOOR_X86_64)
IC_TLB_FLOOR_WRAP(aarch64, mmu_modes_aarch64, IC_TLB_FLOOR_AARCH64)
