/* x86_avx.c: instructions of extensions the emulated CPU does not
 * advertise (emu/cpuid.go: no AVX, AVX-512, FMA, F16C, BMI, SSSE3, SSE4,
 * POPCNT, MOVBE, RDRAND, RDSEED, XSAVE, AES-NI, PCLMULQDQ, SHA, ADX,
 * RDPID) must raise SIGILL (ILL_ILLOPN at
 * the instruction), as on a CPU without them, and what it does advertise
 * (fences, clflush, CMPXCHG16B, LAHF in 64-bit mode, RDTSCP) must run. The machine the tests run on has
 * most of them, so cmd/icount/cpu_test.go compares icount's output with
 * x86_avx.want, not with the native run. lzcnt and tzcnt are bsr and bsf
 * with a rep prefix: a CPU without LZCNT (ABM) and BMI1 runs them as bsr
 * and bsf, which x86_avx.want expects too. */
#include "cpu.h"
#include "sigill.h"

static void rep_bs(const char *name, int tz, uint64_t src)
{
	uint64_t r = 0x5555;
	if (tz)
		__asm__ volatile("tzcnt %1, %0" : "+r"(r) : "r"(src) : "cc");
	else
		__asm__ volatile("lzcnt %1, %0" : "+r"(r) : "r"(src) : "cc");
	pr("%s %llx: %llx\n", name, (unsigned long long)src, (unsigned long long)r);
}

int main(void)
{
	trap_install();
	TRY("vaddsd", "vaddsd %%xmm2, %%xmm1, %%xmm0", "xmm0");
	TRY("vxorps", "vxorps %%xmm1, %%xmm1, %%xmm1", "xmm1");
	TRY("vpxor", "vpxor %%xmm2, %%xmm1, %%xmm0", "xmm0");
	TRY("vmulpd", "vmulpd %%xmm2, %%xmm1, %%xmm0", "xmm0");
	TRY("vmovdqu-load", "vmovdqu (%%rsp), %%xmm0", "xmm0");
	TRY("vpshufb", "vpshufb %%xmm2, %%xmm1, %%xmm0", "xmm0");
	TRY("vaddps-ymm", "vaddps %%ymm1, %%ymm2, %%ymm3", "xmm3");
	TRY("vzeroupper", "vzeroupper");
	TRY("vfmadd231sd", "vfmadd231sd %%xmm2, %%xmm1, %%xmm0", "xmm0");
	TRY("vcvtph2ps", "vcvtph2ps %%xmm1, %%xmm0", "xmm0");
	TRY("andn", "andn %%ecx, %%edx, %%eax", "rax", "cc");
	TRY("vaddps-zmm-evex", "vaddps %%zmm1, %%zmm2, %%zmm3", "xmm3");
	TRY("vaddps-xmm19-evex", "vaddps %%xmm17, %%xmm18, %%xmm19");
	TRY("pshufb-ssse3", "pshufb %%xmm2, %%xmm0", "xmm0");
	TRY("pmulld-sse41", "pmulld %%xmm2, %%xmm0", "xmm0");
	TRY("crc32-sse42", "crc32l %%ecx, %%eax", "rax", "cc");
	TRY("popcnt", "popcnt %%rcx, %%rax", "rax", "cc");
	TRY("movbe", "movbe (%%rsp), %%eax", "rax");
	TRY("rdrand", "rdrand %%eax", "rax", "cc");
	TRY("rdseed", "rdseed %%eax", "rax", "cc");
	TRY("pmaddubsw-ssse3", "pmaddubsw %%xmm2, %%xmm0", "xmm0", "cc");
	TRY("palignr-ssse3", "palignr $3, %%xmm2, %%xmm0", "xmm0", "cc");
	TRY("phaddw-ssse3", "phaddw %%xmm2, %%xmm0", "xmm0", "cc");
	TRY("pabsd-ssse3", "pabsd %%xmm2, %%xmm0", "xmm0", "cc");
	TRY("pextrb-sse41", "pextrb $1, %%xmm0, %%eax", "rax", "cc");
	TRY("ptest-sse41", "ptest %%xmm2, %%xmm0", "xmm0", "cc");
	TRY("roundsd-sse41", "roundsd $1, %%xmm2, %%xmm0", "xmm0", "cc");
	TRY("blendvps-sse41", "blendvps %%xmm0, %%xmm2, %%xmm1", "xmm1", "cc");
	TRY("insertps-sse41", "insertps $0x10, %%xmm2, %%xmm0", "xmm0", "cc");
	TRY("pminsd-sse41", "pminsd %%xmm2, %%xmm0", "xmm0", "cc");
	TRY("movntdqa-sse41", "movntdqa (%%rsp), %%xmm0", "xmm0", "cc");
	TRY("pcmpgtq-sse42", "pcmpgtq %%xmm2, %%xmm0", "xmm0", "cc");
	TRY("pcmpestri-sse42", "pcmpestri $0, %%xmm2, %%xmm0", "rcx", "cc");
	TRY("aesenc-aesni", "aesenc %%xmm2, %%xmm0", "xmm0", "cc");
	TRY("aeskeygenassist-aesni", "aeskeygenassist $1, %%xmm2, %%xmm0", "xmm0", "cc");
	TRY("pclmulqdq", "pclmulqdq $0, %%xmm2, %%xmm0", "xmm0", "cc");
	TRY("sha1rnds4-sha", "sha1rnds4 $0, %%xmm2, %%xmm0", "xmm0", "cc");
	TRY("sha256rnds2-sha", "sha256rnds2 %%xmm0, %%xmm2, %%xmm1", "xmm1", "cc");
	TRY("adcx-adx", "adcx %%rcx, %%rax", "rax", "cc");
	TRY("adox-adx", "adox %%rcx, %%rax", "rax", "cc");
	TRY("rdpid", "rdpid %%rax", "rax", "cc");
	TRY2("xgetbv", "xorl %%ecx, %%ecx", "xgetbv", "rax", "rcx", "rdx");
	/* What the emulated CPU has must run. */
	TRY("mfence-lfence-sfence", "mfence\n\tlfence\n\tsfence");
	TRY("pause", "pause");
	TRY("prefetch", "prefetcht0 (%%rsp)\n\tprefetchnta (%%rsp)");
	TRY("clflush", "clflush (%%rsp)");
	TRY("endbr64", "endbr64");
	TRY("cmpxchg16b", "movq %%rsp, %%r11\n\tandq $-16, %%r11\n\tsubq $64, %%r11\n\tmovq (%%r11), %%rax\n\t"
	    "movq 8(%%r11), %%rdx\n\tmovq %%rax, %%rbx\n\tmovq %%rdx, %%rcx\n\tlock cmpxchg16b (%%r11)",
	    "rax", "rbx", "rcx", "rdx", "r11", "cc");
	TRY("lahf-sahf", "lahf\n\tsahf", "rax", "cc");
	TRY("rdtscp", "rdtscp", "rax", "rcx", "rdx");
	rep_bs("lzcnt-as-bsr", 0, 1);
	rep_bs("lzcnt-as-bsr", 0, 0x8000000000000000ULL);
	rep_bs("lzcnt-as-bsr", 0, 0);
	rep_bs("tzcnt-as-bsf", 1, 8);
	rep_bs("tzcnt-as-bsf", 1, 0);
	pr("done\n");
	pr_flush();
	return 0;
}
