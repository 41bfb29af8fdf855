/* timerfd.c: timerfd_create, timerfd_settime and timerfd_gettime, and the
   descriptor's read, write, poll and epoll, with ordinary and edge
   arguments; every result and errno is printed, of times only whether
   they lie in a range, and expiry counts that margins of tens of
   milliseconds keep the same natively. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "errname.h"

#define MS 1000000L

static long tset(int fd, int flags, long value, long interval, struct itimerspec *old) {
	struct itimerspec it = {{interval / 1000000000L, interval % 1000000000L}, {value / 1000000000L, value % 1000000000L}};
	return syscall(SYS_timerfd_settime, fd, flags, &it, old);
}
static long ns(struct timespec t) { return t.tv_sec * 1000000000L + t.tv_nsec; }

static void sleep_ns(long d) {
	struct timespec t = {d / 1000000000L, d % 1000000000L};
	while (nanosleep(&t, &t) < 0 && errno == EINTR) {
	}
}

static void rd(const char *what, int fd) {
	uint64_t n = 0;
	long r = read(fd, &n, sizeof n);
	printf("%s: %s %ld count %llu\n", what, err(r), r, (unsigned long long)n);
}

int main(void) {
	printf("create clock 99: %s\n", err(syscall(SYS_timerfd_create, 99, 0)));
	printf("create CLOCK_MONOTONIC_RAW: %s\n", err(syscall(SYS_timerfd_create, CLOCK_MONOTONIC_RAW, 0)));
	printf("create CLOCK_PROCESS_CPUTIME_ID: %s\n", err(syscall(SYS_timerfd_create, CLOCK_PROCESS_CPUTIME_ID, 0)));
	printf("create CLOCK_REALTIME_ALARM: %s\n", err(syscall(SYS_timerfd_create, CLOCK_REALTIME_ALARM, 0)));
	printf("create CLOCK_BOOTTIME_ALARM: %s\n", err(syscall(SYS_timerfd_create, CLOCK_BOOTTIME_ALARM, 0)));
	printf("create flags 1: %s\n", err(syscall(SYS_timerfd_create, CLOCK_MONOTONIC, 1)));
	printf("create flags O_RDWR: %s\n", err(syscall(SYS_timerfd_create, CLOCK_MONOTONIC, O_RDWR)));
	int fd = (int)syscall(SYS_timerfd_create, CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	printf("create monotonic nonblock cloexec: %s, FD_CLOEXEC %d, O_NONBLOCK %d\n", err(fd), fcntl(fd, F_GETFD) & FD_CLOEXEC,
	       !!(fcntl(fd, F_GETFL) & O_NONBLOCK));
	int bfd = (int)syscall(SYS_timerfd_create, CLOCK_BOOTTIME, 0);
	printf("create boottime: %s, FD_CLOEXEC %d\n", err(bfd), fcntl(bfd, F_GETFD) & FD_CLOEXEC);
	int rfd = (int)syscall(SYS_timerfd_create, CLOCK_REALTIME, 0);
	printf("create realtime: %s\n", err(rfd));

	struct itimerspec cur, old;
	rd("read unarmed", fd);
	uint32_t small;
	printf("read 4 bytes: %s\n", err(read(fd, &small, sizeof small)));
	uint64_t one = 1;
	printf("write: %s\n", err(write(fd, &one, sizeof one)));
	memset(&cur, 0xff, sizeof cur);
	long r = syscall(SYS_timerfd_gettime, fd, &cur);
	printf("gettime unarmed: %s %ld %ld\n", err(r), ns(cur.it_value), ns(cur.it_interval));
	int p[2];
	pipe(p);
	printf("settime bad fd: %s\n", err(tset(77, 0, MS, 0, NULL)));
	printf("settime on a pipe: %s\n", err(tset(p[0], 0, MS, 0, NULL)));
	printf("settime flags 4: %s\n", err(tset(fd, 4, MS, 0, NULL)));
	printf("settime NULL: %s\n", err(syscall(SYS_timerfd_settime, fd, 0, NULL, NULL)));
	struct itimerspec bad = {{0, 0}, {0, 1000000000L}};
	printf("settime nsec 1e9: %s\n", err(syscall(SYS_timerfd_settime, fd, 0, &bad, NULL)));
	printf("settime nsec 1e9, bad fd: %s\n", err(syscall(SYS_timerfd_settime, 77, 0, &bad, NULL)));
	printf("gettime bad fd: %s\n", err(syscall(SYS_timerfd_gettime, 77, &cur)));
	printf("gettime on a pipe: %s\n", err(syscall(SYS_timerfd_gettime, p[0], &cur)));
	printf("gettime bad pointer: %s\n", err(syscall(SYS_timerfd_gettime, fd, (void *)8)));

	/* One expiry: poll sees it, a read takes it. */
	printf("settime 50 ms: %s\n", err(tset(fd, 0, 50 * MS, 0, NULL)));
	syscall(SYS_timerfd_gettime, fd, &cur);
	printf("  left in (0, 50 ms]: %d\n", ns(cur.it_value) > 0 && ns(cur.it_value) <= 50 * MS);
	struct pollfd pfd = {fd, POLLIN, 0};
	printf("poll at once: %d\n", poll(&pfd, 1, 0));
	r = poll(&pfd, 1, 5000);
	printf("poll 5 s: %ld revents %#x\n", r, pfd.revents);
	rd("read", fd);
	rd("read again", fd);
	syscall(SYS_timerfd_gettime, fd, &cur);
	printf("gettime expired: %ld %ld\n", ns(cur.it_value), ns(cur.it_interval));

	/* An interval timer counts every expiry. */
	tset(fd, 0, 50 * MS, 50 * MS, NULL);
	sleep_ns(275 * MS);
	syscall(SYS_timerfd_gettime, fd, &cur);
	printf("interval: left in (0, 50 ms]: %d, interval %ld\n", ns(cur.it_value) > 0 && ns(cur.it_value) <= 50 * MS,
	       ns(cur.it_interval));
	rd("read after 275 ms", fd);
	memset(&old, 0xff, sizeof old);
	printf("settime 0, old: %s\n", err(tset(fd, 0, 0, 0, &old)));
	printf("  old left in (0, 50 ms]: %d, interval %ld\n", ns(old.it_value) > 0 && ns(old.it_value) <= 50 * MS,
	       ns(old.it_interval));
	tset(fd, 0, 10 * MS, 10 * MS, NULL);
	sleep_ns(55 * MS);
	tset(fd, 0, 0, 0, NULL);
	rd("settime again drops the count", fd);

	/* A blocking read waits for the expiry; absolute times. */
	tset(bfd, 0, 30 * MS, 0, NULL);
	rd("blocking read", bfd);
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	tset(bfd, TFD_TIMER_ABSTIME, ns(now) + 30 * MS, 0, NULL);
	rd("abstime boottime", bfd);
	clock_gettime(CLOCK_REALTIME, &now);
	printf("abstime realtime, cancel on set: %s\n", err(tset(rfd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, ns(now) + 30 * MS, 0, NULL)));
	rd("abstime realtime", rfd);
	tset(rfd, TFD_TIMER_ABSTIME, 1, 0, NULL);
	rd("abstime past", rfd);

	/* epoll. */
	int ep = epoll_create1(0);
	struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 0x77};
	printf("epoll_ctl add: %s\n", err(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev)));
	printf("epoll_wait at once: %d\n", epoll_wait(ep, &ev, 1, 0));
	tset(fd, 0, 30 * MS, 0, NULL);
	r = epoll_wait(ep, &ev, 1, 5000);
	printf("epoll_wait 5 s: %ld events %#x data %#llx\n", r, ev.events, (unsigned long long)ev.data.u64);
	rd("read", fd);

	/* A child shares it. */
	tset(fd, 0, 20 * MS, 0, NULL);
	fflush(stdout);
	pid_t child = fork();
	if (child == 0) {
		printf("child: poll: %d\n", poll(&pfd, 1, 5000));
		rd("child: read", fd);
		fflush(stdout);
		_exit(0);
	}
	waitpid(child, NULL, 0);
	rd("parent: read after the child", fd);
	close(fd);
	printf("closed: gettime %s\n", err(syscall(SYS_timerfd_gettime, fd, &cur)));
	printf("done\n");
	return 0;
}
