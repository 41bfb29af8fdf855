/* x86_state.c: the floating-point state as a whole. One line per field:
 *
 *   init-*         the FPU control and status words, MXCSR and RFLAGS at
 *                  main, as Linux starts a process (FCW 0x37f, MXCSR 0x1f80,
 *                  IF set)
 *   fxsave-*       what fxsave (and fxsave64) store of a state set up
 *                  instruction by instruction: x87 control, status and tag
 *                  words, three stack registers, MXCSR, MXCSR_MASK, xmm0-15;
 *                  the last-instruction pointers on their own line
 *   fxrstor-*      what fxrstor loads of a modified area, read back
 *                  instruction by instruction
 *   fnstenv-*      what fnstenv stores (the control word it then loads with
 *                  every exception masked), and what fldenv loads
 *   fnsave-*       what fnsave stores, the state it leaves (fninit's), and
 *                  what frstor loads of a modified area
 *   frame-*        the state a SIGUSR1 handler finds in its signal frame
 *                  (uc_mcontext.fpregs, the fxsave layout) for registers set
 *                  just before the kill system call
 *   handler-*      the registers the handler itself starts with (Linux gives
 *                  it FCW 0x37f and MXCSR 0x1f80)
 *   after-*        the registers after the handler returns through
 *                  rt_sigreturn, having changed the frame's xmm1, xmm15,
 *                  MXCSR, FCW and st0 */
#include "cpu.h"
#include <signal.h>
#include <ucontext.h>

struct fxarea {
	uint16_t fcw, fsw;
	uint8_t ftw, r1;
	uint16_t fop;
	uint64_t fip, fdp;
	uint32_t mxcsr, mxcsr_mask;
	struct {
		uint64_t m;
		uint16_t se, pad[3];
	} st[8];
	uint64_t xmm[16][2];
	uint8_t rest[96];
} __attribute__((aligned(16)));

static uint64_t xin[16][2] __attribute__((aligned(16)));
static uint64_t xout[16][2] __attribute__((aligned(16)));

#define XMM16(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) M(9) M(10) M(11) M(12) M(13) M(14) M(15)
#define XLOAD(n) "movdqa " #n "*16(%[xi]), %%xmm" #n "\n\t"
#define XSTORE(n) "movdqa %%xmm" #n ", " #n "*16(%[xo])\n\t"
#define XZERO(n) "xorps %%xmm" #n ", %%xmm" #n "\n\t"
#define XCLOB "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", \
	"xmm11", "xmm12", "xmm13", "xmm14", "xmm15"
#define STCLOB "st", "st(1)", "st(2)", "st(3)", "st(4)", "st(5)", "st(6)", "st(7)"

typedef struct {
	uint64_t m;
	uint16_t se;
} __attribute__((packed)) f80;

static void print_area(const char *p, const struct fxarea *a, int nst)
{
	pr("%s-fcw %04x\n%s-fsw %04x\n%s-ftw %02x\n%s-mxcsr %08x\n%s-mxcsr-mask %08x\n", p, a->fcw, p, a->fsw,
	   p, a->ftw, p, a->mxcsr, p, a->mxcsr_mask);
	/* FDP is not printed: this machine's CPU (FDP_EXCPTN_ONLY) updates it
	 * only on an unmasked exception. */
	pr("%s-fop-fip %04x %016llx\n", p, a->fop, (unsigned long long)a->fip);
	for (int i = 0; i < nst; i++)
		pr("%s-st%d %04x:%016llx\n", p, i, a->st[i].se, (unsigned long long)a->st[i].m);
	for (int i = 0; i < 16; i++)
		pr("%s-xmm%d %016llx:%016llx\n", p, i, (unsigned long long)a->xmm[i][1],
		   (unsigned long long)a->xmm[i][0]);
}

static void init_state(void)
{
	uint16_t cw, sw;
	uint32_t mx;
	uint64_t fl;
	__asm__ volatile("fnstcw %0\n\tfnstsw %1\n\tstmxcsr %2\n\tpushfq\n\tpopq %3"
			 : "=m"(cw), "=m"(sw), "=m"(mx), "=r"(fl));
	/* RFLAGS: the arithmetic flags are whatever the code before left */
	pr("init-fcw %04x\ninit-fsw %04x\ninit-mxcsr %08x\ninit-rflags %llx\n", cw, sw, mx,
	   (unsigned long long)(fl & ~0x8d5ULL));
}

