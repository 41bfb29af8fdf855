/*
 * sleeper: sleeps ten seconds in three ways and says how long it measured.
 *
 *   4 s with nanosleep, 3 s with sleep(), then clock_nanosleep with
 *   TIMER_ABSTIME until 3 s after the time it read; CLOCK_MONOTONIC is read
 *   before and after (and once for the absolute deadline).
 *
 * Under icount --fixed-clock the sleeps advance the virtual clock and
 * return at once: the run takes a few milliseconds, and with the default
 * clock (read k returns k seconds) it measures 12.000000 s: the 10 s slept
 * and two steps of the clock between its three reads.
 */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static double seconds(const struct timespec *ts) {
	return (double)ts->tv_sec + (double)ts->tv_nsec * 1e-9;
}

int main(void) {
	struct timespec start, deadline, end;
	clock_gettime(CLOCK_MONOTONIC, &start);

	struct timespec four = {4, 0};
	if (nanosleep(&four, NULL) != 0) return 1;
	if (sleep(3) != 0) return 2;

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += 3;
	if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, NULL) != 0) return 3;

	clock_gettime(CLOCK_MONOTONIC, &end);
	printf("slept %.6f s\n", seconds(&end) - seconds(&start));
	return seconds(&end) >= seconds(&deadline) ? 0 : 4;
}
