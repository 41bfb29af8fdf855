/* napper.c: a thread sleeps 100 s while the main thread waits to join it.
   In host time (no --fixed-clock) icount sleeps while every thread waits:
   --timeout still ends the run in time, with its Profile. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static void *nap(void *arg) {
	(void)arg;
	sleep(100);
	return NULL;
}

int main(void) {
	pthread_t t;
	pthread_create(&t, NULL, nap, NULL);
	pthread_join(t, NULL);
	puts("woke after 100 s");
	return 0;
}
