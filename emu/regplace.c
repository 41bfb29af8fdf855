// Where the CPU state keeps a register, for the call tree's reads of the
// stack pointer at every call, which uc_reg_read (Unicorn's dispatch and a
// switch on the register) made a tenth of an interpreter's run with
// attribution. The state is part of the emulator's CPU object, the one
// tb_gen_code is given (translation.c), at an offset that Unicorn does not
// publish. It is found once per run, from the block hook, where the
// translated code has written the guest's registers back to the state:
// the register is set to a marker, the object searched for it, and a
// place found is checked with a second marker; the register then gets its
// value back. The search covers the first IC_REG_SEARCH bytes of the
// object (calloc'd by Unicorn), in which QEMU's 32 KiB cache of jump
// targets comes before the registers, and never more than the object.
#include <malloc.h>
#include <string.h>

#include "hotpath.h"

#define IC_REG_SEARCH (64u << 10)

// ic_reg_place returns where the CPU state of uc, the engine running on
// this thread, keeps register reg, NULL if not found there (then read it
// with uc_reg_read). Call it from the block hook, once ic_translating_cpu
// is known.
uint64_t *ic_reg_place(uc_engine *uc, int reg) {
	const uint64_t mark = 0x1c0dd1e5a11f00d1ull, check = ~mark;
	uint8_t *cpu = ic_translating_cpu();
	uint64_t was, got;
	if (!cpu || uc_reg_read(uc, reg, &was) != UC_ERR_OK) return NULL;
	size_t size = malloc_usable_size(cpu);
	if (size > IC_REG_SEARCH) size = IC_REG_SEARCH;
	uint64_t *found = NULL;
	if (uc_reg_write(uc, reg, &mark) == UC_ERR_OK) {
		for (size_t off = 0; off + 8 <= size && !found; off += 8) {
			uint64_t v;
			memcpy(&v, cpu + off, 8);
			if (v != mark || uc_reg_write(uc, reg, &check) != UC_ERR_OK) continue;
			memcpy(&v, cpu + off, 8);
			if (v == check) found = (uint64_t *)(cpu + off);
			uc_reg_write(uc, reg, &mark);
		}
	}
	if (uc_reg_write(uc, reg, &was) != UC_ERR_OK || uc_reg_read(uc, reg, &got) != UC_ERR_OK || !found ||
	    *found != got)
		return NULL;
	return found;
}
