// Exceptions in flight (x86-64). QEMU remembers the contributory exception
// being delivered (CPUX86State.old_exception) so that a second one raised
// while delivering the first becomes a double fault; a completed delivery
// forgets it. Unicorn never delivers: it gives the exception to the
// interrupt hook, and the field stays set. The guest's next divide error
// then arrives as a double fault (8) and the one after as a triple fault,
// which stops the emulator. Linux delivers every divide error as SIGFPE.
//
// The field is not reachable through Unicorn's API, but it lies in the CPU
// state a uc_context holds. ic_inflight_find finds where, once, on the
// scratch engine of the probes (probe.c): the int that is -1 after reset and 0 after a divide
// error, and that, set back to -1, makes the next divide error arrive as
// a divide error again. After every exception the hook clears it there.
#include <string.h>

#include "hotpath.h"

static void scratch_intr(uc_engine *uc, uint32_t intno, void *ud) {
	*(int *)ud = (int)intno;
	uc_emu_stop(uc);
}

// divide runs the scratch engine's divide by zero from its start and
// returns the exception it raised, -1 if none.
static int divide(uc_engine *uc) {
	uint64_t rip = 0x1000;
	int intno = -1;
	uc_hook h;
	if (uc_hook_add(uc, &h, UC_HOOK_INTR, (void *)scratch_intr, &intno, 1, 0) != UC_ERR_OK) return -1;
	uc_reg_write(uc, UC_X86_REG_RIP, &rip);
	uc_emu_start(uc, rip, 0x1000 + 0x100, 0, 0);
	uc_hook_del(uc, h);
	return intno;
}

static long inflight_off = -1;

void ic_inflight_find(uc_engine *uc) {
	static const uint8_t code[] = {0x31, 0xc9, 0xf7, 0xf1, 0xf4}; // xor ecx,ecx; div ecx; hlt
	long found = -1;
	uc_context *before = NULL, *after = NULL, *probe = NULL;
	if (uc_mem_write(uc, 0x1000, code, sizeof code) != UC_ERR_OK || uc_context_alloc(uc, &before) != UC_ERR_OK ||
	    uc_context_alloc(uc, &after) != UC_ERR_OK || uc_context_alloc(uc, &probe) != UC_ERR_OK ||
	    uc_context_save(uc, before) != UC_ERR_OK)
		goto out;
	if (divide(uc) != 0 || uc_context_save(uc, after) != UC_ERR_OK) goto out;
	size_t size = uc_context_size(uc);
	// A second divide error without the field cleared is the double fault.
	if (uc_context_restore(uc, after) != UC_ERR_OK || divide(uc) != 8) goto out;
	const uint8_t *b = (const uint8_t *)before, *a = (const uint8_t *)after;
	for (size_t off = 0; off + 4 <= size; off += 4) {
		int32_t vb, va;
		memcpy(&vb, b + off, 4);
		memcpy(&va, a + off, 4);
		if (vb != -1 || va != 0) continue;
		memcpy(probe, after, size);
		memcpy((uint8_t *)probe + off, &vb, 4);
		if (uc_context_restore(uc, probe) != UC_ERR_OK) break;
		if (divide(uc) == 0) {
			found = (long)off;
			break;
		}
	}
out:
	if (probe) uc_context_free(probe);
	if (after) uc_context_free(after);
	if (before) uc_context_free(before);
	inflight_off = found;
}

void ic_inflight_clear(ic_state *s) {
	if (inflight_off < 0 || !s->scratch) return;
	if (uc_context_save(s->uc, s->scratch) != UC_ERR_OK) return;
	int32_t none = -1;
	memcpy((uint8_t *)s->scratch + inflight_off, &none, 4);
	uc_context_restore(s->uc, s->scratch);
}
