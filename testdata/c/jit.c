/*
 * jit: machine code written into memory that is writable and executable
 * at once, as a JIT writes it, and patched in place while it runs.
 *
 * Page 0 holds 100 small functions, each returning its own number; page 1
 * holds 100 call sites, each a jump to one of them. The program calls the
 * sites, patches every site to another function and calls them again, then
 * patches and calls one site at a time, rewrites the functions' bodies in
 * place, runs a function that straddles the two pages (x86-64) while
 * patching the half in the second page, and has a second thread call a
 * site the first thread patches between calls. Each result is printed: a
 * run of stale code prints another sum. On arm64 each patch is followed by
 * __builtin___clear_cache, as the architecture asks.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#define N 100
#define PAGE 4096

static uint8_t *code;                      /* two pages, read-write-exec */
#define FN(i) (code + 32 * (i))            /* function i, in page 0 */
#define SITE(i) (code + PAGE + 16 * (i + 1)) /* call site i, in page 1 */

typedef int (*fn)(void);

static void flush(void *p, size_t n) { __builtin___clear_cache((char *)p, (char *)p + n); }

/* put_ret writes at p a function returning v. */
static void put_ret(uint8_t *p, uint32_t v) {
#if defined(__x86_64__)
	p[0] = 0xb8; /* mov $v, %eax; ret */
	memcpy(p + 1, &v, 4);
	p[5] = 0xc3;
#elif defined(__aarch64__)
	uint32_t insn[3] = {0x52800000 | (v & 0xffff) << 5, 0x72a00000 | (v >> 16) << 5, 0xd65f03c0};
	memcpy(p, insn, sizeof insn); /* movz w0, #lo; movk w0, #hi, lsl #16; ret */
#endif
	flush(p, 12);
}

/* put_jump writes at site a jump to target. */
static void put_jump(uint8_t *site, uint8_t *target) {
#if defined(__x86_64__)
	int32_t rel = (int32_t)(target - (site + 5));
	site[0] = 0xe9; /* jmp rel32 */
	memcpy(site + 1, &rel, 4);
#elif defined(__aarch64__)
	uint32_t insn = 0x14000000 | ((uint32_t)((target - site) >> 2) & 0x3ffffff); /* b target */
	memcpy(site, &insn, 4);
#endif
	flush(site, 8);
}

static int call(uint8_t *p) { return ((fn)(void *)p)(); }

static long call_sites(void) {
	long sum = 0;
	for (int i = 0; i < N; i++) sum += call(SITE(i));
	return sum;
}

static pthread_barrier_t turn;
static long thread_sum;

/* caller calls site 0 ten times, each after the main thread patched it. */
static void *caller(void *arg) {
	(void)arg;
	for (int k = 0; k < 10; k++) {
		pthread_barrier_wait(&turn); /* patched */
		thread_sum += call(SITE(0));
		pthread_barrier_wait(&turn); /* called */
	}
	return NULL;
}

int main(void) {
	code = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (int i = 0; i < N; i++) {
		put_ret(FN(i), 1000 + i);
		put_jump(SITE(i), FN(0));
	}
	printf("all to f0: %ld\n", call_sites());

	for (int i = 0; i < N; i++) put_jump(SITE(i), FN(i));
	printf("each to its own: %ld\n", call_sites());

	long sum = 0;
	for (int i = 0; i < N; i++) {
		put_jump(SITE(i), FN(N - 1 - i));
		sum += call(SITE(i));
		put_jump(SITE(i), FN((i * 37) % N));
		sum += call(SITE(i)) * (i + 1);
	}
	printf("patched one at a time: %ld\n", sum);

	for (int i = 0; i < N; i++) put_ret(FN(i), 5000 + 3 * i);
	printf("bodies rewritten: %ld\n", call_sites());

#if defined(__x86_64__)
	/* mov $v, %eax; ret at the end of page 0: the immediate's last bytes
	   and the ret lie in page 1. */
	uint8_t *straddle = code + PAGE - 3;
	sum = 0;
	for (uint32_t v = 0; v < 50; v++) {
		put_ret(straddle, 0x01010101u * v);
		sum += call(straddle);
	}
	printf("straddling two pages: %ld\n", sum);
#endif

	pthread_t t;
	pthread_barrier_init(&turn, NULL, 2);
	if (pthread_create(&t, NULL, caller, NULL) != 0) return 1;
	for (int k = 0; k < 10; k++) {
		put_jump(SITE(0), FN(k * 11));
		pthread_barrier_wait(&turn); /* patched */
		pthread_barrier_wait(&turn); /* called */
	}
	pthread_join(t, NULL);
	printf("patched for another thread: %ld\n", thread_sum);
	return 0;
}