static void fxsave_roundtrip(int wide)
{
	static struct fxarea area, back;
	const char *p = wide ? "fxsave64" : "fxsave";
	f80 v = {0xa1b2c3d4e5f60718ULL, 0xc123};
	uint16_t cw = 0x0e7b; /* toward zero, 53 bits, ZE unmasked (nothing here divides) */
	uint32_t mx = 0x3fa1; /* round down, masks, IE flag set */
	for (int i = 0; i < 16; i++)
		xin[i][0] = 0x0101010101010101ULL * (uint64_t)(i + 1), xin[i][1] = 0xf0e0d0c0b0a09080ULL ^ (uint64_t)i;
	memset(&area, 0xcc, sizeof area);
	if (wide)
		__asm__ volatile("fninit\n\tfldcw %[cw]\n\tfldt %[v]\n\tfldpi\n\tfld1\n\tldmxcsr %[mx]\n\t" XMM16(XLOAD)
				 "fxsave64 %[a]\n\tfninit"
				 : [a] "=m"(area) : [cw] "m"(cw), [v] "m"(v), [mx] "m"(mx), [xi] "r"(xin)
				 : "memory", XCLOB, STCLOB);
	else
		__asm__ volatile("fninit\n\tfldcw %[cw]\n\tfldt %[v]\n\tfldpi\n\tfld1\n\tldmxcsr %[mx]\n\t" XMM16(XLOAD)
				 "fxsave %[a]\n\tfninit"
				 : [a] "=m"(area) : [cw] "m"(cw), [v] "m"(v), [mx] "m"(mx), [xi] "r"(xin)
				 : "memory", XCLOB, STCLOB);
	print_area(p, &area, 8);

	/* Change the area, load it, and read every register back. */
	back = area;
	for (int i = 0; i < 16; i++)
		back.xmm[i][0] ^= 0x5555555555555555ULL, back.xmm[i][1] += (uint64_t)i;
	back.mxcsr = 0x5f82; /* round up, masks, DE flag */
	back.fcw = 0x007f;   /* 24 bits, to nearest */
	back.st[0].m = 0xc000000000000000ULL, back.st[0].se = 0x4000;
	uint16_t rcw, rsw;
	uint32_t rmx, defmx = 0x1f80;
	f80 st[3];
	if (wide)
		__asm__ volatile("fninit\n\tldmxcsr %[dm]\n\t" XMM16(XZERO) "fxrstor64 %[a]\n\t" XMM16(XSTORE)
				 "fnstcw %[cw]\n\tfnstsw %[sw]\n\tstmxcsr %[mx]\n\t"
				 "fstpt %[s0]\n\tfstpt %[s1]\n\tfstpt %[s2]\n\tldmxcsr %[dm]"
				 : [cw] "=m"(rcw), [sw] "=m"(rsw), [mx] "=m"(rmx), [s0] "=m"(st[0]), [s1] "=m"(st[1]),
				   [s2] "=m"(st[2])
				 : [a] "m"(back), [dm] "m"(defmx), [xo] "r"(xout) : "memory", XCLOB, STCLOB);
	else
		__asm__ volatile("fninit\n\tldmxcsr %[dm]\n\t" XMM16(XZERO) "fxrstor %[a]\n\t" XMM16(XSTORE)
				 "fnstcw %[cw]\n\tfnstsw %[sw]\n\tstmxcsr %[mx]\n\t"
				 "fstpt %[s0]\n\tfstpt %[s1]\n\tfstpt %[s2]\n\tldmxcsr %[dm]"
				 : [cw] "=m"(rcw), [sw] "=m"(rsw), [mx] "=m"(rmx), [s0] "=m"(st[0]), [s1] "=m"(st[1]),
				   [s2] "=m"(st[2])
				 : [a] "m"(back), [dm] "m"(defmx), [xo] "r"(xout) : "memory", XCLOB, STCLOB);
	__asm__ volatile("fninit" ::: STCLOB);
	pr("%s-fxrstor-fcw %04x\n%s-fxrstor-fsw %04x\n%s-fxrstor-mxcsr %08x\n", p, rcw, p, rsw, p, rmx);
	for (int i = 0; i < 3; i++)
		pr("%s-fxrstor-st%d %04x:%016llx\n", p, i, st[i].se, (unsigned long long)st[i].m);
	for (int i = 0; i < 16; i++)
		pr("%s-fxrstor-xmm%d %016llx:%016llx\n", p, i, (unsigned long long)xout[i][1],
		   (unsigned long long)xout[i][0]);
}

