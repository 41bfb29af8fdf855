/* sched.c: the scheduling and process-attribute calls with fixed answers
   (sched_*, getpriority/setpriority, getcpu, personality, capget/capset,
   get_robust_list, rt_sigqueueinfo/rt_tgsigqueueinfo), made with raw
   system calls with ordinary and edge arguments as an unprivileged
   process; every result and errno is printed. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "errname.h"

#define CALL(what, call)                                      \
	do {                                                  \
		long r_ = (call);                             \
		printf("%s: %s %ld\n", what, err(r_), r_ < 0 ? 0 : r_); \
	} while (0)

/* Linux's struct sched_attr (version 1, 56 bytes), with room after it. */
struct attr {
	uint32_t size, policy;
	uint64_t flags;
	int32_t nice;
	uint32_t priority;
	uint64_t runtime, deadline, period;
	uint32_t util_min, util_max;
	uint8_t more[16];
};

static void getattr(const char *what, pid_t pid) {
	struct attr a;
	memset(&a, 0xee, sizeof a);
	long r = syscall(SYS_sched_getattr, pid, &a, sizeof a, 0);
	printf("%s: %s", what, err(r));
	if (r == 0)
		/* The runtime is the scheduler's slice, which depends on the CPUs. */
		printf(" size %u policy %u flags %#llx nice %d prio %u runtime > 0 %d util %u..%u more %#x", a.size, a.policy,
		       (unsigned long long)a.flags, a.nice, a.priority, a.runtime > 0, a.util_min, a.util_max, a.more[0]);
	printf("\n");
}

static long setattr(pid_t pid, uint32_t size, uint32_t policy, uint64_t flags, int nice, uint32_t prio) {
	struct attr a;
	memset(&a, 0, sizeof a);
	a.size = size, a.policy = policy, a.flags = flags, a.nice = nice, a.priority = prio;
	return syscall(SYS_sched_setattr, pid, &a, 0);
}

static long setsched(pid_t pid, int policy, int prio) {
	struct sched_param sp;
	memset(&sp, 0, sizeof sp);
	sp.sched_priority = prio;
	return syscall(SYS_sched_setscheduler, pid, policy, &sp);
}

static int cap_words(uint32_t version) {
	return version == 0x19980330 ? 1 : 2;
}

static void capget_v(const char *what, uint32_t version, int pid) {
	struct {
		uint32_t version;
		int pid;
	} h = {version, pid};
	uint32_t d[6];
	memset(d, 0xee, sizeof d);
	long r = syscall(SYS_capget, &h, d);
	printf("capget %s: %s version %#x data", what, err(r), h.version);
	for (int i = 0; i < 6; i++) printf(" %#x", d[i]);
	printf("\n");
}

static void capset_v(const char *what, uint32_t version, int pid, int word, uint32_t bit) {
	struct {
		uint32_t version;
		int pid;
	} h = {version, pid};
	uint32_t d[6] = {0};
	if (word >= 0) d[word] = bit;
	long r = syscall(SYS_capset, &h, d);
	printf("capset %s: %s version %#x (words %d)\n", what, err(r), h.version, cap_words(version));
}

static volatile int got_sig, got_code, got_pid;
static volatile uint64_t got_value;

static void on_sig(int sig, siginfo_t *si, void *uc) {
	(void)uc;
	got_sig = sig, got_code = si->si_code, got_pid = si->si_pid;
	memcpy((void *)&got_value, (char *)si + 24, sizeof got_value);
}

static void queue(const char *what, int tg, pid_t tgid, pid_t tid, int sig, int code, uint64_t value, int tail) {
	siginfo_t si;
	memset(&si, 0, sizeof si);
	si.si_signo = 999; /* the kernel puts sig there */
	si.si_code = code;
	si.si_pid = 4242;
	memcpy((char *)&si + 24, &value, sizeof value);
	if (tail) ((char *)&si)[100] = 1;
	got_sig = got_code = got_pid = 0, got_value = 0;
	long r = tg ? syscall(SYS_rt_tgsigqueueinfo, tgid, tid, sig, &si) : syscall(SYS_rt_sigqueueinfo, tgid, sig, &si);
	printf("%s: %s; handler: sig %d code %d pid %d value %#llx\n", what, err(r), got_sig, got_code, got_pid,
	       (unsigned long long)got_value);
}

