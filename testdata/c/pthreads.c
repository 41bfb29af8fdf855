/*
 * pthreads.c: four workers, a mutex, a condition variable, a barrier and
 * joins (cmd/icount/threads_test.go). The output is the result of the work
 * and does not depend on how the threads interleave, so it equals the
 * native run's on any machine; under icount the count must also be the
 * same on every run.
 *
 * main starts the workers, which wait on a condition variable until main
 * says go. Each worker then hashes its share of a sequence (long enough to
 * run past several quanta), adding to a shared counter under the mutex as
 * it goes (the lock is contended: a thread can be switched out holding
 * it), waits at a barrier for the others, and then combines every worker's
 * hash (readable only once all are written) into its result. main waits
 * on the condition variable for the last worker's report, joins them all
 * and prints.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#define WORKERS 4
#define SHARE 60000 /* values each worker hashes */
#define STEP 1000   /* values between two updates of the shared counter */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static pthread_barrier_t barrier;
static int go;          /* main's signal to start, under mu */
static int reported;    /* workers done with their share, under mu */
static uint64_t shared; /* the sum of every value hashed, under mu */
static uint64_t hashes[WORKERS];
static uint64_t results[WORKERS];

static uint64_t mix(uint64_t h, uint64_t v) {
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdULL;
}

static void *worker(void *arg) {
	int id = (int)(intptr_t)arg;
	pthread_mutex_lock(&mu);
	while (!go)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);

	uint64_t h = (uint64_t)id + 1, sum = 0;
	for (uint64_t v = (uint64_t)id * SHARE; v < (uint64_t)(id + 1) * SHARE; v++) {
		h = mix(h, v * v);
		sum += v;
		if (v % STEP == STEP - 1) {
			pthread_mutex_lock(&mu);
			shared += sum;
			pthread_mutex_unlock(&mu);
			sum = 0;
		}
	}
	hashes[id] = h;
	pthread_mutex_lock(&mu);
	reported++;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);

	pthread_barrier_wait(&barrier);
	uint64_t r = 0;
	for (int i = 0; i < WORKERS; i++)
		r = mix(r, hashes[(id + i) % WORKERS]);
	results[id] = r;
	return (void *)(intptr_t)(id * 10);
}

int main(void) {
	pthread_t th[WORKERS];
	pthread_barrier_init(&barrier, NULL, WORKERS);
	for (int i = 0; i < WORKERS; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i) != 0) {
			puts("pthread_create failed");
			return 1;
		}
	pthread_mutex_lock(&mu);
	go = 1;
	pthread_cond_broadcast(&cv);
	while (reported < WORKERS)
		pthread_cond_wait(&cv, &mu);
	uint64_t total = shared;
	pthread_mutex_unlock(&mu);

	int codes = 0;
	for (int i = 0; i < WORKERS; i++) {
		void *ret;
		if (pthread_join(th[i], &ret) != 0) {
			puts("pthread_join failed");
			return 1;
		}
		codes += (int)(intptr_t)ret;
	}
	pthread_barrier_destroy(&barrier);
	printf("workers %d, sum %llu (want %llu), joined codes %d\n", WORKERS,
	       (unsigned long long)total,
	       (unsigned long long)WORKERS * SHARE * (WORKERS * SHARE - 1) / 2, codes);
	for (int i = 0; i < WORKERS; i++)
		printf("worker %d: hash %016llx result %016llx\n", i,
		       (unsigned long long)hashes[i], (unsigned long long)results[i]);
	return 0;
}
