/* EFAULT and short counts as Linux gives them: a read or write whose
 * buffer runs from mapped into unmapped memory moves the bytes up to the
 * fault and returns their count (EFAULT only when none moved), and the
 * pointer arguments of the emulated calls fault where Linux's do and not
 * where Linux accepts NULL. cmd/icount/edges_test.go compares the output
 * natively (or under qemu-aarch64) and under icount; it runs in an empty
 * directory and prints each call and its result, a number or the errno's
 * name.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096
#define FUTEX_WAIT_PRIVATE 128
#define FUTEX_WAKE 1
#define FUTEX_WAKE_PRIVATE 129
/* BAD is an address no program maps; KERNEL one above user space. */
#define BAD ((void *)0x1000)
#define KERNEL ((void *)0xffff800000000000UL)

static const char *ename(int e)
{
	switch (e) {
	case EFAULT: return "EFAULT";
	case EINVAL: return "EINVAL";
	case EBADF: return "EBADF";
	case ENOENT: return "ENOENT";
	case ENOTTY: return "ENOTTY";
	case ECHILD: return "ECHILD";
	case EAGAIN: return "EAGAIN";
	case ERANGE: return "ERANGE";
	case ENOSYS: return "ENOSYS";
	case ESPIPE: return "ESPIPE";
	default: return strerror(e);
	}
}

static void show(const char *what, long r)
{
	if (r < 0)
		printf("%s: %s\n", what, ename(errno));
	else
		printf("%s: %ld\n", what, r);
}

#define CALL(what, expr) do { errno = 0; show(what, (long)(expr)); } while (0)

/* edge is 100 bytes before the end of a mapped page whose next page is
 * unmapped; gone is an unmapped page. */
static char *edge, *gone;

static long pos(int fd) { return lseek(fd, 0, SEEK_CUR); }

static void transfers(void)
{
	char data[1000];
	memset(data, 'x', sizeof data);
	int fd = open("file", O_RDWR | O_CREAT | O_TRUNC, 0644);
	CALL("write 1000", write(fd, data, sizeof data));
	lseek(fd, 0, SEEK_SET);
	CALL("read into a buffer 100 bytes before a hole", read(fd, edge, 1000));
	CALL("  offset", pos(fd));
	CALL("read into a hole", read(fd, gone, 1000));
	CALL("  offset", pos(fd));
	CALL("read 0 bytes into a hole", read(fd, gone, 0));
	CALL("pread 100 bytes before a hole", pread(fd, edge, 1000, 10));
	CALL("pread into a hole", pread(fd, gone, 1000, 10));
	memset(edge, 'y', 100);
	lseek(fd, 0, SEEK_SET);
	CALL("write from 100 bytes before a hole", write(fd, edge, 1000));
	CALL("  offset", pos(fd));
	CALL("write from a hole", write(fd, gone, 1000));
	CALL("write 0 bytes from a hole", write(fd, gone, 0));
	CALL("pwrite from 100 bytes before a hole", pwrite(fd, edge, 1000, 500));
	CALL("pwrite from a hole", pwrite(fd, gone, 1000, 500));
	struct stat st;
	fstat(fd, &st);
	printf("  size %ld\n", (long)st.st_size);

	char head[50];
	struct iovec iov[3] = {{head, sizeof head}, {edge, 1000}, {data, 10}};
	lseek(fd, 0, SEEK_SET);
	CALL("readv: 50 bytes, then 1000 from 100 before a hole", readv(fd, iov, 3));
	CALL("  offset", pos(fd));
	struct iovec holev[2] = {{head, sizeof head}, {gone, 1000}};
	lseek(fd, 0, SEEK_SET);
	CALL("readv: 50 bytes, then a hole", readv(fd, holev, 2));
	CALL("readv: a hole first", readv(fd, holev + 1, 1));
	CALL("readv: a bad vector", readv(fd, BAD, 1));
	struct iovec neg[2] = {{head, sizeof head}, {head, (size_t)-1}};
	CALL("readv: a negative length", readv(fd, neg, 2));
	struct iovec kern[2] = {{head, sizeof head}, {KERNEL, 10}};
	CALL("readv: past user space", readv(fd, kern, 2));
	CALL("writev: a negative length", writev(fd, neg, 2));
	CALL("writev: past user space", writev(fd, kern, 2));
	CALL("readv: 1025 elements", syscall(SYS_readv, fd, iov, 1025));
	CALL("readv: 0 elements", readv(fd, iov, 0));
	lseek(fd, 0, SEEK_SET);
	CALL("writev: 50 bytes, then 1000 from 100 before a hole", writev(fd, iov, 3));
	CALL("  offset", pos(fd));
	CALL("writev: 50 bytes, then a hole", writev(fd, holev, 2));
	CALL("writev: a hole first", writev(fd, holev + 1, 1));
	CALL("writev: a bad vector", writev(fd, BAD, 1));
	close(fd);
}

