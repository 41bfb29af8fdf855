// Hooks on single instructions icount emulates itself (insnhooks.c).
#ifndef ICOUNT_INSNHOOKS_H
#define ICOUNT_INSNHOOKS_H

#include <stdint.h>
#include <unicorn/unicorn.h>

#include "hotpath.h"

// Counter-reading instructions; the values match emu.CounterInsn.
#define IC_RDTSC 1
#define IC_RDTSCP 2
#define IC_CNTVCT 3
#define IC_CNTVCTSS 4
#define IC_CNTPCT 5
#define IC_CNTPCTSS 6
#define IC_CNTFRQ 7

int ic_counter_insn(const uint8_t *code, uint32_t avail, uint32_t *len);
uc_err ic_watch_counter(ic_state *s, uint64_t pc, uint32_t size);
uc_err ic_install_insn_hooks(ic_state *s, int arch);

#endif
