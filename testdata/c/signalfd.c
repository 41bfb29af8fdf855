/* signalfd.c: signalfd4 (and signalfd on x86-64) with ordinary and edge
   arguments; reads of signals sent by raise, kill, sigqueue, a POSIX
   timer and a child's exit; poll and epoll readiness. Every result and
   errno is printed, and each signalfd_siginfo's fields that are the same
   natively and under icount (a pid is printed as whether it is the one
   expected). */
#define _GNU_SOURCE
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "errname.h"

static long sfd(int fd, sigset_t *mask, size_t size, int flags) { return syscall(SYS_signalfd4, fd, mask, size, flags); }

/* rd reads up to n records and prints them. */
static void rd(const char *what, int fd, int n, pid_t pid) {
	struct signalfd_siginfo si[4];
	memset(si, 0xee, sizeof si);
	long r = read(fd, si, n * sizeof si[0]);
	printf("%s: %s %ld\n", what, err(r), r < 0 ? 0 : r / (long)sizeof si[0]);
	for (long i = 0; i < r / (long)sizeof si[0]; i++)
		printf("  signo %u errno %d code %d pid ok %d uid %u tid %u overrun %u status %d int %d ptr %#llx addr %#llx\n",
		       si[i].ssi_signo, si[i].ssi_errno, si[i].ssi_code, si[i].ssi_pid == (uint32_t)pid, si[i].ssi_uid,
		       si[i].ssi_tid, si[i].ssi_overrun, si[i].ssi_status, si[i].ssi_int, (unsigned long long)si[i].ssi_ptr,
		       (unsigned long long)si[i].ssi_addr);
}

int main(void) {
	pid_t self = getpid();
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	sigaddset(&mask, SIGUSR2);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGRTMIN);
	sigprocmask(SIG_BLOCK, &mask, NULL);

	printf("flags 1: %s\n", err(sfd(-1, &mask, 8, 1)));
	printf("size 4: %s\n", err(sfd(-1, &mask, 4, 0)));
	printf("bad mask: %s\n", err(sfd(-1, (void *)8, 8, 0)));
	printf("fd 77: %s\n", err(sfd(77, &mask, 8, 0)));
	printf("fd -2: %s\n", err(sfd(-2, &mask, 8, 0)));
	printf("fd of stdin: %s\n", err(sfd(0, &mask, 8, 0)));
	int fd = (int)sfd(-1, &mask, 8, SFD_NONBLOCK | SFD_CLOEXEC);
	printf("signalfd4 nonblock cloexec: %s\n", err(fd));
#ifdef SYS_signalfd
	int old = (int)syscall(SYS_signalfd, -1, &mask, 8);
	printf("signalfd: %s\n", err(old));
	close(old);
#else
	printf("signalfd: ok\n");
#endif

	rd("read, none pending", fd, 1, 0);
	char small[100];
	printf("read 100 bytes: %s\n", err(read(fd, small, sizeof small)));
	uint64_t one = 1;
	printf("write: %s\n", err(write(fd, &one, sizeof one)));
	struct pollfd pfd = {fd, POLLIN, 0};
	printf("poll, none pending: %d\n", poll(&pfd, 1, 0));

	raise(SIGUSR1);
	int ready = poll(&pfd, 1, 0);
	printf("poll after raise: %d revents %#x\n", ready, pfd.revents);
	rd("read after raise", fd, 1, self);
	kill(self, SIGUSR2);
	raise(SIGUSR1);
	rd("read two, room for four", fd, 4, self);
	union sigval v = {.sival_int = 42};
	sigqueue(self, SIGRTMIN, v);
	raise(SIGUSR1);
	rd("read one of two", fd, 1, self);
	rd("read the other", fd, 1, self);

	/* The set changes; a signal outside it stays pending. */
	sigset_t only2;
	sigemptyset(&only2);
	sigaddset(&only2, SIGUSR2);
	printf("change the set: %ld\n", sfd(fd, &only2, 8, 0) == fd ? 0L : -1L);
	raise(SIGUSR1);
	rd("read, SIGUSR1 outside the set", fd, 1, self);
	sigset_t pending;
	sigpending(&pending);
	printf("SIGUSR1 still pending: %d\n", sigismember(&pending, SIGUSR1));
	sfd(fd, &mask, 8, 0);
	rd("read with SIGUSR1 back in the set", fd, 1, self);

	/* A POSIX timer's signal, read by a blocking signalfd. */
	int bfd = (int)sfd(-1, &mask, 8, 0);
	struct sigevent ev = {0};
	ev.sigev_notify = SIGEV_SIGNAL;
	ev.sigev_signo = SIGUSR2;
	ev.sigev_value.sival_int = 0x5151;
	timer_t tm;
	timer_create(CLOCK_MONOTONIC, &ev, &tm);
	struct itimerspec it = {{0, 0}, {0, 30000000}};
	timer_settime(tm, 0, &it, NULL);
	rd("blocking read of a timer's signal", bfd, 1, 0);
	timer_delete(tm);

	/* epoll. */
	int ep = epoll_create1(0);
	struct epoll_event e = {.events = EPOLLIN, .data.u64 = 9};
	printf("epoll_ctl: %s\n", err(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e)));
	printf("epoll_wait, none pending: %d\n", epoll_wait(ep, &e, 1, 0));
	raise(SIGUSR2);
	long n = epoll_wait(ep, &e, 1, 1000);
	printf("epoll_wait after raise: %ld events %#x data %llu\n", n, e.events, (unsigned long long)e.data.u64);
	rd("read", fd, 1, self);
	printf("epoll_wait after the read: %d\n", epoll_wait(ep, &e, 1, 0));

	/* A child's exit. */
	fflush(stdout);
	pid_t child = fork();
	if (child == 0) _exit(7);
	rd("blocking read of SIGCHLD", bfd, 1, child);
	waitpid(child, NULL, 0);
	printf("done\n");
	return 0;
}
