// Guest memory: icount's own page table and the host memory behind it.
//
// Unicorn runs in its virtual-TLB mode (UC_TLB_VIRTUAL): on every TLB miss
// it asks ic_tlb_fill, which answers from this page table with an identity
// mapping (physical address == virtual address) and the page's permissions,
// or refuses the access. Physical memory is host memory, reserved lazily in
// slabs of IC_SLAB_BITS (uc_mem_map_ptr of an mmap(MAP_NORESERVE)), so a
// guest's mmap, munmap and mprotect change the page table only: Unicorn's
// own memory regions (slow to add and remove, and limited to about 4,000)
// stay a handful.
#ifndef ICOUNT_MEMORY_H
#define ICOUNT_MEMORY_H

#include <stdint.h>
#include <unicorn/unicorn.h>

// Guest pages are 4 KiB; addresses have at most 48 bits.
#define IC_PAGE_BITS 12
#define IC_ADDR_BITS 48
// A page-table value: UC_PROT_* bits, IC_MAPPED for a mapped page (a
// mapped page may have no permission at all), and IC_CODE for a page that
// holds translated code. The TLB never gets write access to a page with
// IC_CODE: a guest store there reaches ic_tlb_fill, which refuses it as a
// store into code (refused_code), so that the translations it may make
// stale are discarded before they run again (emu/codewrite.go).
#define IC_MAPPED 8
#define IC_CODE 16
// IC_FILE marks a page whose host memory is a private mapping of a file
// (ic_mem_map_file): the guest reads the file's page, shared with the
// host's page cache, without a copy; a write (the guest's or icount's)
// makes the host copy the page, never reaching the file. Releasing such a
// page puts the slab's anonymous memory back (ic_mem_release).
#define IC_FILE 32
// IC_BEYOND marks a page of a file mapping that lies wholly past the end
// of its file: the guest may not access it at all (Linux's SIGBUS), and
// its host memory is anonymous.
#define IC_BEYOND 64
// Host memory is reserved for guest addresses in slabs of 64 GiB.
#define IC_SLAB_BITS 36
#define IC_SLAB_SIZE (1ull << IC_SLAB_BITS)
#define IC_NSLABS (1u << (IC_ADDR_BITS - IC_SLAB_BITS))
// At most this many slabs are reserved (Unicorn aborts past about 4,000
// memory regions; the host's address space ends sooner).
#define IC_MAX_SLABS 2048
// Host memory may have been written only in the 2 MiB chunks of a slab
// that were made accessible (ic_mem_back) or written by ic_mem_copy: the
// TLB gives the guest no access elsewhere, and the emulator's own writes
// (uc_mem_write, by the sites) are to memory the guest may write. A bit
// per chunk says so: ic_mem_copy_from (fork.c) copies those chunks only.
#define IC_CHUNK_BITS 21
#define IC_CHUNKS (1u << (IC_SLAB_BITS - IC_CHUNK_BITS))

// A suspect page (spare.c): a page whose translated code an earlier
// program on the same engine left, made from bytes that may not be there
// now. It is settled when the guest first fetches from it: the code is
// kept if the page holds those bytes, and discarded if not.
typedef struct ic_suspect {
	uint64_t page;  // page number
	uint8_t *bytes; // the page as its code was translated from; NULL once settled
} ic_suspect;

// A file mapping ic_mem_map_file made: [lo, hi) showed the file open at
// fd (icount's own duplicate of the descriptor it was given) from offset
// off. A fork's child is given the same mapping of the pages that still
// show it (fork.c), not a copy of them.
typedef struct ic_filemap {
	uint64_t lo, hi, off;
	int fd;
} ic_filemap;