/* The x87 environment as fnstenv and fnsave store it in 64-bit mode (the
 * 32-bit protected-mode layout), and fnsave's registers. */
struct x87env {
	uint16_t fcw, r0, fsw, r1, ftw, r2;
	uint32_t fip;
	uint16_t fcs, fop;
	uint32_t fdp;
	uint16_t fds, r3;
} __attribute__((packed));
struct x87save {
	struct x87env env;
	f80 st[8];
} __attribute__((packed));

static void print_env(const char *p, const struct x87env *e)
{
	/* FDP is not printed: this machine's CPU (FDP_EXCPTN_ONLY) updates it
	 * only on an unmasked exception. */
	pr("%s-fcw %04x\n%s-fsw %04x\n%s-ftw %04x\n%s-fop %04x\n%s-fip %08x\n", p, e->fcw, p, e->fsw, p, e->ftw, p,
	   e->fop & 0x7ff, p, e->fip);
}

static void env_and_save(void)
{
	static struct x87env env, env2;
	static struct x87save sv, sv2;
	f80 v = {0xa1b2c3d4e5f60718ULL, 0xc123}, st[3];
	uint16_t cw = 0x0a72, rcw, rsw; /* up, 53 bits, PE OE ZE unmasked (nothing here raises them) */
	__asm__ volatile("fninit\n\tfldcw %[cw]\n\tfldt %[v]\n\tfldz\n\tfld1\n\tfnstenv %[e]\n\tfnstcw %[rcw]\n\tfninit"
			 : [e] "=m"(env), [rcw] "=m"(rcw) : [cw] "m"(cw), [v] "m"(v) : "memory", STCLOB);
	print_env("fnstenv", &env);
	pr("fnstenv-then-fcw %04x\n", rcw);
	env2 = env;
	env2.fcw = 0x0c7f;		      /* toward zero, 24 bits */
	env2.fsw = (uint16_t)(5 << 11 | 0x4100); /* TOP 5, C3 C0 */
	env2.ftw = 0x07ff;		      /* st5 valid, st6 zero, st7 empty... as stored, then changed */
	__asm__ volatile("fninit\n\tfldenv %[e]\n\tfnstcw %[rcw]\n\tfnstsw %[rsw]\n\tfninit"
			 : [rcw] "=m"(rcw), [rsw] "=m"(rsw) : [e] "m"(env2) : "memory", STCLOB);
	pr("fldenv-fcw %04x\nfldenv-fsw %04x\n", rcw, rsw);

	__asm__ volatile("fninit\n\tfldcw %[cw]\n\tfldt %[v]\n\tfldz\n\tfld1\n\tfnsave %[sv]\n\tfnstcw %[rcw]\n\tfnstsw %[rsw]"
			 : [sv] "=m"(sv), [rcw] "=m"(rcw), [rsw] "=m"(rsw) : [cw] "m"(cw), [v] "m"(v) : "memory", STCLOB);
	print_env("fnsave", &sv.env);
	for (int i = 0; i < 3; i++)
		pr("fnsave-st%d %04x:%016llx\n", i, sv.st[i].se, (unsigned long long)sv.st[i].m);
	pr("fnsave-then-fcw %04x\nfnsave-then-fsw %04x\n", rcw, rsw);
	sv2 = sv;
	sv2.env.fcw = 0x007f;
	sv2.st[0].m = 0xc000000000000000ULL, sv2.st[0].se = 0x4000; /* 3.0 */
	__asm__ volatile("fninit\n\tfrstor %[sv]\n\tfnstcw %[rcw]\n\tfnstsw %[rsw]\n\t"
			 "fstpt %[s0]\n\tfstpt %[s1]\n\tfstpt %[s2]\n\tfninit"
			 : [rcw] "=m"(rcw), [rsw] "=m"(rsw), [s0] "=m"(st[0]), [s1] "=m"(st[1]), [s2] "=m"(st[2])
			 : [sv] "m"(sv2) : "memory", STCLOB);
	pr("frstor-fcw %04x\nfrstor-fsw %04x\n", rcw, rsw);
	for (int i = 0; i < 3; i++)
		pr("frstor-st%d %04x:%016llx\n", i, st[i].se, (unsigned long long)st[i].m);
}

