/*
 * deadlock.c: two threads lock two mutexes in opposite order, with a
 * barrier in between so that each holds one when it asks for the other,
 * while main joins the first: every thread waits, and icount must end the
 * run with exit status 122 and a listing of each thread's wait, not hang
 * (cmd/icount/threads_test.go). Natively the program hangs.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t both;

static void *take(pthread_mutex_t *first, pthread_mutex_t *second) {
	pthread_mutex_lock(first);
	pthread_barrier_wait(&both);
	pthread_mutex_lock(second); /* held by the other thread: waits forever */
	pthread_mutex_unlock(second);
	pthread_mutex_unlock(first);
	return NULL;
}

static void *ab(void *arg) {
	(void)arg;
	return take(&a, &b);
}

static void *ba(void *arg) {
	(void)arg;
	return take(&b, &a);
}

int main(void) {
	pthread_t t1, t2;
	pthread_barrier_init(&both, NULL, 2);
	puts("two threads take two locks in opposite order");
	fflush(stdout);
	if (pthread_create(&t1, NULL, ab, NULL) != 0 || pthread_create(&t2, NULL, ba, NULL) != 0) {
		puts("pthread_create failed");
		return 1;
	}
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	puts("no deadlock");
	return 0;
}