int main(void) {
	pid_t self = getpid();
	struct sched_param sp;

	/* Policies and priorities. */
	CALL("getscheduler 0", syscall(SYS_sched_getscheduler, 0));
	CALL("getscheduler self", syscall(SYS_sched_getscheduler, self));
	CALL("getscheduler -1", syscall(SYS_sched_getscheduler, -1));
	CALL("getscheduler 999999", syscall(SYS_sched_getscheduler, 999999));
	sp.sched_priority = 77;
	CALL("getparam", syscall(SYS_sched_getparam, 0, &sp));
	printf("  priority %d\n", sp.sched_priority);
	CALL("getparam NULL", syscall(SYS_sched_getparam, 0, NULL));
	CALL("getparam bad pointer", syscall(SYS_sched_getparam, 0, (void *)8));
	CALL("getparam -1", syscall(SYS_sched_getparam, -1, &sp));
	CALL("getparam 999999", syscall(SYS_sched_getparam, 999999, &sp));
	for (int pol = -1; pol <= 8; pol++) {
		char what[64];
		snprintf(what, sizeof what, "priority max/min of policy %d", pol);
		long mx = syscall(SYS_sched_get_priority_max, pol);
		long mn = syscall(SYS_sched_get_priority_min, pol);
		if (pol == 7) continue; /* SCHED_EXT: only where the kernel has it */
		printf("%s: %ld %ld %s\n", what, mx, mn, mx < 0 ? err(mx) : "");
	}
	struct timespec ts = {7, 7};
	CALL("rr_get_interval", syscall(SYS_sched_rr_get_interval, 0, &ts));
	printf("  seconds %ld\n", (long)ts.tv_sec);
	CALL("rr_get_interval -1", syscall(SYS_sched_rr_get_interval, -1, &ts));
	CALL("rr_get_interval 999999", syscall(SYS_sched_rr_get_interval, 999999, &ts));
	CALL("rr_get_interval bad pointer", syscall(SYS_sched_rr_get_interval, 0, (void *)8));

	CALL("setscheduler OTHER 0", setsched(0, SCHED_OTHER, 0));
	CALL("setscheduler OTHER 1", setsched(0, SCHED_OTHER, 1));
	CALL("setscheduler FIFO 1", setsched(0, SCHED_FIFO, 1));
	CALL("setscheduler FIFO 0", setsched(0, SCHED_FIFO, 0));
	CALL("setscheduler RR 99", setsched(0, SCHED_RR, 99));
	CALL("setscheduler RR 100", setsched(0, SCHED_RR, 100));
	CALL("setscheduler DEADLINE 0", setsched(0, 6, 0));
	CALL("setscheduler policy 4", setsched(0, 4, 0));
	CALL("setscheduler policy 99", setsched(0, 99, 0));
	CALL("setscheduler policy -2", setsched(0, -2, 0));
	CALL("setscheduler 999999", setsched(999999, SCHED_OTHER, 0));
	CALL("setscheduler -1", setsched(-1, SCHED_OTHER, 0));
	CALL("setscheduler NULL", syscall(SYS_sched_setscheduler, 0, SCHED_OTHER, NULL));
	CALL("setscheduler bad pointer", syscall(SYS_sched_setscheduler, 0, SCHED_OTHER, (void *)8));
	sp.sched_priority = 0;
	CALL("setparam 0", syscall(SYS_sched_setparam, 0, &sp));
	sp.sched_priority = 5;
	CALL("setparam 5", syscall(SYS_sched_setparam, 0, &sp));
	CALL("setparam NULL", syscall(SYS_sched_setparam, 0, NULL));

	/* A child tries what may be set once and not undone. */
	fflush(stdout);
	pid_t child = fork();
	if (child == 0) {
		CALL("child: setscheduler BATCH", setsched(0, SCHED_BATCH, 0));
		CALL("child: getscheduler", syscall(SYS_sched_getscheduler, 0));
		CALL("child: setscheduler IDLE", setsched(0, SCHED_IDLE, 0));
		CALL("child: getscheduler", syscall(SYS_sched_getscheduler, 0));
		CALL("child: setscheduler OTHER from IDLE", setsched(0, SCHED_OTHER, 0));
		CALL("child: setscheduler IDLE|RESET_ON_FORK", setsched(0, SCHED_IDLE | SCHED_RESET_ON_FORK, 0));
		CALL("child: getscheduler", syscall(SYS_sched_getscheduler, 0));
		getattr("child: getattr", 0);
		CALL("child: setscheduler IDLE without RESET_ON_FORK", setsched(0, SCHED_IDLE, 0));
		CALL("child: nice up to 5", setattr(0, 56, SCHED_IDLE, 1, 5, 0));
		getattr("child: getattr", 0);
		fflush(stdout);
		pid_t grandchild = fork();
		if (grandchild == 0) {
			CALL("grandchild: getscheduler", syscall(SYS_sched_getscheduler, 0));
			fflush(stdout);
			_exit(0);
		}
		waitpid(grandchild, NULL, 0);
		_exit(0);
	}
	waitpid(child, NULL, 0);

	/* sched_setattr and sched_getattr. */
	getattr("getattr", 0);
	getattr("getattr self", self);
	struct attr a;
	CALL("getattr size 47", syscall(SYS_sched_getattr, 0, &a, 47, 0));
	CALL("getattr size 48", syscall(SYS_sched_getattr, 0, &a, 48, 0));
	CALL("getattr size 4097", syscall(SYS_sched_getattr, 0, &a, 4097, 0));
	CALL("getattr flags 1", syscall(SYS_sched_getattr, 0, &a, sizeof a, 1));
	CALL("getattr NULL", syscall(SYS_sched_getattr, 0, NULL, sizeof a, 0));
	CALL("getattr -1", syscall(SYS_sched_getattr, -1, &a, sizeof a, 0));
	CALL("getattr 999999", syscall(SYS_sched_getattr, 999999, &a, sizeof a, 0));
	CALL("getattr bad pointer", syscall(SYS_sched_getattr, 0, (void *)8, sizeof a, 0));
	CALL("setattr OTHER", setattr(0, 56, SCHED_OTHER, 0, 0, 0));
	CALL("setattr size 0", setattr(0, 0, SCHED_OTHER, 0, 0, 0));
	CALL("setattr size 48", setattr(0, 48, SCHED_OTHER, 0, 0, 0));
	memset(&a, 0, sizeof a);
	a.size = 30;
	printf("setattr size 30: %s", err(syscall(SYS_sched_setattr, 0, &a, 0)));
	printf(", size written back %u\n", a.size);
	memset(&a, 0, sizeof a);
	a.size = sizeof a, a.more[3] = 1;
	printf("setattr size 72, nonzero tail: %s", err(syscall(SYS_sched_setattr, 0, &a, 0)));
	printf(", size written back %u\n", a.size);
	CALL("setattr size 72, zero tail", setattr(0, sizeof a, SCHED_OTHER, 0, 0, 0));
	CALL("setattr flags arg 1", syscall(SYS_sched_setattr, 0, &a, 1));
	CALL("setattr NULL", syscall(SYS_sched_setattr, 0, NULL, 0));
	CALL("setattr bad pointer", syscall(SYS_sched_setattr, 0, (void *)8, 0));
	CALL("setattr policy -1", setattr(0, 56, (uint32_t)-1, 0, 0, 0));
	CALL("setattr policy 9", setattr(0, 56, 9, 0, 0, 0));
	CALL("setattr sched_flags 0x80", setattr(0, 56, SCHED_OTHER, 0x80, 0, 0));
	CALL("setattr FIFO 10", setattr(0, 56, SCHED_FIFO, 0, 0, 10));
	CALL("setattr DEADLINE zeros", setattr(0, 56, 6, 0, 0, 0));
	memset(&a, 0, sizeof a);
	a.size = 56, a.policy = 6, a.runtime = 10000000, a.deadline = 30000000, a.period = 30000000;
	CALL("setattr DEADLINE valid", syscall(SYS_sched_setattr, 0, &a, 0));
	CALL("setattr nice -1", setattr(0, 56, SCHED_OTHER, 0, -1, 0));
	CALL("setattr nice 3", setattr(0, 56, SCHED_OTHER, 0, 3, 0));
	CALL("getpriority after nice 3", syscall(SYS_getpriority, PRIO_PROCESS, 0));
	CALL("setattr nice 2", setattr(0, 56, SCHED_OTHER, 0, 2, 0));
	CALL("setattr KEEP_PARAMS nice 0", setattr(0, 56, SCHED_BATCH, 0x10, 0, 0));
	getattr("getattr", 0);
	CALL("setattr UTIL_CLAMP", setattr(0, 56, SCHED_OTHER, 0x20, 4, 0));
	CALL("setattr UTIL_CLAMP size 48", setattr(0, 48, SCHED_OTHER, 0x20, 4, 0));
	CALL("setattr KEEP_POLICY nice 4", setattr(0, 56, 0, 0x08, 4, 0));
	getattr("getattr", 0);
	CALL("setattr nice 40 (clamped to 19)", setattr(0, 56, SCHED_OTHER, 0, 40, 0));
	getattr("getattr", 0);

	/* Nice values: up only. */
	CALL("getpriority", syscall(SYS_getpriority, PRIO_PROCESS, 0));
	CALL("getpriority self", syscall(SYS_getpriority, PRIO_PROCESS, self));
	setpgid(0, 0); /* its own group: no other process's nice value in it */
	CALL("getpriority pgrp", syscall(SYS_getpriority, PRIO_PGRP, 0));
	CALL("getpriority which 3", syscall(SYS_getpriority, 3, 0));
	CALL("getpriority which -1", syscall(SYS_getpriority, -1, 0));
	CALL("getpriority 999999", syscall(SYS_getpriority, PRIO_PROCESS, 999999));
	CALL("getpriority pgrp 999999", syscall(SYS_getpriority, PRIO_PGRP, 999999));
	CALL("getpriority user 4242", syscall(SYS_getpriority, PRIO_USER, 4242));
	CALL("setpriority 19", syscall(SYS_setpriority, PRIO_PROCESS, 0, 19));
	CALL("setpriority 18", syscall(SYS_setpriority, PRIO_PROCESS, 0, 18));
	CALL("setpriority 100", syscall(SYS_setpriority, PRIO_PROCESS, 0, 100));
	CALL("getpriority", syscall(SYS_getpriority, PRIO_PROCESS, 0));
	CALL("setpriority which 3", syscall(SYS_setpriority, 3, 0, 19));
	CALL("setpriority 999999", syscall(SYS_setpriority, PRIO_PROCESS, 999999, 19));
	CALL("setpriority user 4242", syscall(SYS_setpriority, PRIO_USER, 4242, 19));

	/* getcpu. */
	unsigned cpu = 77, node = 77;
	CALL("getcpu", syscall(SYS_getcpu, &cpu, &node, NULL));
	/* The CPU it ran on: natively any of them. */
	printf("  cpu among the online CPUs %d, node %u\n", cpu < (unsigned)sysconf(_SC_NPROCESSORS_ONLN), node);
	CALL("getcpu NULL NULL", syscall(SYS_getcpu, NULL, NULL, NULL));
	CALL("getcpu bad cpu pointer", syscall(SYS_getcpu, (void *)8, &node, NULL));
	CALL("getcpu bad node pointer", syscall(SYS_getcpu, &cpu, (void *)8, NULL));

	/* personality. */
	CALL("personality query", syscall(SYS_personality, 0xffffffff));
	CALL("personality ADDR_NO_RANDOMIZE", syscall(SYS_personality, 0x0040000));
	CALL("personality query", syscall(SYS_personality, 0xffffffff));
	CALL("personality PER_LINUX", syscall(SYS_personality, 0));
	CALL("personality query", syscall(SYS_personality, 0xffffffff));

	/* Capabilities. */
	capget_v("v3", 0x20080522, 0);
	capget_v("v2", 0x20071026, 0);
	capget_v("v1", 0x19980330, 0);
	capget_v("v3 self", 0x20080522, self);
	capget_v("bad version", 0x12345678, 0);
	capget_v("v3 pid -1", 0x20080522, -1);
	capget_v("v3 pid 999999", 0x20080522, 999999);
	{
		struct {
			uint32_t version;
			int pid;
		} h = {0x12345678, 0};
		long r = syscall(SYS_capget, &h, NULL);
		printf("capget bad version, NULL data: %s version %#x\n", err(r), h.version);
		h.version = 0x20080522;
		r = syscall(SYS_capget, &h, NULL);
		printf("capget v3, NULL data: %s\n", err(r));
		r = syscall(SYS_capget, &h, (void *)8);
		printf("capget v3, bad data: %s\n", err(r));
	}
	CALL("capget bad header", syscall(SYS_capget, (void *)8, NULL));
	capset_v("v3 nothing", 0x20080522, 0, -1, 0);
	capset_v("v1 nothing", 0x19980330, 0, -1, 0);
	capset_v("v3 self nothing", 0x20080522, self, -1, 0);
	capset_v("v3 effective CAP_CHOWN", 0x20080522, 0, 0, 1);
	capset_v("v3 permitted CAP_KILL", 0x20080522, 0, 1, 1 << 5);
	capset_v("v3 inheritable CAP_SETUID", 0x20080522, 0, 2, 1 << 7);
	capset_v("v3 effective of the 2nd word", 0x20080522, 0, 3, 1);
	capset_v("v3 pid 1", 0x20080522, 1, -1, 0);
	capset_v("bad version", 0x12345678, 0, -1, 0);
	CALL("capset bad data", syscall(SYS_capset, &(struct { uint32_t v; int p; }){0x20080522, 0}, (void *)8));

	/* get_robust_list: as set_robust_list set it. */
	struct {
		void *next;
		long offset;
		void *pending;
	} head = {&head, 0, NULL};
	void *got = (void *)1;
	size_t len = 1;
	CALL("set_robust_list", syscall(SYS_set_robust_list, &head, sizeof head));
	CALL("get_robust_list", syscall(SYS_get_robust_list, 0, &got, &len));
	printf("  same head %d, len %zu\n", got == (void *)&head, len);
	CALL("get_robust_list self", syscall(SYS_get_robust_list, self, &got, &len));
	CALL("get_robust_list 999999", syscall(SYS_get_robust_list, 999999, &got, &len));
	CALL("get_robust_list -1", syscall(SYS_get_robust_list, -1, &got, &len));
	CALL("get_robust_list bad head pointer", syscall(SYS_get_robust_list, 0, (void *)8, &len));
	CALL("get_robust_list bad len pointer", syscall(SYS_get_robust_list, 0, &got, (void *)8));
	CALL("set_robust_list bad size", syscall(SYS_set_robust_list, &head, 7));

	/* rt_sigqueueinfo and rt_tgsigqueueinfo. */
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_sig;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGRTMIN + 1, &sa, NULL);
	pid_t tid = (pid_t)syscall(SYS_gettid);
	queue("sigqueueinfo SI_QUEUE to itself", 0, self, 0, SIGUSR1, SI_QUEUE, 0xabcdef, 0);
	queue("sigqueueinfo rt SI_QUEUE", 0, self, 0, SIGRTMIN + 1, SI_QUEUE, 0x1234, 0);
	queue("sigqueueinfo SI_USER to itself", 0, self, 0, SIGUSR1, SI_USER, 1, 0);
	queue("sigqueueinfo SI_KERNEL to itself", 0, self, 0, SIGUSR1, SI_KERNEL, 2, 0);
	queue("sigqueueinfo SI_TKILL to itself", 0, self, 0, SIGUSR1, SI_TKILL, 3, 0);
	queue("sigqueueinfo signal 0", 0, self, 0, 0, SI_QUEUE, 4, 0);
	queue("sigqueueinfo signal 65", 0, self, 0, 65, SI_QUEUE, 5, 0);
	queue("sigqueueinfo signal -1", 0, self, 0, -1, SI_QUEUE, 5, 0);
	queue("sigqueueinfo to 999999", 0, 999999, 0, SIGUSR1, SI_QUEUE, 6, 0);
	queue("sigqueueinfo to 0", 0, 0, 0, SIGUSR1, SI_QUEUE, 6, 0);
	queue("sigqueueinfo SI_USER to 999999", 0, 999999, 0, SIGUSR1, SI_USER, 7, 0);
	queue("sigqueueinfo code -100, tail set", 0, self, 0, SIGUSR1, -100, 8, 1);
	queue("sigqueueinfo code -100, no tail", 0, self, 0, SIGUSR1, -100, 9, 0);
	queue("sigqueueinfo SI_QUEUE, tail set", 0, self, 0, SIGUSR1, SI_QUEUE, 10, 1);
	CALL("sigqueueinfo bad pointer", syscall(SYS_rt_sigqueueinfo, self, SIGUSR1, (void *)8));
	queue("tgsigqueueinfo SI_QUEUE", 1, self, tid, SIGUSR1, SI_QUEUE, 11, 0);
	queue("tgsigqueueinfo SI_USER to itself", 1, self, tid, SIGUSR1, SI_USER, 12, 0);
	queue("tgsigqueueinfo tid 0", 1, self, 0, SIGUSR1, SI_QUEUE, 13, 0);
	queue("tgsigqueueinfo tgid 0", 1, 0, tid, SIGUSR1, SI_QUEUE, 14, 0);
	queue("tgsigqueueinfo tid 999999", 1, self, 999999, SIGUSR1, SI_QUEUE, 15, 0);
	queue("tgsigqueueinfo signal 65", 1, self, tid, 65, SI_QUEUE, 16, 0);
	CALL("tgsigqueueinfo bad pointer", syscall(SYS_rt_tgsigqueueinfo, self, tid, SIGUSR1, (void *)8));
	fflush(stdout);
	child = fork();
	if (child == 0) {
		pid_t parent = getppid();
		queue("child: sigqueueinfo SI_USER to the parent", 0, parent, 0, 0, SI_USER, 0, 0);
		queue("child: sigqueueinfo SI_QUEUE to the parent, signal 0", 0, parent, 0, 0, SI_QUEUE, 0, 0);
		queue("child: tgsigqueueinfo SI_USER to the parent", 1, parent, parent, 0, SI_USER, 0, 0);
		fflush(stdout);
		_exit(0);
	}
	waitpid(child, NULL, 0);
	printf("done\n");
	return 0;
}
