/* Processes, signals, waits and scheduling calls not made elsewhere
 * (kernel/sys_wait.go, sys_fork.go, sys_signal.go, sys_timer.go,
 * sys_sched.go, sys_epoll.go, sys_eventfd.go, sys_time.go): waitid,
 * execveat, tkill, rt_sigsuspend, getitimer, sched_yield,
 * sched_setaffinity, epoll_pwait2, and x86-64's alarm, pause, time,
 * eventfd and epoll_create (lines starting "x86 "; the others print alike
 * on both arches). cmd/icount/syscalls_test.go compares the output
 * natively and under icount. Run as root, it first becomes uid and gid
 * 1000. With the arguments "exec" and a word it prints the word and
 * exits 7 (what execveat runs).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include "conformance.h"

static void *bad; /* an unmapped page */
static volatile int caught;

static void handler(int sig) { caught = sig; }

static void waits(void)
{
	siginfo_t si;
	pid_t c = fork();
	if (c == 0)
		_exit(3);
	memset(&si, 0, sizeof si);
	show("waitid P_PID WEXITED|WNOWAIT", syscall(SYS_waitid, P_PID, c, &si, WEXITED | WNOWAIT, NULL));
	printf("  pid ok %d, code exited %d, status %d, signo %d\n", si.si_pid == c, si.si_code == CLD_EXITED, si.si_status, si.si_signo);
	memset(&si, 0, sizeof si);
	show("waitid P_ALL WEXITED", syscall(SYS_waitid, P_ALL, 0, &si, WEXITED, NULL));
	printf("  pid ok %d, status %d\n", si.si_pid == c, si.si_status);
	show("waitid no children", syscall(SYS_waitid, P_ALL, 0, &si, WEXITED, NULL));
	c = fork();
	if (c == 0) {
		pause();
		_exit(0);
	}
	memset(&si, 0xff, sizeof si);
	show("waitid WNOHANG, none ended", syscall(SYS_waitid, P_PID, c, &si, WEXITED | WNOHANG, NULL));
	printf("  si_pid %d, si_signo %d\n", si.si_pid, si.si_signo);
	kill(c, SIGKILL);
	memset(&si, 0, sizeof si);
	show("waitid P_PGID 0", syscall(SYS_waitid, P_PGID, 0, &si, WEXITED, NULL));
	printf("  pid ok %d, code killed %d, status %d\n", si.si_pid == c, si.si_code == CLD_KILLED, si.si_status);
	show("waitid bad idtype", syscall(SYS_waitid, 9, 0, &si, WEXITED, NULL));
	show("waitid no options", syscall(SYS_waitid, P_ALL, 0, &si, 0, NULL));
	show("waitid bad options", syscall(SYS_waitid, P_ALL, 0, &si, WEXITED | 0x10000000, NULL));
	show("waitid P_PID not a child", syscall(SYS_waitid, P_PID, 1, &si, WEXITED, NULL));
	show("waitid P_PID 0", syscall(SYS_waitid, P_PID, 0, &si, WEXITED, NULL));
	c = fork();
	if (c == 0)
		_exit(5);
	show("waitid bad infop", syscall(SYS_waitid, P_PID, c, bad, WEXITED, NULL));
	show("waitid after", syscall(SYS_waitid, P_PID, c, &si, WEXITED | WNOHANG, NULL));
}

static void execs(int fd)
{
	char *argv[] = {"procs", "exec", "execveat by descriptor", NULL};
	char *env[] = {NULL};
	pid_t c = fork();
	if (c == 0) {
		syscall(SYS_execveat, fd, "", argv, env, AT_EMPTY_PATH);
		printf("execveat: %s\n", ename(errno));
		_exit(1);
	}
	int status;
	waitpid(c, &status, 0);
	printf("execveat AT_EMPTY_PATH: exit %d\n", WEXITSTATUS(status));
	show("execveat empty path without the flag", syscall(SYS_execveat, fd, "", argv, env, 0));
	show("execveat bad flag, empty path", syscall(SYS_execveat, fd, "", argv, env, 0x1));
	show("execveat bad flag", syscall(SYS_execveat, AT_FDCWD, "plain", argv, env, 0x1));
	show("execveat missing", syscall(SYS_execveat, AT_FDCWD, "nothing", argv, env, 0));
	show("execveat bad dirfd", syscall(SYS_execveat, 99, "x", argv, env, 0));
	show("execveat bad path", syscall(SYS_execveat, AT_FDCWD, bad, argv, env, 0));
	int dir = open(".", O_RDONLY | O_DIRECTORY);
	int f = openat(dir, "plain", O_WRONLY | O_CREAT, 0644);
	close(f);
	show("execveat a file without x", syscall(SYS_execveat, dir, "plain", argv, env, 0));
	show("execveat a directory", syscall(SYS_execveat, dir, "", argv, env, AT_EMPTY_PATH));
	close(dir);
	close(fd);
}