static void pointers(void)
{
	struct timespec ts;
	struct rlimit rl;
	struct stat st;
	CALL("futex WAKE at an unmapped address", syscall(SYS_futex, BAD, FUTEX_WAKE, 1, 0, 0, 0));
	CALL("futex WAKE_PRIVATE at an unmapped address", syscall(SYS_futex, BAD, FUTEX_WAKE_PRIVATE, 1, 0, 0, 0));
	CALL("futex WAKE_PRIVATE above user space", syscall(SYS_futex, KERNEL, FUTEX_WAKE_PRIVATE, 1, 0, 0, 0));
	CALL("futex WAKE misaligned", syscall(SYS_futex, (char *)&rl + 1, FUTEX_WAKE, 1, 0, 0, 0));
	CALL("futex WAIT at an unmapped address", syscall(SYS_futex, BAD, FUTEX_WAIT_PRIVATE, 0, 0, 0, 0));
	CALL("getrlimit NULL", syscall(SYS_getrlimit, RLIMIT_NOFILE, NULL));
	CALL("getrlimit bad", syscall(SYS_getrlimit, RLIMIT_NOFILE, BAD));
	CALL("getrlimit resource 99", syscall(SYS_getrlimit, 99, &rl));
	CALL("setrlimit bad", syscall(SYS_setrlimit, RLIMIT_NOFILE, BAD));
	syscall(SYS_getrlimit, RLIMIT_CORE, &rl);
	rl.rlim_cur = 1;
	rl.rlim_max = 0;
	CALL("setrlimit cur above max", syscall(SYS_setrlimit, RLIMIT_CORE, &rl));
	CALL("prlimit64 NULL, NULL", syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, NULL));
	CALL("prlimit64 bad new", syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, BAD, NULL));
	CALL("prlimit64 bad old", syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, BAD));
	CALL("prlimit64 resource 99", syscall(SYS_prlimit64, 0, 99, NULL, &rl));
	CALL("clock_gettime NULL", syscall(SYS_clock_gettime, CLOCK_MONOTONIC, NULL));
	CALL("clock_getres NULL", syscall(SYS_clock_getres, CLOCK_MONOTONIC, NULL));
	CALL("clock_getres bad", syscall(SYS_clock_getres, CLOCK_MONOTONIC, BAD));
	CALL("gettimeofday NULL, NULL", syscall(SYS_gettimeofday, NULL, NULL));
	CALL("gettimeofday bad", syscall(SYS_gettimeofday, BAD, NULL));
	CALL("nanosleep bad", syscall(SYS_nanosleep, BAD, NULL));
	ts.tv_sec = 0;
	ts.tv_nsec = 1;
	CALL("nanosleep, bad remainder", syscall(SYS_nanosleep, &ts, BAD));
	CALL("uname bad", syscall(SYS_uname, BAD));
	CALL("sysinfo bad", syscall(SYS_sysinfo, BAD));
	CALL("getrusage bad", syscall(SYS_getrusage, RUSAGE_SELF, BAD));
	CALL("times NULL >= 0", syscall(SYS_times, NULL) >= 0 ? 0 : -1);
	CALL("getrandom NULL 0", syscall(SYS_getrandom, NULL, 0, 0));
	CALL("getrandom bad", syscall(SYS_getrandom, BAD, 16, 0));
	CALL("getrandom 100 before a hole", syscall(SYS_getrandom, edge, 1000, 0));
	CALL("getcwd bad", syscall(SYS_getcwd, BAD, 4096));
	CALL("getcwd size 0", syscall(SYS_getcwd, &ts, 0));
	CALL("getcwd size 1", syscall(SYS_getcwd, &ts, 1));
	CALL("pipe2 bad", syscall(SYS_pipe2, BAD, 0));
	CALL("fstat bad", syscall(SYS_fstat, 0, BAD));
	CALL("newfstatat bad path", syscall(SYS_newfstatat, AT_FDCWD, BAD, &ts, 0));
	CALL("newfstatat bad buffer", syscall(SYS_newfstatat, AT_FDCWD, ".", BAD, 0));
	CALL("openat bad path", syscall(SYS_openat, AT_FDCWD, BAD, O_RDONLY));
	memset(edge, 'y', 100);
	CALL("openat path running into a hole", syscall(SYS_openat, AT_FDCWD, edge, O_RDONLY));
	memcpy(edge, "/\0", 2);
	CALL("openat \"/\" before a hole", syscall(SYS_openat, AT_FDCWD, edge, O_RDONLY) >= 0 ? 0 : -1);
	CALL("readlinkat bad buffer", syscall(SYS_readlinkat, AT_FDCWD, "/proc/self/exe", BAD, 100));
	CALL("readlinkat bad path", syscall(SYS_readlinkat, AT_FDCWD, BAD, &ts, sizeof ts));
	CALL("sched_getaffinity bad", syscall(SYS_sched_getaffinity, 0, 128, BAD));
	CALL("rt_sigaction NULL, NULL", syscall(SYS_rt_sigaction, SIGUSR1, NULL, NULL, 8));
	CALL("rt_sigaction bad new", syscall(SYS_rt_sigaction, SIGUSR1, BAD, NULL, 8));
	CALL("rt_sigaction bad old", syscall(SYS_rt_sigaction, SIGUSR1, NULL, BAD, 8));
	CALL("rt_sigprocmask bad new", syscall(SYS_rt_sigprocmask, SIG_BLOCK, BAD, NULL, 8));
	CALL("rt_sigprocmask bad old", syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, BAD, 8));
	CALL("rt_sigpending bad", syscall(SYS_rt_sigpending, BAD, 8));
	CALL("sigaltstack bad new", syscall(SYS_sigaltstack, BAD, NULL));
	CALL("sigaltstack bad old", syscall(SYS_sigaltstack, NULL, BAD));
	CALL("wait4 bad status, no child", syscall(SYS_wait4, -1, BAD, WNOHANG, NULL));
	CALL("ppoll bad", syscall(SYS_ppoll, BAD, 1, &(struct timespec){0, 0}, NULL, 8));
	CALL("ppoll NULL 0", syscall(SYS_ppoll, NULL, 0, &(struct timespec){0, 0}, NULL, 8));
	CALL("ppoll bad timeout", syscall(SYS_ppoll, NULL, 0, BAD, NULL, 8));
	CALL("getdents64 bad", syscall(SYS_getdents64, open(".", O_RDONLY | O_DIRECTORY), BAD, 4096));
	CALL("ioctl TCGETS bad on a file", syscall(SYS_ioctl, open("file", O_RDONLY), 0x5401, BAD));
	CALL("set_robust_list bad", syscall(SYS_set_robust_list, BAD, 24));
	CALL("getresuid bad", syscall(SYS_getresuid, BAD, BAD, BAD));
	CALL("getgroups 0 NULL >= 0", syscall(SYS_getgroups, 0, NULL) >= 0 ? 0 : -1);
	CALL("prctl PR_GET_NAME bad", syscall(SYS_prctl, PR_GET_NAME, BAD, 0, 0, 0));
	CALL("prctl PR_SET_NAME bad", syscall(SYS_prctl, PR_SET_NAME, BAD, 0, 0, 0));
	CALL("clock_nanosleep bad", syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, BAD, NULL));
	CALL("execve bad path", syscall(SYS_execve, BAD, NULL, NULL));
	char target[200];
	memset(target, 't', sizeof target - 1);
	target[sizeof target - 1] = 0;
	symlink(target, "link");
	CALL("readlink into 100 bytes before a hole", readlink("link", edge, 199));
	CALL("readlink into 100 bytes", readlink("link", edge, 100));
	CALL("getcwd into 100 bytes before a hole", syscall(SYS_getcwd, edge, 4096) > 0 ? 0 : -1);
	CALL("statx bad buffer", syscall(SYS_statx, AT_FDCWD, ".", 0, 0x7ff, BAD));
	CALL("statx bad path", syscall(SYS_statx, AT_FDCWD, BAD, 0, 0x7ff, &st));
	int ep = syscall(SYS_epoll_create1, 0);
	CALL("epoll_ctl bad event", syscall(SYS_epoll_ctl, ep, 1, 0, BAD));
	CALL("epoll_pwait bad events, none ready", syscall(SYS_epoll_pwait, ep, BAD, 1, 0, NULL, 8));
	CALL("epoll_pwait 0 events", syscall(SYS_epoll_pwait, ep, edge, 0, 0, NULL, 8));
	int efd = syscall(SYS_eventfd2, 5, 0);
	CALL("eventfd read into a hole", read(efd, gone, 8));
	CALL("eventfd write from a hole", write(efd, gone, 8));
	int pfd[2];
	CALL("pipe2", syscall(SYS_pipe2, pfd, 0));
	CALL("pipe write 10", write(pfd[1], "0123456789", 10));
	CALL("pipe read into a hole", read(pfd[0], gone, 10));
	CALL("pipe read what remains", read(pfd[0], target, sizeof target));
	CALL("sched_getaffinity size 4", syscall(SYS_sched_getaffinity, 0, 4, target));
	CALL("sched_getaffinity into a hole", syscall(SYS_sched_getaffinity, 0, 8, gone));
	CALL("lseek in a pipe", lseek(pfd[0], 0, SEEK_CUR));
	CALL("pread on a pipe into a hole", pread(pfd[0], gone, 10, 0));
	CALL("read a write-only end into a hole", read(pfd[1], gone, 10));
	CALL("write a read-only end from a hole", write(pfd[0], gone, 10));
	CALL("write 0 bytes from NULL", write(1, NULL, 0));
	CALL("read 0 bytes into NULL", read(0, NULL, 0));
}

int main(void)
{
	char *m = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED || munmap(m + PAGE, PAGE) != 0)
		return 1;
	edge = m + PAGE - 100;
	gone = m + PAGE;
	transfers();
	pointers();
	return 0;
}
