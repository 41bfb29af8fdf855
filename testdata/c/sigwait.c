/* sigwait.c: signals taken without a handler (sigpending, sigwait,
   sigtimedwait with a timeout), a handler awaited with sigsuspend, whose
   mask holds only while it waits, and a signal sent to the process while
   every thread blocks it, taken by the thread that unblocks it. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static pthread_t main_thread;
static volatile sig_atomic_t got;

static void on_usr1(int sig) { got = sig; }

static volatile sig_atomic_t handled_by_worker;
static pthread_t worker_thread;

static void on_usr2(int sig) {
	(void)sig;
	handled_by_worker = pthread_equal(pthread_self(), worker_thread);
}

/* unblock_usr2 runs with SIGUSR2 blocked (inherited), waits for main to
   send it to the process, then unblocks it: the handler runs here. */
static volatile int sent;
static void *unblock_usr2(void *arg) {
	(void)arg;
	while (!sent) {
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
	sigset_t usr2;
	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	pthread_sigmask(SIG_UNBLOCK, &usr2, NULL);
	return NULL;
}

static void *send_usr2(void *arg) {
	(void)arg;
	pthread_kill(main_thread, SIGUSR2);
	return NULL;
}

static void *send_usr1_later(void *arg) {
	(void)arg;
	struct timespec ts = {0, 20 * 1000000};
	nanosleep(&ts, NULL);
	pthread_kill(main_thread, SIGUSR1);
	return NULL;
}

int main(void) {
	main_thread = pthread_self();
	sigset_t both, pending, usr2, now;
	sigemptyset(&both);
	sigaddset(&both, SIGUSR1);
	sigaddset(&both, SIGUSR2);
	sigprocmask(SIG_BLOCK, &both, NULL);

	pthread_t t;
	pthread_create(&t, NULL, send_usr2, NULL);
	pthread_join(t, NULL);
	sigpending(&pending);
	printf("pending: SIGUSR1 %d, SIGUSR2 %d\n", sigismember(&pending, SIGUSR1), sigismember(&pending, SIGUSR2));

	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	int sig = 0;
	sigwait(&usr2, &sig);
	printf("sigwait took signal %d (SIGUSR2 is %d)\n", sig, SIGUSR2);
	struct timespec ten_ms = {0, 10 * 1000000};
	int r = sigtimedwait(&usr2, NULL, &ten_ms);
	printf("sigtimedwait with none pending: %d, %s\n", r, r < 0 && errno == EAGAIN ? "EAGAIN" : "?");

	struct sigaction sa = {0};
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	pthread_create(&t, NULL, send_usr1_later, NULL);
	sigset_t none;
	sigemptyset(&none);
	r = sigsuspend(&none);
	printf("sigsuspend: %d, %s, handler got %d\n", r, r < 0 && errno == EINTR ? "EINTR" : "?", (int)got);
	pthread_join(t, NULL);
	sigprocmask(SIG_BLOCK, NULL, &now);
	printf("mask after: SIGUSR1 %d, SIGUSR2 %d\n", sigismember(&now, SIGUSR1), sigismember(&now, SIGUSR2));

	sa.sa_handler = on_usr2;
	sigaction(SIGUSR2, &sa, NULL);
	pthread_create(&worker_thread, NULL, unblock_usr2, NULL);
	kill(getpid(), SIGUSR2); /* every thread blocks it */
	sent = 1;
	pthread_join(worker_thread, NULL);
	sigpending(&pending);
	printf("SIGUSR2 sent to the process: handled by the thread that unblocked it %d, still pending %d\n",
	       (int)handled_by_worker, sigismember(&pending, SIGUSR2));
	return 0;
}