static void signals(void)
{
	signal(SIGUSR1, handler);
	pid_t tid = syscall(SYS_gettid);
	show("tkill self 0", syscall(SYS_tkill, tid, 0));
	show("tkill self SIGUSR1", syscall(SYS_tkill, tid, SIGUSR1));
	printf("  caught %d\n", caught);
	show("tkill -1", syscall(SYS_tkill, -1, 0));
	show("tkill 0", syscall(SYS_tkill, 0, 0));
	show("tkill no thread", syscall(SYS_tkill, 0x3fffffff, 0));
	show("tkill bad signal", syscall(SYS_tkill, tid, 99));
	sigset_t block, none;
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigemptyset(&none);
	sigprocmask(SIG_BLOCK, &block, NULL);
	caught = 0;
	raise(SIGUSR1);
	printf("blocked SIGUSR1 caught %d\n", caught);
	show("rt_sigsuspend bad size", syscall(SYS_rt_sigsuspend, &none, 4));
	show("rt_sigsuspend bad pointer", syscall(SYS_rt_sigsuspend, bad, 8));
	show("rt_sigsuspend unblocking the pending one", syscall(SYS_rt_sigsuspend, &none, 8));
	printf("  caught %d\n", caught);
	sigset_t now;
	sigprocmask(SIG_BLOCK, NULL, &now);
	printf("  mask restored: %d\n", sigismember(&now, SIGUSR1));
	sigprocmask(SIG_UNBLOCK, &block, NULL);
}

static void timers(void)
{
	struct itimerval v, set = {{0, 0}, {100, 0}};
	show("getitimer REAL unarmed", syscall(SYS_getitimer, ITIMER_REAL, &v));
	printf("  %ld %ld %ld %ld\n", (long)v.it_value.tv_sec, (long)v.it_value.tv_usec, (long)v.it_interval.tv_sec, (long)v.it_interval.tv_usec);
	setitimer(ITIMER_REAL, &set, NULL);
	show("getitimer REAL armed for 100 s", syscall(SYS_getitimer, ITIMER_REAL, &v));
	printf("  left in (90 s, 100 s]: %d, interval %ld\n", v.it_value.tv_sec >= 90 && v.it_value.tv_sec <= 100, (long)v.it_interval.tv_sec);
	show("getitimer VIRTUAL", syscall(SYS_getitimer, ITIMER_VIRTUAL, &v));
	printf("  %ld %ld\n", (long)v.it_value.tv_sec, (long)v.it_interval.tv_sec);
	show("getitimer PROF", syscall(SYS_getitimer, ITIMER_PROF, &v));
	show("getitimer bad which", syscall(SYS_getitimer, 3, &v));
	show("getitimer bad pointer", syscall(SYS_getitimer, ITIMER_REAL, bad));
	set.it_value.tv_sec = 0;
	setitimer(ITIMER_REAL, &set, NULL);
#ifdef SYS_alarm
	printf("x86 alarm 5: %ld\n", syscall(SYS_alarm, 5));
	printf("x86 alarm 0, what was left: %ld\n", syscall(SYS_alarm, 0));
	printf("x86 alarm 0 again: %ld\n", syscall(SYS_alarm, 0));
	signal(SIGALRM, handler);
	caught = 0;
	struct itimerval soon = {{0, 0}, {0, 20000}};
	setitimer(ITIMER_REAL, &soon, NULL);
	show("x86 pause until SIGALRM", syscall(SYS_pause));
	printf("x86   caught %d\n", caught);
#endif
#ifdef SYS_time
	time_t t = 0;
	long r = syscall(SYS_time, &t);
	printf("x86 time: returned what it wrote %d\n", r == t);
	printf("x86 time NULL: positive %d\n", syscall(SYS_time, NULL) > 0);
	show("x86 time bad pointer", syscall(SYS_time, bad));
#endif
}

