/* threads20k.c: creates and joins 20,000 threads one after another, each
 * returning its index; prints the sum (199990000). make bench times it
 * under icount (issue 14: under 3 s), TestManyThreadsInTurn checks it. */
#include <pthread.h>
#include <stdio.h>

static void *echo(void *arg) { return arg; }

int main(void) {
	long sum = 0;
	for (long i = 0; i < 20000; i++) {
		pthread_t t;
		void *r;
		if (pthread_create(&t, 0, echo, (void *)i) != 0 || pthread_join(t, &r) != 0) {
			printf("thread %ld failed\n", i);
			return 1;
		}
		sum += (long)r;
	}
	printf("%ld\n", sum);
	return 0;
}
