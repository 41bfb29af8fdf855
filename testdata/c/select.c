/* select.c: select (x86-64), pselect6 and ppoll made with raw system calls
   on pipes: readiness in each set, the errors (nfds, descriptors not open,
   bad pointers, bad timeouts), nfds cut to the descriptor table's size,
   the time left written back, and the signal mask pselect6 and ppoll
   hold while they wait. Every result and errno is printed, of times only
   whether they lie in a range. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "errname.h"

/* fd_sets of 1024 bits, as the kernel reads them: longs. */
typedef struct {
	uint64_t w[16];
} set_t;

static void set(set_t *s, int fd) { s->w[fd / 64] |= 1ULL << (fd % 64); }
static int isset(set_t *s, int fd) { return (s->w[fd / 64] >> (fd % 64)) & 1; }

static volatile sig_atomic_t handled;
static void on_sig(int sig) { handled = sig; }

static long pselect6(int n, set_t *r, set_t *w, set_t *e, struct timespec *ts, const sigset_t *mask, size_t len) {
	struct {
		const sigset_t *ss;
		size_t len;
	} pack = {mask, len};
	return syscall(SYS_pselect6, n, r, w, e, ts, mask || len ? &pack : NULL);
}

#ifdef SYS_select
static long sel(int n, set_t *r, set_t *w, set_t *e, struct timeval *tv) { return syscall(SYS_select, n, r, w, e, tv); }
#else
/* arm64 has no select: pselect6 stands in, with the timeval converted. */
static long sel(int n, set_t *r, set_t *w, set_t *e, struct timeval *tv) {
	if (!tv) return pselect6(n, r, w, e, NULL, NULL, 0);
	if ((uintptr_t)tv < 4096) return pselect6(n, r, w, e, (void *)tv, NULL, 0);
	struct timespec ts = {tv->tv_sec + tv->tv_usec / 1000000, (tv->tv_usec % 1000000) * 1000};
	if (tv->tv_usec < 0) ts.tv_nsec = -1;
	long ret = pselect6(n, r, w, e, &ts, NULL, 0);
	if (ts.tv_nsec >= 0) tv->tv_sec = ts.tv_sec, tv->tv_usec = ts.tv_nsec / 1000;
	return ret;
}
#endif

static void show(const char *what, long r, set_t *rd, set_t *wr, int fd0, int fd1) {
	printf("%s: %s %ld", what, err(r), r < 0 ? 0 : r);
	if (r >= 0 && rd) printf(" read[%d]=%d read[%d]=%d", fd0, isset(rd, fd0), fd1, isset(rd, fd1));
	if (r >= 0 && wr) printf(" write[%d]=%d write[%d]=%d", fd0, isset(wr, fd0), fd1, isset(wr, fd1));
	printf("\n");
}

