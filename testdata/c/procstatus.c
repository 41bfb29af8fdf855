/* /proc/PID/status (kernel/procstatus.go): the lines of the process's
 * identity, threads, signal masks and dispositions and capabilities, as
 * it starts, after it changes its umask, dispositions and mask and makes a
 * second thread, and as a forked child sees its parent waiting for it;
 * pids are printed as whether they are getpid's and getppid's. Every line
 * is compared with the native run's, as uid 1000 (cmd/icount/procfd_test.go). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>

#include "conformance.h"

/* The lines printed as they are; Tgid, Pid and PPid are compared. */
static const char *shown[] = {"Name", "Umask", "State", "Uid", "Gid", "Threads", "SigPnd", "ShdPnd", "SigBlk",
	"SigIgn", "SigCgt", "CapInh", "CapPrm", "CapEff", "CapAmb", "NoNewPrivs", "Seccomp", NULL};

static void status(const char *what, int pid, int ppid)
{
	char path[64], line[512];
	snprintf(path, sizeof path, "/proc/%d/status", pid);
	FILE *f = fopen(path, "r");
	if (!f) {
		printf("%s: %s\n", what, ename(errno));
		return;
	}
	printf("%s:\n", what);
	while (fgets(line, sizeof line, f)) {
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = 0;
		long n = atol(colon + 1);
		if (strcmp(line, "Tgid") == 0 || strcmp(line, "Pid") == 0)
			printf("  %s: %s\n", line, n == pid ? "its pid" : "another");
		else if (strcmp(line, "PPid") == 0)
			printf("  %s: %s\n", line, n == ppid ? "its parent's" : "another");
		for (int i = 0; shown[i]; i++)
			if (strcmp(line, shown[i]) == 0)
				printf("  %s:%s", line, colon + 1);
	}
	fclose(f);
}

/* threads is the Threads line of /proc/self/status, -1 if there is none. */
static long threads(void)
{
	char line[512];
	long n = -1;
	FILE *f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, "Threads:", 8) == 0)
			n = atol(line + 8);
	if (f)
		fclose(f);
	return n;
}

static void on_usr1(int sig) { (void)sig; }

static int wake[2];

static void *sleeper(void *arg)
{
	char c;
	(void)arg;
	return read(wake[0], &c, 1) == 1 ? NULL : (void *)1;
}

int main(int argc, char **argv)
{
	start(argc, argv);
	status("at the start", getpid(), getppid());
	show("open for writing", open("/proc/self/status", O_WRONLY));

	umask(027);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGUSR1, on_usr1);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	raise(SIGUSR2);
	pthread_t th;
	if (pipe(wake) || pthread_create(&th, NULL, sleeper, NULL))
		return 1;
	status("changed, with a second thread", getpid(), getppid());

	int parent = getpid(), grandparent = getppid();
	pid_t child = fork();
	if (child == 0) {
		usleep(100000); /* the parent waits by then */
		status("the parent, seen by its child", parent, grandparent);
		_exit(0);
	}
	waitpid(child, NULL, 0);
	if (write(wake[1], "x", 1) != 1 || pthread_join(th, NULL))
		return 1;
	/* Linux counts an ended thread until it is released, which can come
	 * after pthread_join returns on a busy machine: wait for it (2 s at
	 * most). */
	for (int tries = 0; threads() > 1 && tries < 2000; tries++)
		usleep(1000);
	status("its thread gone", getpid(), getppid());
	return 0;
}
