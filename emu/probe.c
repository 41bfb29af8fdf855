// The x86-64 CPU state's fields that Unicorn's API does not reach, found
// once per process by running known instructions on one scratch engine:
// the exception in flight (exception.c) and softfloat's status
// (fpstatus.c). The exception probe, which ends in a halt, runs last.
#include "fpstatus.h"

void ic_probe_x86(void) {
	uc_engine *uc;
	if (uc_open(UC_ARCH_X86, UC_MODE_64, &uc) != UC_ERR_OK) return;
	if (uc_mem_map(uc, 0x1000, 0x1000, UC_PROT_ALL) == UC_ERR_OK) {
		ic_fpstatus_find(uc);
		ic_inflight_find(uc);
	}
	uc_close(uc);
}
