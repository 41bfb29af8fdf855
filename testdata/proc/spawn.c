/* Processes as a C program uses them (cmd/icount/process_test.go):
 * posix_spawn, fork, vfork, execve (static programs of both arches, a #!
 * script, the errors of a missing file, a directory and files that are
 * not programs), waitpid with WNOHANG, waitid, exit statuses, deaths by
 * signal, kill of a process and of a process group, SIGCHLD, pipes
 * between parent and child, a file offset shared across fork, O_CLOEXEC,
 * getppid, getpgrp, setpgid and getsid. Everything it prints is the same
 * on every run and under any kernel that runs it right: no pid, no count
 * of polls.
 *
 *   spawn SAME... -- OTHER...
 *
 * SAME is the command that runs child.c built for this program's arch,
 * OTHER the one that runs it built for the other arch (a path under
 * icount; natively an arm64 program needs qemu-aarch64 -L SYSROOT PATH).
 * It writes scratch files in the working directory.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../c/errname.h"

extern char **environ;

static char **same, **other; /* the two child commands, NULL-terminated */
static int nsame, nother;
static volatile sig_atomic_t sigchlds;
static int *volatile nowhere; /* a null pointer the compiler cannot see */

static void die(const char *what)
{
	fprintf(stderr, "spawn: %s: %s\n", what, strerror(errno));
	exit(1);
}

static const char *signame(int s)
{
	switch (s) {
	case SIGSEGV: return "SIGSEGV";
	case SIGTERM: return "SIGTERM";
	case SIGKILL: return "SIGKILL";
	}
	static char buf[32];
	snprintf(buf, sizeof buf, "signal %d", s);
	return buf;
}