int main(void) {
	int p[2];
	pipe(p);
	set_t r, w, e;
	struct timeval tv;
	struct timespec ts;

#define RESET() (memset(&r, 0, sizeof r), memset(&w, 0, sizeof w), memset(&e, 0, sizeof e))
	/* Errors. */
	RESET();
	tv = (struct timeval){0, 0};
	show("nfds -1", sel(-1, &r, NULL, NULL, &tv), NULL, NULL, 0, 0);
	set(&r, 50);
	show("bit of closed fd 50", sel(64, &r, NULL, NULL, &tv), NULL, NULL, 0, 0);
	show("bit of closed fd 50, nfds 50", sel(50, &r, NULL, NULL, &tv), NULL, NULL, 0, 0);
	show("bad read set", sel(8, (void *)8, NULL, NULL, &tv), NULL, NULL, 0, 0);
	show("bad timeout pointer", sel(8, NULL, NULL, NULL, (void *)8), NULL, NULL, 0, 0);
	tv = (struct timeval){0, -1};
	show("timeout usec -1", sel(8, NULL, NULL, NULL, &tv), NULL, NULL, 0, 0);
	tv = (struct timeval){-1, 0};
	show("timeout sec -1", sel(8, NULL, NULL, NULL, &tv), NULL, NULL, 0, 0);
	tv = (struct timeval){0, 1500};
	show("timeout 1.5 ms, nothing asked", sel(0, NULL, NULL, NULL, &tv), NULL, NULL, 0, 0);
	printf("  left %ld %ld\n", (long)tv.tv_sec, (long)tv.tv_usec);

	/* Readiness. */
	RESET();
	set(&r, p[0]);
	tv = (struct timeval){0, 0};
	show("empty pipe, read", sel(p[1] + 1, &r, NULL, NULL, &tv), &r, NULL, p[0], p[1]);
	write(p[1], "x", 1);
	RESET();
	set(&r, p[0]);
	show("a byte in, read", sel(p[1] + 1, &r, NULL, NULL, NULL), &r, NULL, p[0], p[1]);
	RESET();
	set(&r, p[0]), set(&r, p[1]), set(&w, p[0]), set(&w, p[1]), set(&e, p[0]), set(&e, p[1]);
	show("both ends in every set", sel(p[1] + 1, &r, &w, &e, NULL), &r, &w, p[0], p[1]);
	printf("  except %d %d\n", isset(&e, p[0]), isset(&e, p[1]));
	RESET();
	set(&r, p[0]);
	tv = (struct timeval){5, 0};
	show("ready, timeout 5 s", sel(p[1] + 1, &r, NULL, NULL, &tv), &r, NULL, p[0], p[1]);
	printf("  left in (4 s, 5 s]: %d\n", tv.tv_sec == 4 || (tv.tv_sec == 5 && tv.tv_usec == 0));
	char c;
	read(p[0], &c, 1);
	RESET();
	set(&r, p[0]);
	tv = (struct timeval){0, 50000};
	show("empty, timeout 50 ms", sel(p[1] + 1, &r, NULL, NULL, &tv), &r, NULL, p[0], p[1]);
	printf("  left %ld %ld\n", (long)tv.tv_sec, (long)tv.tv_usec);

	/* Descriptors past 63 grow the table. (How big it is at the start
	   depends on the parent natively: bits past it are not tried here.) */
	write(p[1], "y", 1);
	dup2(p[0], 100);
	RESET();
	set(&r, 100);
	show("fd 100 after dup2", sel(101, &r, NULL, NULL, NULL), &r, NULL, 100, p[0]);
	close(100);
	RESET();
	set(&r, 100);
	tv = (struct timeval){0, 0};
	show("fd 100 closed", sel(1024, &r, NULL, NULL, &tv), NULL, NULL, 0, 0);
	read(p[0], &c, 1);

	/* The other end closed. */
	int q[2];
	pipe(q);
	close(q[0]);
	RESET();
	set(&w, q[1]);
	show("write end, reader gone", sel(q[1] + 1, NULL, &w, NULL, NULL), NULL, &w, q[1], q[0]);
	close(q[1]);
	pipe(q);
	close(q[1]);
	RESET();
	set(&r, q[0]);
	show("read end, writer gone", sel(q[0] + 1, &r, NULL, NULL, NULL), &r, NULL, q[0], q[1]);
	close(q[0]);

	/* pselect6: its errors, its time left, its mask. */
	ts = (struct timespec){0, 1000000000};
	show("pselect6 nsec 1e9", pselect6(8, NULL, NULL, NULL, &ts, NULL, 0), NULL, NULL, 0, 0);
	ts = (struct timespec){0, 0};
	sigset_t m;
	sigemptyset(&m);
	show("pselect6 mask size 4", pselect6(8, NULL, NULL, NULL, &ts, &m, 4), NULL, NULL, 0, 0);
	show("pselect6 bad mask", pselect6(8, NULL, NULL, NULL, &ts, (void *)8, 8), NULL, NULL, 0, 0);
	show("pselect6 bad mask pack", (long)syscall(SYS_pselect6, 8, NULL, NULL, NULL, &ts, (void *)8), NULL, NULL, 0, 0);
	show("pselect6 mask size 4, no mask", pselect6(8, NULL, NULL, NULL, &ts, NULL, 4), NULL, NULL, 0, 0);
	RESET();
	set(&r, p[0]);
	ts = (struct timespec){0, 30000000};
	show("pselect6 empty, 30 ms", pselect6(p[1] + 1, &r, NULL, NULL, &ts, NULL, 0), &r, NULL, p[0], p[1]);
	printf("  left %ld %ld\n", (long)ts.tv_sec, (long)ts.tv_nsec);

	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sig;
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	sigset_t usr1, old, pending;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	raise(SIGUSR1);
	sigemptyset(&m);
	RESET();
	set(&r, p[0]);
	ts = (struct timespec){5, 0};
	handled = 0;
	show("pselect6 mask lets a pending SIGUSR1 in", pselect6(p[1] + 1, &r, NULL, NULL, &ts, &m, 8), NULL, NULL, 0, 0);
	sigprocmask(SIG_BLOCK, NULL, &old);
	printf("  handled %d, SIGUSR1 blocked again %d, left in (4 s, 5 s]: %d\n", (int)handled, sigismember(&old, SIGUSR1),
	       ts.tv_sec == 4 || (ts.tv_sec == 5 && ts.tv_nsec == 0));
	raise(SIGUSR1);
	write(p[1], "z", 1);
	RESET();
	set(&r, p[0]);
	handled = 0;
	show("pselect6 mask, SIGUSR1 pending, fd ready", pselect6(p[1] + 1, &r, NULL, NULL, NULL, &m, 8), &r, NULL, p[0], p[1]);
	sigpending(&pending);
	printf("  handled %d, still pending %d\n", (int)handled, sigismember(&pending, SIGUSR1));
	read(p[0], &c, 1);
	RESET();
	set(&r, p[0]);
	ts = (struct timespec){0, 0};
	show("pselect6 mask, SIGUSR1 pending, timeout 0", pselect6(p[1] + 1, &r, NULL, NULL, &ts, &m, 8), &r, NULL, p[0], p[1]);
	sigpending(&pending);
	printf("  handled %d, still pending %d\n", (int)handled, sigismember(&pending, SIGUSR1));

	/* ppoll: the same mask, and its time left. */
	raise(SIGUSR1);
	handled = 0;
	struct pollfd pfd = {p[0], POLLIN, 0};
	ts = (struct timespec){5, 0};
	long rr = syscall(SYS_ppoll, &pfd, 1, &ts, &m, 8);
	sigprocmask(SIG_BLOCK, NULL, &old);
	printf("ppoll mask lets SIGUSR1 in: %s; handled %d, blocked again %d, left in (4 s, 5 s]: %d\n", err(rr), (int)handled,
	       sigismember(&old, SIGUSR1), ts.tv_sec == 4 || (ts.tv_sec == 5 && ts.tv_nsec == 0));
	/* epoll_pwait: the same mask. */
	int ep = epoll_create1(0);
	struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 1};
	epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev);
	raise(SIGUSR1);
	handled = 0;
	rr = syscall(SYS_epoll_pwait, ep, &ev, 1, 5000, &m, 8);
	sigprocmask(SIG_BLOCK, NULL, &old);
	printf("epoll_pwait mask lets SIGUSR1 in: %s; handled %d, blocked again %d\n", err(rr), (int)handled,
	       sigismember(&old, SIGUSR1));
	raise(SIGUSR1);
	handled = 0;
	rr = syscall(SYS_epoll_pwait, ep, &ev, 1, 0, &m, 8);
	sigpending(&pending);
	printf("epoll_pwait mask, timeout 0: %s %ld; handled %d, still pending %d\n", err(rr), rr, (int)handled,
	       sigismember(&pending, SIGUSR1));
	printf("epoll_pwait mask size 4: %s\n", err(syscall(SYS_epoll_pwait, ep, &ev, 1, 0, &m, 4)));
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL); /* the pending SIGUSR1 is handled */
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	handled = 0;

	ts = (struct timespec){0, 30000000};
	rr = syscall(SYS_ppoll, &pfd, 1, &ts, NULL, 8);
	printf("ppoll empty, 30 ms: %s %ld, left %ld %ld\n", err(rr), rr, (long)ts.tv_sec, (long)ts.tv_nsec);
	printf("ppoll mask size 4: %s\n", err(syscall(SYS_ppoll, &pfd, 1, &ts, &m, 4)));

	/* A timer's signal cuts a wait short: EINTR, the time left written. */
	struct itimerval it = {{0, 0}, {0, 50000}};
	setitimer(ITIMER_REAL, &it, NULL);
	RESET();
	set(&r, p[0]);
	tv = (struct timeval){5, 0};
	handled = 0;
	show("select cut by SIGALRM", sel(p[1] + 1, &r, NULL, NULL, &tv), NULL, NULL, 0, 0);
	printf("  handled %d, left in (4 s, 5 s): %d\n", (int)handled, tv.tv_sec == 4);
	printf("done\n");
	return 0;
}