/* --- the signal frame --------------------------------------------------- */
static uint64_t hxmm[2][2] __attribute__((aligned(16)));

static void on_usr1(int sig, siginfo_t *si, void *ucv)
{
	uint16_t cw, sw;
	uint32_t mx;
	/* the handler's own registers first, before any code of its own */
	__asm__ volatile("fnstcw %[cw]\n\tfnstsw %[sw]\n\tstmxcsr %[mx]\n\tmovdqa %%xmm0, %[x0]\n\tmovdqa %%xmm1, %[x1]"
			 : [cw] "=m"(cw), [sw] "=m"(sw), [mx] "=m"(mx), [x0] "=m"(hxmm[0]), [x1] "=m"(hxmm[1]));
	(void)sig, (void)si;
	pr("handler-fcw %04x\nhandler-fsw %04x\nhandler-mxcsr %08x\n", cw, sw, mx);
	pr("handler-xmm0 %016llx:%016llx\nhandler-xmm1 %016llx:%016llx\n", (unsigned long long)hxmm[0][1],
	   (unsigned long long)hxmm[0][0], (unsigned long long)hxmm[1][1], (unsigned long long)hxmm[1][0]);
	ucontext_t *uc = ucv;
	struct fxarea *fx = (struct fxarea *)uc->uc_mcontext.fpregs;
	print_area("frame", fx, 2);
	fx->xmm[1][0] = 0x1122334455667788ULL, fx->xmm[1][1] = 0x99aabbccddeeff00ULL;
	fx->xmm[15][0] = ~0ULL, fx->xmm[15][1] = 0;
	fx->mxcsr = 0x7f80; /* toward zero */
	fx->fcw = 0x027f;   /* 53 bits */
	fx->st[0].m = 0x8000000000000000ULL, fx->st[0].se = 0x3fff; /* 1.0 */
}

static void signal_frame(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_usr1;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR1, &sa, 0);
	for (int i = 0; i < 16; i++)
		xin[i][0] = 0x1000000000000001ULL * (uint64_t)(i + 3), xin[i][1] = 0x0123456789abcdefULL + (uint64_t)i;
	f80 v = {0xfedcba9876543210ULL, 0x4005}, st[2];
	uint16_t cw = 0x0f7f, rcw, rsw; /* toward zero, 64 bits */
	uint32_t mx = 0x5fa0, rmx, defmx = 0x1f80; /* up, PE flag */
	long pid = getpid(), ret;
	__asm__ volatile("fninit\n\tfldcw %[cw]\n\tfldt %[v]\n\tfldl2t\n\tldmxcsr %[mx]\n\t" XMM16(XLOAD)
			 "syscall\n\t" XMM16(XSTORE) "fnstcw %[rcw]\n\tfnstsw %[rsw]\n\tstmxcsr %[rmx]\n\t"
			 "fstpt %[s0]\n\tfstpt %[s1]\n\tfninit\n\tldmxcsr %[dm]"
			 : "=a"(ret), [rcw] "=m"(rcw), [rsw] "=m"(rsw), [rmx] "=m"(rmx), [s0] "=m"(st[0]), [s1] "=m"(st[1])
			 : "a"(62L), "D"(pid), "S"((long)SIGUSR1), [cw] "m"(cw), [v] "m"(v), [mx] "m"(mx),
			   [dm] "m"(defmx), [xi] "r"(xin), [xo] "r"(xout)
			 : "rcx", "r11", "memory", XCLOB, STCLOB);
	pr("after-kill %lld\nafter-fcw %04x\nafter-fsw %04x\nafter-mxcsr %08x\n", (long long)ret, rcw, rsw, rmx);
	for (int i = 0; i < 2; i++)
		pr("after-st%d %04x:%016llx\n", i, st[i].se, (unsigned long long)st[i].m);
	for (int i = 0; i < 16; i++)
		pr("after-xmm%d %016llx:%016llx\n", i, (unsigned long long)xout[i][1], (unsigned long long)xout[i][0]);
}

int main(void)
{
	init_state();
	fxsave_roundtrip(0);
	fxsave_roundtrip(1);
	env_and_save();
	pr_flush();
	signal_frame();
	pr_flush();
	return 0;
}
