/* timerthread.c: POSIX timers with SIGEV_THREAD, which glibc and musl
   make on SIGEV_THREAD_ID: a helper thread of libc's takes the timer's
   signal and runs the function with sigev_value. An interval timer runs
   it 21 times, then a one-shot one once, and deleting both succeeds. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static int fired;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

static void run(union sigval v) {
	pthread_mutex_lock(&mu);
	fired += v.sival_int;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&mu);
}

static void wait_for(int n) {
	pthread_mutex_lock(&mu);
	while (fired < n) pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
}

int main(void) {
	struct sigevent ev = {0};
	ev.sigev_notify = SIGEV_THREAD;
	ev.sigev_notify_function = run;
	ev.sigev_value.sival_int = 1;
	timer_t every, once;
	printf("timer_create interval: %d\n", timer_create(CLOCK_MONOTONIC, &ev, &every));
	ev.sigev_value.sival_int = 100;
	printf("timer_create one-shot: %d\n", timer_create(CLOCK_REALTIME, &ev, &once));
	struct itimerspec it = {{0, 20000000}, {0, 20000000}};
	printf("timer_settime 20 ms, every 20 ms: %d\n", timer_settime(every, 0, &it, NULL));
	wait_for(21);
	printf("timer_delete interval: %d\n", timer_delete(every));
	printf("ran at least 21 times: %d\n", fired >= 21);
	int before = fired;
	struct itimerspec one = {{0, 0}, {0, 30000000}};
	printf("timer_settime one-shot 30 ms: %d\n", timer_settime(once, 0, &one, NULL));
	wait_for(before + 100);
	printf("one-shot ran: %d\n", fired - before == 100);
	printf("timer_delete one-shot: %d\n", timer_delete(once));
	return 0;
}
