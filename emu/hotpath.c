#include "hotpath.h"

#include <stdlib.h>
#include <string.h>

#include "_cgo_export.h"

#define IC_ARCH_X86_64 1
#define IC_ARCH_ARM64 2

static inline uint32_t ic_hash(const ic_state *s, uint64_t addr, uint32_t size) {
	uint64_t k = addr ^ ((uint64_t)size << 52);
	return (uint32_t)((k * 0x9E3779B97F4A7C15ull) >> s->shift);
}

static int ic_rehash(ic_state *s, uint32_t nslots) {
	uint32_t *slots = calloc(nslots, sizeof *slots);
	if (!slots) return -1;
	uint32_t bits = 0;
	while ((1u << bits) < nslots) bits++;
	s->slots = (free(s->slots), slots);
	s->nslots = nslots;
	s->shift = 64 - bits;
	for (uint32_t i = 0; i < s->nblocks; i++) {
		uint32_t h = ic_hash(s, s->blocks[i].addr, s->blocks[i].size);
		while (slots[h]) h = (h + 1) & (nslots - 1);
		slots[h] = i + 1;
	}
	return 0;
}

ic_state *ic_new(uc_engine *uc, uintptr_t handle) {
	ic_state *s = calloc(1, sizeof *s);
	if (!s) return NULL;
	s->uc = uc;
	s->handle = handle;
	s->cur = -1;
	s->capblocks = 4096;
	s->blocks = malloc(s->capblocks * sizeof *s->blocks);
	if (!s->blocks || ic_rehash(s, 8192) != 0) {
		ic_free(s);
		return NULL;
	}
	return s;
}

void ic_free(ic_state *s) {
	if (!s) return;
	free(s->blocks);
	free(s->slots);
	free(s);
}

// ic_insert adds a block first seen at addr and asks Go to decode it.
static int64_t ic_insert(ic_state *s, uint64_t addr, uint32_t size) {
	if (s->nblocks == s->capblocks) {
		ic_block *nb = realloc(s->blocks, 2 * (size_t)s->capblocks * sizeof *nb);
		if (!nb) return -1;
		s->blocks = nb;
		s->capblocks *= 2;
	}
	if (2 * (s->nblocks + 1) > s->nslots && ic_rehash(s, 2 * s->nslots) != 0) return -1;
	uint32_t idx = s->nblocks++;
	ic_block *b = &s->blocks[idx];
	memset(b, 0, sizeof *b);
	b->addr = addr;
	b->size = size;
	uint32_t h = ic_hash(s, addr, size);
	while (s->slots[h]) h = (h + 1) & (s->nslots - 1);
	s->slots[h] = idx + 1;
	b->ninsn = icountGoNewBlock(s->handle, addr, size);
	return idx;
}

// hook_block runs before every execution of every translated block.
static void hook_block(uc_engine *uc, uint64_t addr, uint32_t size, void *ud) {
	ic_state *s = ud;
	uint32_t h = ic_hash(s, addr, size);
	int64_t idx;
	for (;;) {
		uint32_t slot = s->slots[h];
		if (slot == 0) {
			idx = ic_insert(s, addr, size);
			if (idx < 0) {
				s->oom = 1;
				uc_emu_stop(uc);
				return;
			}
			break;
		}
		ic_block *b = &s->blocks[slot - 1];
		if (b->addr == addr && b->size == size) {
			idx = slot - 1;
			break;
		}
		h = (h + 1) & (s->nslots - 1);
	}
	ic_block *b = &s->blocks[idx];
	b->execs++;
	s->execs++;
	s->insns += b->ninsn;
	s->cur = idx;
}

// ic_cut takes back the instructions of the current execution of block idx
// that did not complete.
void ic_cut(ic_state *s, int64_t idx, uint32_t notrun) {
	if (idx < 0 || (uint64_t)idx >= s->nblocks) return;
	s->blocks[idx].cut += notrun;
	s->insns -= notrun;
}

static void hook_syscall(uc_engine *uc, void *ud) {
	ic_state *s = ud;
	icountGoSyscall(s->handle);
}

static void hook_intr(uc_engine *uc, uint32_t intno, void *ud) {
	ic_state *s = ud;
	icountGoInterrupt(s->handle, intno);
}

static bool hook_mem_invalid(uc_engine *uc, uc_mem_type type, uint64_t addr, int size,
                             int64_t value, void *ud) {
	ic_state *s = ud;
	s->fault_type = type;
	s->fault_addr = addr;
	s->fault_size = size;
	return false;
}

// ic_install_hooks installs every hook; it must run before the first
// uc_emu_start, since hooks are compiled into translated code.
uc_err ic_install_hooks(ic_state *s, int arch) {
	uc_err err = uc_hook_add(s->uc, &(uc_hook){0}, UC_HOOK_BLOCK, (void *)hook_block, s, 1, 0);
	if (err != UC_ERR_OK) return err;
	err = uc_hook_add(s->uc, &(uc_hook){0}, UC_HOOK_MEM_INVALID, (void *)hook_mem_invalid, s, 1, 0);
	if (err != UC_ERR_OK) return err;
	err = uc_hook_add(s->uc, &(uc_hook){0}, UC_HOOK_INTR, (void *)hook_intr, s, 1, 0);
	if (err != UC_ERR_OK) return err;
	if (arch == IC_ARCH_X86_64) {
		err = uc_hook_add(s->uc, &(uc_hook){0}, UC_HOOK_INSN, (void *)hook_syscall, s, 1, 0,
		                  UC_X86_INS_SYSCALL);
	}
	return err;
}

// uc_ctl is variadic, which cgo cannot call: these wrap the uses icount has.
uc_err ic_set_cpu_model(uc_engine *uc, int model) { return uc_ctl_set_cpu_model(uc, model); }

uc_err ic_remove_cache(uc_engine *uc, uint64_t begin, uint64_t end) {
	return uc_ctl_remove_cache(uc, begin, end);
}
