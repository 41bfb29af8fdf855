/* procstate.c: the files of /proc that describe the process and the
 * machine (status, stat, statm, comm, limits; meminfo, uptime, loadavg,
 * stat, version, sys/kernel) agree with what the system calls say
 * (getpid, getppid, getuid, sigprocmask, prctl, getrlimit, sysinfo,
 * uname), natively and under icount; /proc/PID of no process, and
 * /proc/self itself. It prints the checks, not the figures, which differ
 * from machine to machine. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>

#include "conformance.h"

static char text[65536];

/* slurp reads the whole file at path into text; its length, or -1. */
static long slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t n = fread(text, 1, sizeof text - 1, f);
	fclose(f);
	text[n] = 0;
	return (long)n;
}

/* field returns the value of the "Key:\t" line of text, or "". */
static const char *field(const char *key)
{
	static char val[256];
	size_t k = strlen(key);
	for (const char *l = text; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l))
		if (strncmp(l, key, k) == 0 && l[k] == ':') {
			const char *v = l + k + 1;
			while (*v == ' ' || *v == '\t')
				v++;
			size_t n = strcspn(v, "\n");
			snprintf(val, sizeof val, "%.*s", (int)n, v);
			return val;
		}
	return "";
}

static void check(const char *what, int ok) { printf("%s: %s\n", what, ok ? "yes" : "NO"); }

static void *idle(void *arg)
{
	pause();
	return arg;
}

static void caught(int sig) { (void)sig; }

static void status(const char *when, int threads)
{
	char want[128];
	printf("-- status %s\n", when);
	if (slurp("/proc/self/status") < 0) {
		printf("open /proc/self/status: %s\n", ename(errno));
		return;
	}
	char comm[32];
	prctl(PR_GET_NAME, comm);
	check("Name is the thread's name", strcmp(field("Name"), comm) == 0);
	snprintf(want, sizeof want, "%d", getpid());
	check("Pid is getpid", strcmp(field("Pid"), want) == 0);
	check("Tgid is getpid", strcmp(field("Tgid"), want) == 0);
	snprintf(want, sizeof want, "%d", getppid());
	check("PPid is getppid", strcmp(field("PPid"), want) == 0);
	snprintf(want, sizeof want, "%d\t%d\t%d\t%d", getuid(), geteuid(), getuid(), getuid());
	check("Uid is getuid", strcmp(field("Uid"), want) == 0);
	snprintf(want, sizeof want, "%d\t%d\t%d\t%d", getgid(), getegid(), getgid(), getgid());
	check("Gid is getgid", strcmp(field("Gid"), want) == 0);
	snprintf(want, sizeof want, "%d", threads);
	check("Threads", strcmp(field("Threads"), want) == 0);
	mode_t m = umask(022);
	umask(m);
	snprintf(want, sizeof want, "%04o", m);
	check("Umask is umask", strcmp(field("Umask"), want) == 0);
	unsigned long long blk = strtoull(field("SigBlk"), NULL, 16), ign = strtoull(field("SigIgn"), NULL, 16),
			   cgt = strtoull(field("SigCgt"), NULL, 16);
	check("SigBlk holds SIGUSR1", (blk >> (SIGUSR1 - 1)) & 1);
	check("SigIgn holds SIGUSR2", (ign >> (SIGUSR2 - 1)) & 1);
	check("SigCgt holds SIGINT", (cgt >> (SIGINT - 1)) & 1);
	check("SigIgn lacks SIGINT", !((ign >> (SIGINT - 1)) & 1));
	check("VmSize is given", strstr(field("VmSize"), " kB") != NULL);
}

static void stat_file(void)
{
	printf("-- stat\n");
	if (slurp("/proc/self/stat") < 0) {
		printf("open /proc/self/stat: %s\n", ename(errno));
		return;
	}
	char comm[32], name[40];
	prctl(PR_GET_NAME, comm);
	snprintf(name, sizeof name, "(%s)", comm);
	char *f[64];
	int n = 0;
	for (char *s = strtok(text, " \n"); s && n < 64; s = strtok(NULL, " \n"))
		f[n++] = s;
	printf("fields: %d\n", n);
	if (n < 20)
		return;
	check("pid", atoi(f[0]) == getpid());
	check("comm", strcmp(f[1], name) == 0);
	check("ppid", atoi(f[3]) == getppid());
	check("pgrp", atoi(f[4]) == getpgrp());
	check("session", atoi(f[5]) == getsid(0));
	check("num_threads", atoi(f[19]) == 1);
}

