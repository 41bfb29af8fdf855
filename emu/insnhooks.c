// Hooks on single instructions icount emulates itself: cpuid, and the
// instructions that read the CPU's counter (rdtsc, rdtscp). None of them
// runs per block; each enters Go once per execution of the instruction.
#include "hotpath.h"
#include "insnhooks.h"

#include "_cgo_export.h"

// ic_counter_insn tells a counter-reading instruction at the start of code
// (avail bytes) from its bytes: legacy and REX prefixes, then 0F 31 (rdtsc)
// or 0F 01 F9 (rdtscp). It sets *len to the instruction's length.
int ic_counter_insn(const uint8_t *code, uint32_t avail, uint32_t *len) {
	uint32_t i = 0;
	while (i < avail && i < 14 &&
	       (code[i] == 0x66 || code[i] == 0x67 || code[i] == 0xf2 || code[i] == 0xf3 || code[i] == 0x2e ||
	        code[i] == 0x36 || code[i] == 0x3e || code[i] == 0x26 || code[i] == 0x64 || code[i] == 0x65 ||
	        (code[i] & 0xf0) == 0x40))
		i++;
	if (i + 2 <= avail && code[i] == 0x0f && code[i + 1] == 0x31) {
		*len = i + 2;
		return IC_RDTSC;
	}
	if (i + 3 <= avail && code[i] == 0x0f && code[i + 1] == 0x01 && code[i + 2] == 0xf9) {
		*len = i + 3;
		return IC_RDTSCP;
	}
	return 0;
}

// hook_counter runs before an rdtsc or rdtscp at a site Go registered. It
// does the instruction's work (EDX:EAX, and ECX = IA32_TSC_AUX for rdtscp)
// with the value Go gives, and moves RIP past it. Writing RIP ends the
// translated block here: Unicorn goes on at the new RIP with a new block,
// which the block hook counts, so the instructions of this block after the
// site are taken back from it. The instruction itself counts as one.
static void hook_counter(uc_engine *uc, uint64_t addr, uint32_t size, void *ud) {
	ic_state *s = ud;
	// size is the instruction's length, except for an instruction the
	// emulated CPU does not have (rdtscp on qemu64, which ends its block
	// and would raise #UD after this hook): then it is a placeholder, and
	// the length comes from the bytes.
	uint8_t code[15];
	uint32_t avail = sizeof code, len = 0;
	if (addr / 4096 != (addr + avail - 1) / 4096) avail = 4096 - addr % 4096; // not past the page
	if (size < avail) avail = size;
	if (uc_mem_read(uc, addr, code, avail) != UC_ERR_OK) return;
	int kind = ic_counter_insn(code, avail, &len);
	if (kind == 0) return; // the code here changed since the site was found
	size = len;
	uint64_t value = 0;
	uint32_t aux = 0;
	uint32_t notrun = icountGoCounter(s->handle, addr, size, kind, &value, &aux);
	uint64_t rax = (uint32_t)value, rdx = value >> 32, rcx = aux, rip = addr + size;
	uc_reg_write(uc, UC_X86_REG_RAX, &rax);
	uc_reg_write(uc, UC_X86_REG_RDX, &rdx);
	if (kind == IC_RDTSCP) uc_reg_write(uc, UC_X86_REG_RCX, &rcx);
	ic_cut(s, notrun);
	uc_reg_write(uc, UC_X86_REG_RIP, &rip);
}

// ic_watch_counter installs hook_counter at one instruction and discards
// the translated code holding it, which was translated without the hook.
uc_err ic_watch_counter(ic_state *s, uint64_t pc, uint32_t size) {
	uc_err err = uc_hook_add(s->uc, &(uc_hook){0}, UC_HOOK_CODE, (void *)hook_counter, s, pc, pc);
	if (err != UC_ERR_OK) return err;
	return ic_mem_remove_cache(s->mem, pc, pc + size);
}

// hook_cpuid answers cpuid from icount's fixed table and skips the
// instruction (returning 1); the block goes on.
static int hook_cpuid(uc_engine *uc, void *ud) {
	ic_state *s = ud;
	uint64_t rax = 0, rcx = 0;
	uc_reg_read(uc, UC_X86_REG_RAX, &rax);
	uc_reg_read(uc, UC_X86_REG_RCX, &rcx);
	uint32_t out[4] = {0};
	icountGoCPUID(s->handle, (uint32_t)rax, (uint32_t)rcx, out);
	uint64_t r[4] = {out[0], out[1], out[2], out[3]};
	uc_reg_write(uc, UC_X86_REG_RAX, &r[0]);
	uc_reg_write(uc, UC_X86_REG_RBX, &r[1]);
	uc_reg_write(uc, UC_X86_REG_RCX, &r[2]);
	uc_reg_write(uc, UC_X86_REG_RDX, &r[3]);
	return 1;
}

