// The x86-64 floating-point exception flags and MXCSR.FZ (fpstatus.c).
#ifndef ICOUNT_FPSTATUS_H
#define ICOUNT_FPSTATUS_H

#include "hotpath.h"

// ic_fpstatus_find locates softfloat's status in the CPU state, once per
// process, on the probes' scratch engine (probe.c); ic_fpstatus_known says
// whether it was found.
void ic_fpstatus_find(uc_engine *uc);
int ic_fpstatus_known(void);
// ic_fp_fold adds the exceptions raised since the last fold to MXCSR and
// the x87 status word: before anything reads them.
void ic_fp_fold(ic_state *s);
// ic_fp_loaded is called after MXCSR (sse) or the x87 status word (x87)
// was loaded: the flags raised before are then gone, and FZ applies.
void ic_fp_loaded(ic_state *s, int sse, int x87);

#endif