static void machine(void)
{
	struct sysinfo si;
	struct utsname u;
	char want[256];
	sysinfo(&si);
	uname(&u);
	printf("-- machine\n");
	if (slurp("/proc/meminfo") >= 0)
		check("MemTotal is sysinfo's totalram",
		      strtoull(field("MemTotal"), NULL, 10) * 1024 == (unsigned long long)si.totalram * si.mem_unit);
	if (slurp("/proc/uptime") >= 0) {
		long up = atol(text);
		check("uptime is sysinfo's", up - (long)si.uptime <= 1 && (long)si.uptime - up <= 1);
	}
	if (slurp("/proc/loadavg") >= 0) {
		double a, b, c;
		int run, all, last;
		check("loadavg has its five fields", sscanf(text, "%lf %lf %lf %d/%d %d", &a, &b, &c, &run, &all, &last) == 6);
	}
	if (slurp("/proc/stat") >= 0) {
		int cpus = 0;
		for (char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
			if (strncmp(l, "cpu", 3) == 0 && l[3] >= '0' && l[3] <= '9')
				cpus++;
		check("stat's first line is cpu", strncmp(text, "cpu ", 4) == 0);
		check("stat has a line per CPU online", cpus == get_nprocs());
		check("stat has btime", strstr(text, "\nbtime ") != NULL);
	}
	snprintf(want, sizeof want, "Linux version %s ", u.release);
	if (slurp("/proc/version") >= 0)
		check("version names uname's release", strncmp(text, want, strlen(want)) == 0);
	snprintf(want, sizeof want, "%s\n", u.release);
	if (slurp("/proc/sys/kernel/osrelease") >= 0)
		check("osrelease is uname's", strcmp(text, want) == 0);
	snprintf(want, sizeof want, "%s\n", u.nodename);
	if (slurp("/proc/sys/kernel/hostname") >= 0)
		check("hostname is uname's", strcmp(text, want) == 0);
	if (slurp("/proc/sys/kernel/ostype") >= 0)
		check("ostype is Linux", strcmp(text, "Linux\n") == 0);
}

int main(int argc, char **argv)
{
	start(argc, argv);
	char want[64], link[64];

	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	sigprocmask(SIG_BLOCK, &s, NULL);
	signal(SIGUSR2, SIG_IGN);
	signal(SIGINT, caught);
	status("at start", 1);

	printf("-- comm\n");
	char comm[32];
	prctl(PR_GET_NAME, comm);
	snprintf(want, sizeof want, "%s\n", comm);
	check("comm is the thread's name", slurp("/proc/self/comm") >= 0 && strcmp(text, want) == 0);
	prctl(PR_SET_NAME, "renamed");
	check("comm follows PR_SET_NAME", slurp("/proc/self/comm") >= 0 && strcmp(text, "renamed\n") == 0);
	status("renamed", 1);
	stat_file();

	printf("-- statm\n");
	long pages[7];
	check("statm has seven fields", slurp("/proc/self/statm") >= 0 &&
						sscanf(text, "%ld %ld %ld %ld %ld %ld %ld", &pages[0], &pages[1], &pages[2],
						       &pages[3], &pages[4], &pages[5], &pages[6]) == 7);
	check("statm's size is not 0", pages[0] > 0);

	printf("-- limits\n");
	struct rlimit rl;
	if (slurp("/proc/self/limits") >= 0) {
		getrlimit(RLIMIT_NOFILE, &rl);
		char *l = strstr(text, "Max open files");
		check("Max open files is getrlimit's", l && strtoull(l + 26, NULL, 10) == rl.rlim_cur);
		getrlimit(RLIMIT_STACK, &rl);
		l = strstr(text, "Max stack size");
		check("Max stack size is getrlimit's", l && strtoull(l + 26, NULL, 10) == rl.rlim_cur);
		check("Max cpu time is unlimited", strstr(text, "Max cpu time              unlimited") != NULL);
	}

	machine();

	printf("-- links\n");
	ssize_t n = readlink("/proc/self", link, sizeof link - 1);
	link[n > 0 ? n : 0] = 0;
	snprintf(want, sizeof want, "%d", getpid());
	check("/proc/self names getpid", strcmp(link, want) == 0);
	struct stat st;
	snprintf(want, sizeof want, "/proc/%d", getpid());
	check("/proc/PID is a directory", stat(want, &st) == 0 && S_ISDIR(st.st_mode));
	snprintf(want, sizeof want, "/proc/%d/status", getpid());
	check("/proc/PID/status is a file", stat(want, &st) == 0 && S_ISREG(st.st_mode));
	printf("open /proc/999999999/status: %s\n", open("/proc/999999999/status", O_RDONLY) < 0 ? ename(errno) : "ok");

	printf("-- owner\n");
	int fd = open("mine", O_CREAT | O_WRONLY, 0644);
	check("a file made is the user's", fd >= 0 && fstat(fd, &st) == 0 && st.st_uid == getuid() && st.st_gid == getgid());
	struct passwd *pw = getpwuid(getuid());
	char name[64];
	snprintf(name, sizeof name, "%s", pw ? pw->pw_name : "");
	pw = getpwnam(name);
	check("getpwnam of getpwuid's name gives the uid", pw && pw->pw_uid == getuid());
	unlink("mine");

	pthread_t th;
	pthread_create(&th, NULL, idle, NULL);
	status("with two threads", 2);
	return 0;
}
