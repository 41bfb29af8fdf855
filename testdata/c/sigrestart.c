/* sigrestart.c: a signal reaches a thread blocked in read() on an empty
   pipe. With SA_RESTART the read starts again after the handler and
   returns the data written later; without it the read fails with EINTR.
   The main thread sleeps to let the reader block first (natively 50 ms is
   plenty; under icount the sleep ends when every other thread waits). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int fds[2];
static volatile sig_atomic_t handled;

static void on_usr1(int sig) { (void)sig; handled++; }

static void *reader(void *arg) {
	(void)arg;
	char buf[16] = {0};
	ssize_t n = read(fds[0], buf, sizeof buf - 1);
	if (n < 0) printf("read failed: %s\n", errno == EINTR ? "EINTR" : strerror(errno));
	else printf("read returned %zd: %s\n", n, buf);
	return NULL;
}

static void pause_ms(long ms) {
	struct timespec ts = {0, ms * 1000000};
	nanosleep(&ts, NULL);
}

static void round_with(int flags, const char *what) {
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sa.sa_flags = flags;
	sigaction(SIGUSR1, &sa, NULL);
	handled = 0;
	pthread_t t;
	pthread_create(&t, NULL, reader, NULL);
	pause_ms(50);
	pthread_kill(t, SIGUSR1);
	pause_ms(50);
	if (write(fds[1], "hello", 5) != 5) return;
	pthread_join(t, NULL);
	printf("%s: handler ran %d time(s)\n", what, (int)handled);
	/* Drain what the failed read left. */
	if (!(flags & SA_RESTART)) {
		char buf[8];
		printf("left in the pipe: %zd bytes\n", read(fds[0], buf, sizeof buf));
	}
}

int main(void) {
	if (pipe(fds) != 0) return 1;
	round_with(SA_RESTART, "SA_RESTART");
	round_with(0, "no SA_RESTART");
	return 0;
}
