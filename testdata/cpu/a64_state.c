/* a64_state.c: the arm64 floating-point and SIMD state across a signal
 * handler, one line per field:
 *
 *   handler-*   the FPCR, FPSR, v0 and v1 a SIGUSR1 handler starts with
 *   frame-*     what the handler finds in its signal frame's FPSIMD record
 *               (uc_mcontext.__reserved, FPSIMD_MAGIC) for registers set
 *               just before the kill system call
 *   after-*     the registers after the handler returns, having changed
 *               the frame's v1, v31 and FPCR */
#include "cpu.h"
#include <signal.h>
#include <ucontext.h>

static uint64_t vin[32][2] __attribute__((aligned(16)));
static uint64_t vout[32][2] __attribute__((aligned(16)));
static uint64_t hv[2][2] __attribute__((aligned(16)));

#define VLOAD(a, b) "ldp q" #a ", q" #b ", [x9, #" #a "*16]\n\t"
#define VSTORE(a, b) "stp q" #a ", q" #b ", [x9, #" #a "*16]\n\t"
#define V32(M) M(0, 1) M(2, 3) M(4, 5) M(6, 7) M(8, 9) M(10, 11) M(12, 13) M(14, 15) M(16, 17) M(18, 19) M(20, 21) \
	M(22, 23) M(24, 25) M(26, 27) M(28, 29) M(30, 31)
#define VCLOB "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13", "v14", "v15", \
	"v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26", "v27", "v28", "v29", "v30", "v31"

struct ctx {
	uint32_t magic, size;
};
struct fpsimd {
	struct ctx head;
	uint32_t fpsr, fpcr;
	uint64_t v[32][2];
};

static void on_usr1(int sig, siginfo_t *si, void *ucv)
{
	uint64_t cr, sr;
	__asm__ volatile("mrs %0, fpcr\n\tmrs %1, fpsr\n\tstr q0, [%2]\n\tstr q1, [%2, #16]"
			 : "=r"(cr), "=r"(sr) : "r"(hv) : "memory");
	(void)sig, (void)si;
	pr("handler-fpcr %llx\nhandler-fpsr %llx\n", (unsigned long long)cr, (unsigned long long)sr);
	for (int i = 0; i < 2; i++)
		pr("handler-v%d %016llx:%016llx\n", i, (unsigned long long)hv[i][1], (unsigned long long)hv[i][0]);
	ucontext_t *uc = ucv;
	unsigned char *p = (unsigned char *)uc->uc_mcontext.__reserved;
	for (;;) {
		struct ctx *c = (struct ctx *)p;
		if (c->magic == 0 || c->size == 0) {
			pr("frame-fpsimd missing\n");
			return;
		}
		if (c->magic == 0x46508001)
			break;
		p += c->size;
	}
	struct fpsimd *f = (struct fpsimd *)p;
	pr("frame-fpsimd-size %u\nframe-fpsr %x\nframe-fpcr %x\n", f->head.size, f->fpsr, f->fpcr);
	for (int i = 0; i < 32; i++)
		pr("frame-v%d %016llx:%016llx\n", i, (unsigned long long)f->v[i][1], (unsigned long long)f->v[i][0]);
	f->v[1][0] = 0x1122334455667788ULL, f->v[1][1] = 0x99aabbccddeeff00ULL;
	f->v[31][0] = ~0ULL, f->v[31][1] = 0;
	f->fpcr = 1 << 22; /* toward +inf */
}

int main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_usr1;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR1, &sa, 0);
	for (int i = 0; i < 32; i++)
		vin[i][0] = 0x1000000000000001ULL * (uint64_t)(i + 3), vin[i][1] = 0x0123456789abcdefULL + (uint64_t)i;
	uint64_t cr = 3 << 22 | 1 << 24, sr = 0x08000011, rcr, rsr;
	register long x0 __asm__("x0") = getpid();
	register long x1 __asm__("x1") = SIGUSR1;
	register long x8 __asm__("x8") = 129; /* kill */
	__asm__ volatile("msr fpcr, %[cr]\n\tmsr fpsr, %[sr]\n\tmov x9, %[vi]\n\t" V32(VLOAD) "svc #0\n\tmov x9, %[vo]\n\t"
			 V32(VSTORE) "mrs %[rcr], fpcr\n\tmrs %[rsr], fpsr\n\tmsr fpcr, xzr\n\tmsr fpsr, xzr"
			 : "+r"(x0), [rcr] "=&r"(rcr), [rsr] "=&r"(rsr)
			 : "r"(x1), "r"(x8), [cr] "r"(cr), [sr] "r"(sr), [vi] "r"(vin), [vo] "r"(vout)
			 : "x9", "memory", VCLOB);
	pr("after-kill %lld\nafter-fpcr %llx\nafter-fpsr %llx\n", (long long)x0, (unsigned long long)rcr,
	   (unsigned long long)rsr);
	for (int i = 0; i < 32; i++)
		pr("after-v%d %016llx:%016llx\n", i, (unsigned long long)vout[i][1], (unsigned long long)vout[i][0]);
	pr_flush();
	return 0;
}