typedef struct ic_mem {
	uc_engine *uc;
	int exec_reads; // PROT_EXEC implies read access (x86-64)
	// The page table: four levels of 512 entries, the last of one byte
	// per page. An entry of the upper levels is 0 (nothing mapped below
	// it), 1 | value << 1 (every page below it has that value), or a
	// pointer to the table below.
	uintptr_t root[512];
	uint8_t *slab[IC_NSLABS]; // host memory behind each slab, NULL until needed
	uint8_t *chunks[IC_NSLABS]; // each slab's bitmap of chunks that may hold data (IC_CHUNK_BITS)
	uint32_t nslabs;
	long host_page;

	// Set around the emulator's own fetches (ic_mem_grant): it finds the
	// code to discard (uc_ctl_remove_cache, uc_hook_del) by translating
	// an address as an instruction fetch, and a refusal there would stop
	// the guest. While it is set, ic_tlb_fill grants every access (and
	// notes that it did, so the TLB is flushed afterwards).
	int granting, granted;

	// The first access ic_tlb_fill refused: Go clears it before each run.
	int refused;          // 0: none
	int refused_type;     // UC_MEM_READ, UC_MEM_WRITE or UC_MEM_FETCH
	uint64_t refused_at;  // the emulator's page (4 KiB on x86-64, 1 KiB on arm64)
	uint8_t refused_page; // the page-table value there
	int refused_code;     // a store into a page holding code (IC_CODE), not a fault
	int refused_suspect;  // a fetch from a suspect page, to settle, not a fault

	// The suspect pages, by page number, and how many are not settled.
	ic_suspect *suspects;
	uint32_t nsuspects, unsettled;

	// While hold_marks is set (a store into code runs by itself), a block
	// first seen does not mark its pages IC_CODE: its range is added to
	// [held_lo, held_hi) instead, for Go to discard or mark afterwards.
	int hold_marks;
	uint64_t held_lo, held_hi;

	// The file mappings made, oldest first: a page with IC_FILE shows the
	// newest that covers it. Those that no page shows any more go when
	// room is needed (a page without a record is copied at a fork).
	ic_filemap *files;
	uint32_t nfiles, capfiles;
} ic_mem;

ic_mem *ic_mem_new(uc_engine *uc, int exec_reads);
void ic_mem_free(ic_mem *m);
uc_err ic_mem_install(ic_mem *m);

uint8_t ic_mem_get(const ic_mem *m, uint64_t addr);
uint8_t ic_mem_lookup(const ic_mem *m, uint64_t addr, uint64_t *end);
uint64_t ic_mem_find(const ic_mem *m, uint64_t lo, uint64_t hi, uint8_t need);
uint8_t ic_mem_any(const ic_mem *m, uint64_t lo, uint64_t hi);
int ic_mem_set(ic_mem *m, uint64_t lo, uint64_t hi, uint8_t value);
int ic_mem_update(ic_mem *m, uint64_t lo, uint64_t hi, uint8_t keep, uint8_t value);
int ic_mem_mark_code(ic_mem *m, uint64_t lo, uint64_t hi);
int ic_mem_back(ic_mem *m, uint64_t lo, uint64_t hi);
void ic_mem_zero(ic_mem *m, uint64_t lo, uint64_t hi);
void ic_mem_release(ic_mem *m, uint64_t lo, uint64_t hi, int files);
int ic_mem_map_file(ic_mem *m, uint64_t lo, uint64_t hi, int fd, uint64_t off);
const ic_filemap *ic_mem_file_at(const ic_mem *m, uint64_t addr, uint64_t *end);
int ic_mem_copy(ic_mem *m, uint64_t addr, void *buf, uint64_t n, int write);
void ic_mem_grant(ic_mem *m);
uc_err ic_mem_ungrant(ic_mem *m);
uc_err ic_mem_remove_cache(ic_mem *m, uint64_t lo, uint64_t hi);
uc_err ic_mem_flush_tlb(ic_mem *m);

// Suspect pages (spare.c).
#define IC_SETTLED_NONE 0    // not a suspect page
#define IC_SETTLED_SAME 1    // it holds the bytes its code was made from
#define IC_SETTLED_CHANGED 2 // it does not
int ic_mem_spare(ic_mem *m);
int ic_mem_suspect(const ic_mem *m, uint64_t addr);
int ic_mem_settle(ic_mem *m, uint64_t addr);
void ic_mem_free_suspects(ic_mem *m);

#endif