static void scheduling(void)
{
	show("sched_yield", syscall(SYS_sched_yield));
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	show("sched_setaffinity CPU 0", syscall(SYS_sched_setaffinity, 0, sizeof set, &set));
	cpu_set_t got;
	CPU_ZERO(&got); /* Linux writes only its mask's size */
	long n = syscall(SYS_sched_getaffinity, 0, sizeof got, &got);
	printf("  getaffinity: %s, CPUs %d, CPU 0 %d\n", n < 0 ? ename(errno) : "ok", CPU_COUNT(&got), (int)CPU_ISSET(0, &got));
	pid_t c = fork();
	if (c == 0) {
		CPU_ZERO(&got);
		sched_getaffinity(0, sizeof got, &got);
		printf("  a forked child's: CPUs %d, CPU 0 %d\n", CPU_COUNT(&got), (int)CPU_ISSET(0, &got));
		_exit(0);
	}
	waitpid(c, NULL, 0);
	show("sched_getaffinity a size not of longs", syscall(SYS_sched_getaffinity, 0, 12, &got));
	show("sched_getaffinity size 0", syscall(SYS_sched_getaffinity, 0, 0, &got));
	show("sched_getaffinity bad pointer", syscall(SYS_sched_getaffinity, 0, sizeof got, bad));
	show("sched_getaffinity no process", syscall(SYS_sched_getaffinity, 0x3fffffff, sizeof got, &got));
	show("sched_getaffinity -1", syscall(SYS_sched_getaffinity, -1, sizeof got, &got));
	CPU_ZERO(&set);
	show("sched_setaffinity none", syscall(SYS_sched_setaffinity, 0, sizeof set, &set));
	CPU_SET(0, &set);
	show("sched_setaffinity size 0", syscall(SYS_sched_setaffinity, 0, 0, &set));
	show("sched_setaffinity bad pointer", syscall(SYS_sched_setaffinity, 0, sizeof set, bad));
	show("sched_setaffinity no process", syscall(SYS_sched_setaffinity, 0x3fffffff, sizeof set, &set));
	show("sched_setaffinity -1", syscall(SYS_sched_setaffinity, -1, sizeof set, &set));
	show("sched_setaffinity self by tid", syscall(SYS_sched_setaffinity, syscall(SYS_gettid), 8, &set));
}

static void events(void)
{
	int ep = epoll_create1(0);
	int p[2];
	pipe(p);
	struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 42}, out[2];
	epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev);
	struct timespec zero = {0, 0}, badns = {0, 1000000000};
	long n = syscall(SYS_epoll_pwait2, ep, out, 2, &zero, NULL, 8);
	printf("epoll_pwait2 nothing ready, timeout 0: %ld\n", n);
	write(p[1], "x", 1);
	n = syscall(SYS_epoll_pwait2, ep, out, 2, NULL, NULL, 8);
	printf("epoll_pwait2 ready, no timeout: %ld, data %llu\n", n, n > 0 ? (unsigned long long)out[0].data.u64 : 0ULL);
	sigset_t mask;
	sigemptyset(&mask);
	n = syscall(SYS_epoll_pwait2, ep, out, 2, &zero, &mask, 8);
	printf("epoll_pwait2 with a mask: %ld\n", n);
	show("epoll_pwait2 bad nanoseconds", syscall(SYS_epoll_pwait2, ep, out, 2, &badns, NULL, 8));
	show("epoll_pwait2 bad timeout pointer", syscall(SYS_epoll_pwait2, ep, out, 2, bad, NULL, 8));
	show("epoll_pwait2 bad events pointer", syscall(SYS_epoll_pwait2, ep, bad, 2, &zero, NULL, 8));
	show("epoll_pwait2 maxevents 0", syscall(SYS_epoll_pwait2, ep, out, 0, &zero, NULL, 8));
	show("epoll_pwait2 bad sigset size", syscall(SYS_epoll_pwait2, ep, out, 2, &zero, &mask, 4));
	show("epoll_pwait2 bad fd", syscall(SYS_epoll_pwait2, 99, out, 2, &zero, NULL, 8));
	show("epoll_pwait2 not an epoll", syscall(SYS_epoll_pwait2, p[0], out, 2, &zero, NULL, 8));
	close(ep);
	close(p[0]);
	close(p[1]);
#ifdef SYS_epoll_create
	int e = syscall(SYS_epoll_create, 1);
	printf("x86 epoll_create 1: %s, cloexec %d\n", e < 0 ? ename(errno) : "ok", e < 0 ? -1 : fcntl(e, F_GETFD) & FD_CLOEXEC);
	close(e);
	show("x86 epoll_create 0", syscall(SYS_epoll_create, 0));
	show("x86 epoll_create -1", syscall(SYS_epoll_create, -1));
#endif
#ifdef SYS_eventfd
	int efd = syscall(SYS_eventfd, 5);
	unsigned long long v = 0;
	printf("x86 eventfd 5: %s, reads %ld %llu\n", efd < 0 ? ename(errno) : "ok", (long)read(efd, &v, 8), v);
	printf("x86   flags %#x\n", fcntl(efd, F_GETFL) & (O_NONBLOCK | O_RDWR));
	close(efd);
#endif
}

int main(int argc, char **argv)
{
	if (argc > 2 && strcmp(argv[1], "exec") == 0) {
		printf("%s\n", argv[2]);
		return 7;
	}
	int self = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	start(argc, argv);
	bad = unmapped();
	waits();
	execs(self);
	signals();
	timers();
	scheduling();
	events();
	printf("done\n");
	return 0;
}