/* say prints a line from the parent; the line is out before any fork. */
static void say(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

/* childsay writes a line from a forked child with one write. */
static void childsay(const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (write(1, buf, n) != n)
		_exit(99);
}

/* how says how a wait status ended. */
static const char *how(int st)
{
	static char buf[64];
	if (WIFEXITED(st))
		snprintf(buf, sizeof buf, "exited %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(buf, sizeof buf, "killed by %s", signame(WTERMSIG(st)));
	else
		snprintf(buf, sizeof buf, "status %#x", st);
	return buf;
}

static int reap(pid_t pid)
{
	int st;
	pid_t r;
	while ((r = waitpid(pid, &st, 0)) == -1 && errno == EINTR)
		;
	if (r != pid)
		die("waitpid");
	return st;
}

/* command returns cmd (n words) followed by the words of extra, with a
 * NULL at the end. */
static char **command(char **cmd, int n, const char **extra)
{
	int m = 0;
	while (extra[m])
		m++;
	char **v = calloc(n + m + 1, sizeof *v);
	if (!v)
		die("calloc");
	memcpy(v, cmd, n * sizeof *v);
	for (int i = 0; i < m; i++)
		v[n + i] = (char *)extra[i];
	return v;
}

/* run forks, execs argv in the child and returns the child's wait status. */
static int run(char **argv)
{
	pid_t pid = fork();
	if (pid == -1)
		die("fork");
	if (pid == 0) {
		execve(argv[0], argv, environ);
		childsay("execve %s: %s\n", argv[0], ename(errno));
		_exit(127);
	}
	return reap(pid);
}

static void on_sigchld(int sig)
{
	(void)sig;
	sigchlds++;
}

static void identity(void)
{
	pid_t me = getpid(), pg = getpgrp(), sid = getsid(0);
	pid_t pid = fork();
	if (pid == -1)
		die("fork");
	if (pid == 0) {
		int ppid = getppid() == me, samepg = getpgrp() == pg, samesid = getsid(0) == sid;
		int own = setpgid(0, 0) == 0 && getpgrp() == getpid() && getpgid(0) == getpid();
		childsay("identity: getppid is the parent %d, same group %d, same session %d, setpgid(0, 0) leads its own %d\n",
			 ppid, samepg, samesid, own);
		_exit(0);
	}
	say("identity: child %s, parent's group unchanged %d\n", how(reap(pid)), getpgrp() == pg);
}

static void statuses(void)
{
	static const int codes[] = {0, 1, 42, 255, 256, 257};
	for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
		pid_t pid = fork();
		if (pid == -1)
			die("fork");
		if (pid == 0)
			_exit(codes[i]);
		int st = reap(pid);
		say("_exit(%d): WIFEXITED %d WEXITSTATUS %d\n", codes[i], WIFEXITED(st), WEXITSTATUS(st));
	}
	const char *ex[] = {"exit", "3", NULL};
	say("exec'd child exit 3: %s\n", how(run(command(same, nsame, ex))));
	pid_t pid = fork();
	if (pid == -1)
		die("fork");
	if (pid == 0)
		exit(4); /* exit, not _exit: stdio's atexit work runs in the child */
	say("exit(4) after fork: %s\n", how(reap(pid)));
}

static void signals(void)
{
	pid_t pid = fork();
	if (pid == -1)
		die("fork");
	if (pid == 0) {
		signal(SIGSEGV, SIG_DFL);
		*nowhere = 1;
		_exit(1);
	}
	int st = reap(pid);
	say("forked child faulting: WIFSIGNALED %d WTERMSIG %s\n", WIFSIGNALED(st), signame(WTERMSIG(st)));
	const char *sg[] = {"segv", NULL};
	st = run(command(same, nsame, sg));
	say("exec'd child faulting: WIFSIGNALED %d WTERMSIG %s\n", WIFSIGNALED(st), signame(WTERMSIG(st)));

	/* A child blocked in read, killed by SIGTERM. */
	int p[2];
	if (pipe(p))
		die("pipe");
	pid = fork();
	if (pid == -1)
		die("fork");
	if (pid == 0) {
		char c;
		close(p[1]);
		read(p[0], &c, 1);
		_exit(0);
	}
	if (kill(pid, SIGTERM))
		die("kill");
	say("kill SIGTERM: %s\n", how(reap(pid)));

	/* A process group of two (a child and its own child), killed whole
	 * once both say, through the ready pipe, that they are there. */
	int ready[2];
	if (pipe(ready))
		die("pipe");
	pid = fork();
	if (pid == -1)
		die("fork");
	if (pid == 0) {
		char c;
		setpgid(0, 0);
		close(ready[0]);
		close(p[1]);
		if (fork() == 0) {
			write(ready[1], "g", 1);
			read(p[0], &c, 1);
			_exit(0);
		}
		write(ready[1], "c", 1);
		read(p[0], &c, 1);
		_exit(0);
	}
	setpgid(pid, pid); /* both sides, so the group exists before kill */
	close(p[0]);
	close(ready[1]);
	char two[2];
	if (read(ready[0], two, 1) != 1 || read(ready[0], two + 1, 1) != 1)
		die("read ready");
	close(ready[0]);
	if (kill(-pid, SIGKILL))
		die("kill group");
	say("kill SIGKILL to the group: leader %s\n", how(reap(pid)));
	/* The grandchild was reparented away from us: we have no child left. */
	close(p[1]);
	errno = 0;
	pid_t r = waitpid(-1, &st, WNOHANG);
	say("waitpid(-1, WNOHANG) with no children: %d %s\n", (int)r, ename(errno));
	errno = 0;
	r = kill(pid, 0) == 0 ? 0 : -1;
	say("kill(reaped pid, 0): %d %s\n", (int)r, ename(errno));
}

static void nohang(void)
{
	int go[2];
	if (pipe(go))
		die("pipe");
	pid_t pid = fork();
	if (pid == -1)
		die("fork");
	if (pid == 0) {
		char c;
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		volatile unsigned long x = 0;
		for (unsigned long i = 0; i < 2000000; i++)
			x += i;
		_exit(7);
	}
	close(go[0]);
	int st;
	pid_t r = waitpid(pid, &st, WNOHANG);
	say("WNOHANG before the child may end: %d\n", (int)r);
	if (write(go[1], "g", 1) != 1)
		die("write");
	close(go[1]);
	struct timespec ms = {0, 1000000};
	while ((r = waitpid(pid, &st, WNOHANG)) == 0)
		nanosleep(&ms, NULL);
	say("WNOHANG polling: the child's pid %d, %s\n", r == pid, how(st));

	pid = fork();
	if (pid == -1)
		die("fork");
	if (pid == 0)
		_exit(5);
	siginfo_t si;
	memset(&si, 0, sizeof si);
	if (waitid(P_PID, pid, &si, WEXITED))
		die("waitid");
	say("waitid: si_pid is the child %d, CLD_EXITED %d, si_status %d\n", si.si_pid == pid, si.si_code == CLD_EXITED, si.si_status);
}

static void pipes(void)
{
	int to[2], from[2];
	if (pipe(to) || pipe(from))
		die("pipe");
	pid_t pid = fork();
	if (pid == -1)
		die("fork");
	if (pid == 0) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		close(to[0]), close(to[1]), close(from[0]), close(from[1]);
		const char *up[] = {"upper", NULL};
		char **argv = command(same, nsame, up);
		execve(argv[0], argv, environ);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	const char msg[] = "ping from the parent\n";
	if (write(to[1], msg, sizeof msg - 1) != (ssize_t)(sizeof msg - 1))
		die("write");
	close(to[1]);
	char buf[256];
	size_t n = 0;
	ssize_t k;
	while ((k = read(from[0], buf + n, sizeof buf - 1 - n)) > 0)
		n += k;
	buf[n] = 0;
	close(from[0]);
	say("pipe to and from an exec'd child: %s", buf);
	say("upper child: %s\n", how(reap(pid)));

	/* A file offset is shared across fork. */
	int fd = open("shared.txt", O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("open shared.txt");
	pid = fork();
	if (pid == -1)
		die("fork");
	if (pid == 0) {
		write(fd, "child\n", 6);
		_exit(0);
	}
	reap(pid);
	write(fd, "parent\n", 7);
	n = pread(fd, buf, sizeof buf - 1, 0);
	buf[n] = 0;
	say("shared offset: %ld, file: %s", (long)lseek(fd, 0, SEEK_CUR), buf);
	close(fd);
}

static void spawns(void)
{
	pid_t pid;
	const char *echo[] = {"echo", "spawned", "by", "posix_spawn", NULL};
	char *env1[] = {"CHILD=1", NULL};
	int e = posix_spawn(&pid, same[0], NULL, NULL, command(same, nsame, echo), env1);
	if (e)
		say("posix_spawn: %s\n", ename(e));
	else
		say("posix_spawn child: %s\n", how(reap(pid)));

	char *truev[] = {"true", NULL};
	char *env2[] = {"PATH=/usr/bin:/bin", NULL};
	/* posix_spawnp looks the name up in the caller's PATH. */
	char *oldpath = getenv("PATH");
	setenv("PATH", "/usr/bin:/bin", 1);
	e = posix_spawnp(&pid, "true", NULL, NULL, truev, env2);
	if (oldpath)
		setenv("PATH", oldpath, 1);
	else
		unsetenv("PATH");
	say("posix_spawnp true: %s\n", e ? ename(e) : how(reap(pid)));

	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "spawned.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	const char *echo2[] = {"echo", "into", "a", "file", NULL};
	e = posix_spawn(&pid, same[0], &fa, NULL, command(same, nsame, echo2), environ);
	posix_spawn_file_actions_destroy(&fa);
	if (e)
		say("posix_spawn with file actions: %s\n", ename(e));
	else {
		int st = reap(pid);
		char buf[256] = {0};
		int fd = open("spawned.txt", O_RDONLY);
		if (fd < 0 || read(fd, buf, sizeof buf - 1) < 0)
			die("spawned.txt");
		close(fd);
		say("posix_spawn with file actions: %s, the file: %s", how(st), buf);
	}

	char *missing[] = {"./missing", NULL};
	e = posix_spawn(&pid, "./missing", NULL, NULL, missing, environ);
	if (e)
		say("posix_spawn ./missing: %s\n", ename(e));
	else
		say("posix_spawn ./missing: started, %s\n", how(reap(pid)));

	const char *vf[] = {"echo", "after", "vfork", NULL};
	char **argv = command(same, nsame, vf);
	pid = vfork();
	if (pid == -1)
		die("vfork");
	if (pid == 0) {
		execve(argv[0], argv, environ);
		_exit(127);
	}
	say("vfork and execve: %s\n", how(reap(pid)));
}

/* writefile writes text into a new file name, with mode as the umask
 * leaves it (any umask leaves the owner's bits that matter here). */
static void writefile(const char *name, const char *text, mode_t mode)
{
	int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, mode);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) || close(fd))
		die(name);
}

