// The C hot path of icount: per-block counting and the hooks Unicorn calls.
#ifndef ICOUNT_HOTPATH_H
#define ICOUNT_HOTPATH_H

#include <stdint.h>
#include <unicorn/unicorn.h>

#if UC_API_MAJOR < 2 || (UC_API_MAJOR == 2 && UC_API_MINOR < 1)
#error "icount needs Unicorn 2.1 or newer: 2.0 sends every guest store through a slow path (6x slower). Run 'make deps'."
#endif

// One translated block as the emulator ran it, keyed by start address and
// size in bytes. The block table is an open-addressing hash table of these
// (an entry with size 0 is empty), so that the hot path touches one entry.
typedef struct ic_block {
	uint64_t addr;
	uint64_t execs; // times the block was entered
	uint64_t cut;   // instructions that did not complete in cut-short executions
	uint32_t size;  // bytes
	uint32_t ninsn; // instructions, from the Go decoder on first sight
} ic_block;

typedef struct ic_state {
	uc_engine *uc;
	uintptr_t handle; // cgo.Handle of the Go-side CPU

	ic_block *table;
	uint32_t nslots;  // power of two
	uint32_t nblocks; // entries in use

	ic_block *cur; // the block executing now, NULL before the first

	// The last invalid memory access, recorded for Go.
	int fault_type;
	uint64_t fault_addr;
	int fault_size;
	int oom; // the block table could not grow
} ic_state;

ic_state *ic_new(uc_engine *uc, uintptr_t handle);
void ic_free(ic_state *s);
uc_err ic_install_hooks(ic_state *s, int arch);
void ic_cut(ic_state *s, uint32_t notrun);
uc_err ic_set_cpu_model(uc_engine *uc, int model);
uc_err ic_remove_cache(uc_engine *uc, uint64_t begin, uint64_t end);

#endif
