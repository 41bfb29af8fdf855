/*
 * calibrate: a self-calibrating benchmark in the CoreMark style, the kind of
 * program whose instruction count depends on the clock unless icount pins
 * it (icount run --fixed-clock).
 *
 *   calibrate [CALIBRATE_SECONDS [WINDOW_SECONDS]]     (defaults 1 and 10)
 *
 * Calibration: run the workload for 10, 100, 1000, ... iterations, timing
 * each run with clock_gettime(CLOCK_MONOTONIC), until a run takes at least
 * CALIBRATE_SECONDS. From that run's time derive the iteration count of the
 * timed window, sized to take about WINDOW_SECONDS more (CoreMark's
 * iterations * (1 + 10 / seconds)). Then the timed window: gettimeofday,
 * the CPU's counter (rdtsc on x86-64, CNTVCT_EL0 on arm64) and
 * clock_gettime are read before and after the workload. It prints the
 * iteration counts, the measured times and a score (iterations per second
 * of the window), and the workload's checksum.
 *
 * Under icount's fixed clock (defaults: read k returns k seconds) the first
 * calibration run measures one second, so the program settles on 10
 * calibration iterations and a window of 10 * (1 + 10/1) = 110 iterations
 * on every run, whatever the machine: its instruction count is then the
 * work of 120 iterations plus a fixed overhead.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

/* The CPU's counter, read with the instruction a program would use. */
static uint64_t read_counter(void) {
#if defined(__x86_64__)
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
#elif defined(__aarch64__)
	uint64_t v;
	__asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
#else
	return 0;
#endif
}

static double monotonic(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- the workload: a little of several kinds of integer work ------------ */

#define N 48

/* FNV-1a over 32-bit words. */
static uint32_t fnv(uint32_t h, uint32_t v) {
	for (int i = 0; i < 4; i++) {
		h ^= (v >> (8 * i)) & 0xff;
		h *= 16777619u;
	}
	return h;
}

/* A xorshift generator: the same inputs on every run. */
static uint32_t xs(uint32_t *s) {
	uint32_t x = *s;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *s = x;
}

/* Insertion sort: data-dependent branches and memory moves. */
static void isort(int32_t *a, int n) {
	for (int i = 1; i < n; i++) {
		int32_t v = a[i];
		int j = i - 1;
		while (j >= 0 && a[j] > v) {
			a[j + 1] = a[j];
			j--;
		}
		a[j + 1] = v;
	}
}

/* Integer square root by Newton's method. */
static uint32_t isqrt(uint32_t v) {
	if (v < 2) return v;
	uint32_t x = v, y = (x + 1) / 2;
	while (y < x) {
		x = y;
		y = (x + v / x) / 2;
	}
	return x;
}

/* Run-length scan of a byte string: a small state machine. */
static uint32_t runs(const uint8_t *s, int n) {
	uint32_t count = 0, longest = 0, cur = 0;
	for (int i = 0; i < n; i++) {
		if (i > 0 && s[i] == s[i - 1]) {
			cur++;
		} else {
			count++;
			cur = 1;
		}
		if (cur > longest) longest = cur;
	}
	return count << 8 | longest;
}

static uint32_t iteration(uint32_t seed) {
	int32_t a[N];
	uint8_t s[4 * N];
	uint32_t st = seed | 1, h = 2166136261u;
	for (int i = 0; i < N; i++) a[i] = (int32_t)(xs(&st) % 1000) - 500;
	isort(a, N);
	for (int i = 0; i < N; i++) h = fnv(h, (uint32_t)a[i] + isqrt((uint32_t)(a[i] + 500) * 977u));
	for (int i = 0; i < 4 * N; i++) s[i] = (uint8_t)(xs(&st) % 3);
	return fnv(h, runs(s, 4 * N));
}

static uint32_t workload(uint64_t iterations) {
	uint32_t sum = 0;
	for (uint64_t i = 0; i < iterations; i++) sum = fnv(sum, iteration((uint32_t)i * 2654435761u));
	return sum;
}

int main(int argc, char **argv) {
	double target = argc > 1 ? atof(argv[1]) : 1.0;
	double window = argc > 2 ? atof(argv[2]) : 10.0;

	/* Calibrate: ten times more work until a run takes `target` seconds.
	 * The cap keeps a clock that never moves from looping forever. */
	uint64_t cal = 1;
	double secs = 0;
	uint32_t check = 0;
	while (secs < target && cal < 100000000) {
		cal *= 10;
		double t0 = monotonic();
		check ^= workload(cal);
		secs = monotonic() - t0;
	}
	double per = secs > 0 ? secs : 1e-9;
	uint64_t iterations = cal * (1 + (uint64_t)(window / per));

	/* The timed window. */
	struct timeval tv0, tv1;
	gettimeofday(&tv0, NULL);
	uint64_t c0 = read_counter();
	double t0 = monotonic();
	check ^= workload(iterations);
	double t1 = monotonic();
	uint64_t c1 = read_counter();
	gettimeofday(&tv1, NULL);

	double elapsed = t1 - t0;
	double wall = (double)(tv1.tv_sec - tv0.tv_sec) + (double)(tv1.tv_usec - tv0.tv_usec) * 1e-6;
	printf("calibration: %llu iterations in %.6f s\n", (unsigned long long)cal, secs);
	printf("iterations: %llu\n", (unsigned long long)iterations);
	printf("time: %.6f s (gettimeofday %.6f s, %llu counter ticks)\n", elapsed, wall,
	       (unsigned long long)(c1 - c0));
	printf("score: %.2f iterations/s\n", elapsed > 0 ? (double)iterations / elapsed : 0.0);
	printf("checksum: 0x%08x\n", check);
	return 0;
}