static void execs(void)
{
	const char *oa[] = {"echo", "from", "the", "other", "arch", NULL};
	say("other arch child: %s\n", how(run(command(other, nother, oa))));

	writefile("script", "#!/bin/sh\necho \"script: $0 got $1\"\nexit 6\n", 0755);
	writefile("notes.txt", "not a program\n", 0644);
	writefile("garbage", "not a program either\n", 0755);
	char *script[] = {"./script", "an argument", NULL};
	say("#! script: %s\n", how(run(script)));
	char *bad[][2] = {{"./missing", NULL}, {".", NULL}, {"./notes.txt", NULL}, {"./garbage", NULL}};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		say("  (%s)\n", how(run(bad[i])));
}

static void cloexec(void)
{
	int a[2], b[2];
	if (pipe2(a, O_CLOEXEC) || pipe(b))
		die("pipe");
	if (fcntl(b[0], F_SETFD, FD_CLOEXEC))
		die("F_SETFD");
	int c = open("/dev/null", O_RDONLY | O_CLOEXEC);
	int d = dup(c);
	int e = dup3(b[1], 40, O_CLOEXEC);
	int f = fcntl(b[1], F_DUPFD_CLOEXEC, 50);
	int g = fcntl(b[1], F_DUPFD, 60);
	if (c < 0 || d < 0 || e < 0 || f < 0 || g < 0)
		die("descriptors");
	char fds[7][12];
	int all[7] = {a[0], b[0], b[1], c, d, e, f};
	for (int i = 0; i < 7; i++)
		snprintf(fds[i], sizeof fds[i], "%d", all[i]);
	char gs[12];
	snprintf(gs, sizeof gs, "%d", g);
	const char *args[] = {"fd", "pipe2-O_CLOEXEC", fds[0], "F_SETFD-FD_CLOEXEC", fds[1], "plain-pipe", fds[2],
			      "open-O_CLOEXEC", fds[3], "dup-of-cloexec", fds[4], "dup3-O_CLOEXEC", fds[5],
			      "F_DUPFD_CLOEXEC", fds[6], "F_DUPFD", gs, NULL};
	pid_t pid = fork();
	if (pid == -1)
		die("fork");
	if (pid == 0) {
		int open_ = 0;
		for (int i = 0; i < 7; i++)
			open_ += fcntl(all[i], F_GETFD) != -1;
		childsay("after fork, before exec: %d of 7 open\n", open_);
		char **argv = command(same, nsame, args);
		execve(argv[0], argv, environ);
		_exit(127);
	}
	say("cloexec child: %s\n", how(reap(pid)));
	int flags = fcntl(a[0], F_GETFD);
	say("parent: pipe2 end has FD_CLOEXEC %d, dup of it %d\n", (flags & FD_CLOEXEC) != 0, (fcntl(d, F_GETFD) & FD_CLOEXEC) != 0);
	for (int i = 0; i < 7; i++)
		close(all[i]);
	close(a[1]);
	close(g);
}

int main(int argc, char **argv)
{
	int sep = 0;
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0)
			sep = i;
	if (sep < 2 || sep == argc - 1) {
		fprintf(stderr, "usage: spawn SAME... -- OTHER...\n");
		return 2;
	}
	argv[sep] = NULL;
	same = argv + 1, nsame = sep - 1;
	other = argv + sep + 1, nother = argc - sep - 1;
	setvbuf(stdout, NULL, _IOLBF, 0);

	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigchld;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGCHLD, &sa, NULL);

	identity();
	statuses();
	signals();
	nohang();
	pipes();
	spawns();
	execs();
	cloexec();
	say("SIGCHLD caught: %s\n", sigchlds > 0 ? "yes" : "no");
	return 0;
}
