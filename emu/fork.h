// What fork needs of the emulator: a new CPU made a copy of another's
// memory and registers (fork.c), and the size of its translation buffer.
#ifndef ICOUNT_FORK_H
#define ICOUNT_FORK_H

#include <unicorn/unicorn.h>

#include "memory.h"

// ic_mem_copy_from's failures.
#define IC_COPY_NOMEM 1 // no memory for the page table
#define IC_COPY_NOHOST 2 // no host address space for the slabs

int ic_mem_copy_from(ic_mem *dst, const ic_mem *src, uint64_t *failed_at);
uc_err ic_copy_regs(uc_engine *dst, uc_engine *src, int x86);
uc_err ic_set_code_buffer(uc_engine *uc, uint32_t size);
uc_err ic_code_buffer(uc_engine *uc, uint32_t *size);
uc_err ic_init_code_buffer(uc_engine *uc);

#endif