// The arm64 ID registers as a program at EL0 reads them under Linux,
// which traps the reads and answers with the fields it exposes (the rest
// read as 0; arch/arm64/kernel/cpufeature.c): MIDR_EL1 and MPIDR_EL1 as
// on a Cortex-A72, REVIDR_EL1 0, and of the AArch64 feature registers
// (CRm 4 to 7) what the A72 has of the visible fields: EL0 and EL1 in
// AArch64 with FP and AdvSIMD, the debug version, AES with PMULL, SHA1,
// SHA2 and CRC32, and the translation granules' fields as Linux fixes
// them. The same values qemu-aarch64 -cpu cortex-a72 gives.
static const struct {
	uint8_t crm, op2;
	uint64_t value;
} id_regs[] = {
	{0, 0, 0x410fd083}, // MIDR_EL1
	{0, 5, 0x80000000}, // MPIDR_EL1
	{0, 6, 0},          // REVIDR_EL1
	{4, 0, 0x11},       // ID_AA64PFR0_EL1
	{5, 0, 0x6},        // ID_AA64DFR0_EL1
	{6, 0, 0x11120},    // ID_AA64ISAR0_EL1
	{7, 0, 0xff000000}, // ID_AA64MMFR0_EL1
};

// read_id_reg serves an mrs of the ID space (op0=3 op1=0 CRn=0). The other
// registers of CRm 4 to 7 read as 0, as Linux answers for them. The
// AArch32 ones (CRm 1 to 3) and the rest of CRm 0, which Linux does not
// emulate, never get here: the decoder refuses them (SIGILL) at their
// sites; this hook leaves them to the emulator all the same.
static uint32_t read_id_reg(uc_engine *uc, uc_arm64_reg reg, const uc_arm64_cp_reg *cp) {
	if (cp->crm >= 1 && cp->crm <= 3) return 0;
	uint64_t value = 0;
	int known = cp->crm >= 4 && cp->crm <= 7;
	for (size_t i = 0; i < sizeof id_regs / sizeof id_regs[0]; i++) {
		if (id_regs[i].crm == cp->crm && id_regs[i].op2 == cp->op2) {
			value = id_regs[i].value;
			known = 1;
		}
	}
	if (!known) return 0;
	if (reg != UC_ARM64_REG_XZR) uc_reg_write(uc, reg, &value);
	return 1;
}

// hook_mrs serves reads of the arm64 generic timer: CNTVCT_EL0, CNTPCT_EL0
// and their self-synchronized forms from Go, CNTFRQ_EL0 (the nominal
// frequency) too. It runs for every mrs, so every other system register is
// let through at once, in C. Writing Xt and returning 1 skips the
// instruction without ending the block: nothing is taken back.
static uint32_t hook_mrs(uc_engine *uc, uc_arm64_reg reg, const uc_arm64_cp_reg *cp, void *ud) {
	if (cp->op0 == 3 && cp->op1 == 0 && cp->crn == 0) return read_id_reg(uc, reg, cp);
	// The timer registers are op0=3 op1=3 CRn=14 CRm=0.
	if (cp->op0 != 3 || cp->op1 != 3 || cp->crn != 14 || cp->crm != 0) return 0;
	int kind;
	switch (cp->op2) {
	case 0: kind = IC_CNTFRQ; break;
	case 1: kind = IC_CNTPCT; break;
	case 2: kind = IC_CNTVCT; break;
	case 5: kind = IC_CNTPCTSS; break;
	case 6: kind = IC_CNTVCTSS; break;
	default: return 0;
	}
	ic_state *s = ud;
	uint64_t value = 0, pc = 0;
	uint32_t aux = 0;
	if (kind == IC_CNTVCTSS || kind == IC_CNTPCTSS) {
		// The cortex-a72 lacks these (FEAT_ECV): its block ends at the
		// mrs, which would be undefined, and returning 1 does not step
		// past it. Move the PC past it: Unicorn goes on there with a new
		// block (and a cut, like x86's counter reads, if any followed).
		uc_reg_read(uc, UC_ARM64_REG_PC, &pc);
		uint32_t notrun = icountGoCounter(s->handle, pc, 4, kind, &value, &aux);
		if (reg != UC_ARM64_REG_XZR) uc_reg_write(uc, reg, &value);
		ic_cut(s, notrun);
		pc += 4;
		uc_reg_write(uc, UC_ARM64_REG_PC, &pc);
		return 1;
	}
	icountGoCounter(s->handle, 0, 0, kind, &value, &aux);
	if (reg != UC_ARM64_REG_XZR) uc_reg_write(uc, reg, &value);
	return 1;
}

// ic_install_insn_hooks installs the hooks of whole instruction classes;
// like every hook, before the first uc_emu_start.
uc_err ic_install_insn_hooks(ic_state *s, int arch) {
	switch (arch) {
	case 1: // x86-64
		return uc_hook_add(s->uc, &(uc_hook){0}, UC_HOOK_INSN, (void *)hook_cpuid, s, 1, 0, UC_X86_INS_CPUID);
	case 2: // arm64
		return uc_hook_add(s->uc, &(uc_hook){0}, UC_HOOK_INSN, (void *)hook_mrs, s, 1, 0, UC_ARM64_INS_MRS);
	}
	return UC_ERR_OK;
}
