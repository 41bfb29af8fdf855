/*
 * spin.c: a thread spins on a volatile flag, with no system call and no
 * yield, until another thread sets it after some work; main spins in turn
 * on a second flag the spinner sets. Only preemption at the quantum lets
 * the worker run (cmd/icount/threads_test.go): icount must finish, print
 * the work's result and count the same on every run.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

static volatile int ready;  /* set by the worker when its work is done */
static volatile int seen;   /* set by the spinner when it saw ready */
static uint64_t result;

static void *spinner(void *arg) {
	(void)arg;
	while (!ready)
		;
	seen = 1;
	return NULL;
}

static void *worker(void *arg) {
	(void)arg;
	uint64_t h = 1469598103934665603ULL;
	for (uint64_t i = 0; i < 300000; i++)
		h = (h ^ (i & 0xff)) * 1099511628211ULL;
	result = h;
	ready = 1;
	return NULL;
}

int main(void) {
	pthread_t s, w;
	/* The spinner first: it runs before the worker gets a turn. */
	if (pthread_create(&s, NULL, spinner, NULL) != 0 || pthread_create(&w, NULL, worker, NULL) != 0) {
		puts("pthread_create failed");
		return 1;
	}
	while (!seen)
		;
	pthread_join(s, NULL);
	pthread_join(w, NULL);
	printf("spinner saw the flag; work %016llx\n", (unsigned long long)result);
	return 0;
}
