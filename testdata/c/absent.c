/* The system calls of kernel/sys_absent.go: privileged ones, which Linux
 * refuses to a process of uid 1000 without capabilities, and facilities
 * icount does not have, which it answers as a kernel built without them.
 * Each line is a call (made with syscall(2), ordinary and edge arguments)
 * and its result, a number or the errno's name.
 *
 * The first section is what every Linux gives an unprivileged process:
 * cmd/icount/absent_test.go compares it natively (or under qemu-aarch64)
 * and under icount. With the argument "configured" a second section
 * follows, of calls whose native answer depends on how the kernel was
 * built and configured (io_uring, SysV IPC, sysctls such as
 * dmesg_restrict): the test compares icount's answers with the choices
 * kernel/sys_absent.go documents. With "stop NAME" it makes the form of
 * NAME icount does not answer (adjtimex, clock_adjtime: a read of the
 * clock's NTP state; open_tree: an O_PATH descriptor). Run as root, the program first becomes
 * uid and gid 1000 and checks that it has no privilege left: it never
 * makes these calls privileged.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "errname.h"

/* Numbers older headers (musl's, the cross glibc's) may lack: the same
 * on both arches from 424 on. */
/* The arm64 build's judge, qemu-user 7.2, aborts on settimeofday(NULL,
 * NULL) (that case runs in the amd64 builds only), and lacks or answers
 * otherwise than Linux the new mount API, ptrace, pkeys, some of
 * unshare's checks, ioprio for a process group (its own threads are in
 * it) and the order of setgroups' and clock_settime's checks: the arm64
 * build prints those cases (CALLQ) with a "~ " before the name, and the
 * test compares them with the amd64 build's native answers. */
#ifdef __x86_64__
#define JUDGED_NATIVELY 1
#define CALLQ CALL
#define CALLQ_SHOW show
#else
#define CALLQ(what, ...) CALL("~ " what, __VA_ARGS__)
#define CALLQ_SHOW(what, r) show("~ " what, r)
#endif
#define NR_pidfd_send_signal 424
#define NR_io_uring_setup 425
#define NR_io_uring_enter 426
#define NR_io_uring_register 427
#define NR_open_tree 428
#define NR_move_mount 429
#define NR_fsopen 430
#define NR_fsconfig 431
#define NR_fsmount 432
#define NR_fspick 433
#define NR_pidfd_open 434
#define NR_pidfd_getfd 438
#define NR_process_madvise 440
#define NR_mount_setattr 442
#define NR_quotactl_fd 443
#define NR_landlock_create_ruleset 444
#define NR_landlock_add_rule 445
#define NR_landlock_restrict_self 446
#define NR_memfd_secret 447
#define NR_process_mrelease 448
#define NR_futex_waitv 449
#define NR_set_mempolicy_home_node 450
#ifdef __x86_64__
#define NR_nfsservctl 180
#define NR_lookup_dcookie 212
#else
#define NR_nfsservctl 42
#define NR_lookup_dcookie 18
#endif

static void show(const char *what, long r)
{
	if (r < 0)
		printf("%s: %s\n", what, ename(errno));
	else
		printf("%s: %ld\n", what, r);
}

#define CALL(what, ...) show(what, syscall(__VA_ARGS__))

static char *bad; /* an unmapped page */

static void mountapi(void)
{
	printf("-- mount api\n");
	int dir = open("/", O_RDONLY | O_DIRECTORY);
	CALLQ("open_tree CLONE", NR_open_tree, AT_FDCWD, "/", 1 /* OPEN_TREE_CLONE */);
	CALLQ("open_tree bad flag", NR_open_tree, AT_FDCWD, "/", 0x4);
	CALLQ("open_tree RECURSIVE without CLONE", NR_open_tree, AT_FDCWD, "/", 0x8000 /* AT_RECURSIVE */);
	CALLQ("move_mount", NR_move_mount, AT_FDCWD, "/", AT_FDCWD, "/", 0);
	CALLQ("fsopen", NR_fsopen, "tmpfs", 0);
	CALLQ("fsopen bad flag", NR_fsopen, "tmpfs", 2);
	CALLQ("fsmount", NR_fsmount, 0, 0, 0);
	CALLQ("fspick", NR_fspick, AT_FDCWD, "/", 0);
	CALLQ("fsconfig CREATE on a directory", NR_fsconfig, dir, 6 /* FSCONFIG_CMD_CREATE */, NULL, NULL, 0);
	CALLQ("fsconfig CREATE closed fd", NR_fsconfig, 99, 6, NULL, NULL, 0);
	CALLQ("fsconfig fd -1", NR_fsconfig, -1, 6, NULL, NULL, 0);
	CALLQ("fsconfig CREATE with a key", NR_fsconfig, 99, 6, "k", NULL, 0);
	CALLQ("fsconfig SET_FLAG", NR_fsconfig, dir, 0 /* FSCONFIG_SET_FLAG */, "ro", NULL, 0);
	CALLQ("fsconfig SET_FLAG no key", NR_fsconfig, dir, 0, NULL, NULL, 0);
	CALLQ("fsconfig SET_STRING", NR_fsconfig, 99, 1, "k", "v", 0);
	CALLQ("fsconfig SET_BINARY aux 0", NR_fsconfig, 99, 2, "k", "v", 0);
	CALLQ("fsconfig SET_FD", NR_fsconfig, 99, 5, "k", NULL, 0);
	CALLQ("fsconfig bad cmd", NR_fsconfig, dir, 99, NULL, NULL, 0);
	struct { uint64_t set, clr, prop, userns; } attr = {0};
	CALLQ("mount_setattr", NR_mount_setattr, AT_FDCWD, "/", 0, &attr, sizeof attr);
	CALLQ("mount_setattr bad flag", NR_mount_setattr, AT_FDCWD, "/", 1, &attr, sizeof attr);
	CALLQ("mount_setattr size 0", NR_mount_setattr, AT_FDCWD, "/", 0, &attr, 0);
	CALLQ("mount_setattr size 8192", NR_mount_setattr, AT_FDCWD, "/", 0, &attr, 8192);

	close(dir);
}

static void privileged(void)
{
	printf("-- mounts\n");
	CALL("mount", SYS_mount, "none", "/", "tmpfs", 0, NULL);
	CALL("mount missing dir", SYS_mount, "none", "/absent-missing", "tmpfs", 0, NULL);
	CALL("mount dir a file", SYS_mount, "none", "/proc/self/exe/x", "tmpfs", 0, NULL);
	CALL("mount bad dir", SYS_mount, "none", bad, "tmpfs", 0, NULL);
	CALL("mount bad type", SYS_mount, "none", "/", bad, 0, NULL);
	CALL("mount bad source", SYS_mount, bad, "/", "tmpfs", 0, NULL);
	CALL("mount bad data", SYS_mount, "none", "/", "tmpfs", 0, bad);
	CALL("mount NULLs", SYS_mount, NULL, "/", NULL, 32 /* MS_REMOUNT */, NULL);
	CALL("umount2", SYS_umount2, "/", 0);
	CALL("umount2 MNT_DETACH", SYS_umount2, "/absent-missing", 2 /* MNT_DETACH */);
	CALL("umount2 bad flag", SYS_umount2, "/", 0x100);
	CALL("pivot_root", SYS_pivot_root, ".", ".");
	CALL("chroot /", SYS_chroot, "/");
	CALL("chroot missing", SYS_chroot, "/absent-missing");
	CALL("chroot a file", SYS_chroot, "/proc/self/exe");
	CALL("chroot bad path", SYS_chroot, bad);
	int dir = open("/", O_RDONLY | O_DIRECTORY);
	printf("-- system\n");
	CALL("swapon", SYS_swapon, "/absent-missing", 0);
	CALL("swapon bad flags", SYS_swapon, "/absent-missing", 0x80000);
	CALL("swapoff", SYS_swapoff, "/absent-missing");
	/* Bad magic numbers: EINVAL even for root, after the privilege check. */
	CALL("reboot", SYS_reboot, 0, 0, 0, NULL);
	CALL("sethostname", SYS_sethostname, "x", 1);
	CALL("sethostname too long", SYS_sethostname, "x", 100);
	CALL("setdomainname", SYS_setdomainname, "x", 1);
	CALL("setdomainname too long", SYS_setdomainname, "x", 100);
	CALL("setgroups none", SYS_setgroups, 0, NULL);
	CALLQ("setgroups too many", SYS_setgroups, 100000, NULL);
	CALL("vhangup", SYS_vhangup);
	CALL("acct", SYS_acct, NULL);
	CALL("acct a file", SYS_acct, "/absent-missing");
	CALL("lookup_dcookie", NR_lookup_dcookie, 0, NULL, 0);
	CALL("nfsservctl", NR_nfsservctl, 0, NULL, NULL);

	printf("-- clocks\n");
	struct timeval tv = {1000000000, 0};
	struct timeval tvbad = {1000000000, 1000001};
	struct timeval tvneg = {-1, 0};
	struct timezone tz = {0, 0};
	CALL("settimeofday", SYS_settimeofday, &tv, NULL);
#ifdef JUDGED_NATIVELY
	CALL("settimeofday NULL NULL", SYS_settimeofday, NULL, NULL); /* qemu-user 7.2 aborts */
#endif
	CALL("settimeofday tz", SYS_settimeofday, NULL, &tz);
	CALL("settimeofday usec 1000001", SYS_settimeofday, &tvbad, NULL);
	CALL("settimeofday sec -1", SYS_settimeofday, &tvneg, NULL);
	CALL("settimeofday bad tv", SYS_settimeofday, bad, NULL);
	CALL("settimeofday bad tz", SYS_settimeofday, &tv, bad);
	struct timespec ts = {1000000000, 0};
	struct timespec tsbad = {1000000000, 1000000000};
	CALL("clock_settime REALTIME", SYS_clock_settime, CLOCK_REALTIME, &ts);
	CALL("clock_settime REALTIME nsec 1e9", SYS_clock_settime, CLOCK_REALTIME, &tsbad);
	CALL("clock_settime REALTIME bad", SYS_clock_settime, CLOCK_REALTIME, bad);
	CALL("clock_settime MONOTONIC", SYS_clock_settime, CLOCK_MONOTONIC, &ts);
	CALLQ("clock_settime MONOTONIC bad", SYS_clock_settime, CLOCK_MONOTONIC, bad);
	CALL("clock_settime PROCESS_CPUTIME", SYS_clock_settime, CLOCK_PROCESS_CPUTIME_ID, &ts);
	CALLQ("clock_settime THREAD_CPUTIME bad", SYS_clock_settime, CLOCK_THREAD_CPUTIME_ID, bad);
	CALL("clock_settime BOOTTIME", SYS_clock_settime, CLOCK_BOOTTIME, &ts);
	CALL("clock_settime TAI", SYS_clock_settime, CLOCK_TAI, &ts);
	CALL("clock_settime 12", SYS_clock_settime, 12, &ts);
	CALL("clock_settime own process CPU clock", SYS_clock_settime, -6 /* pid 0, CPUCLOCK_SCHED */, &ts);
	CALLQ("clock_settime own process CPU clock nsec 1e9", SYS_clock_settime, -6, &tsbad);
	CALL("clock_settime own process CPU clock bad", SYS_clock_settime, -6, bad);
	CALL("clock_settime CPU clock of no process", SYS_clock_settime, -7999998 /* pid 999999 */, &ts);
	CALL("clock_settime CPU clock type 3", SYS_clock_settime, -5, &ts);
	CALL("clock_settime fd clock", SYS_clock_settime, -797 /* fd 99 */, &ts);
	CALL("clock_settime fd clock bad", SYS_clock_settime, -797, bad);
	struct { unsigned modes; char rest[204]; } tx = {0};
	tx.modes = 0x0002; /* ADJ_FREQUENCY */
	CALL("adjtimex ADJ_FREQUENCY", SYS_adjtimex, &tx);
	CALL("adjtimex bad", SYS_adjtimex, bad);
	tx.modes = 0x8000; /* ADJ_ADJTIME alone */
	CALL("adjtimex ADJ_ADJTIME without SINGLESHOT", SYS_adjtimex, &tx);
	tx.modes = 0x8001; /* ADJ_OFFSET_SINGLESHOT */
	CALL("adjtimex ADJ_OFFSET_SINGLESHOT", SYS_adjtimex, &tx);
	tx.modes = 0x0002;
	CALL("clock_adjtime REALTIME ADJ_FREQUENCY", SYS_clock_adjtime, CLOCK_REALTIME, &tx);
	CALL("clock_adjtime REALTIME bad", SYS_clock_adjtime, CLOCK_REALTIME, bad);
	CALL("clock_adjtime MONOTONIC", SYS_clock_adjtime, CLOCK_MONOTONIC, &tx);
	CALL("clock_adjtime PROCESS_CPUTIME", SYS_clock_adjtime, CLOCK_PROCESS_CPUTIME_ID, &tx);
	CALL("clock_adjtime 12", SYS_clock_adjtime, 12, &tx);
	CALL("clock_adjtime 10", SYS_clock_adjtime, 10, &tx);
	CALL("clock_adjtime BOOTTIME_ALARM", SYS_clock_adjtime, 9, &tx);
	CALL("clock_adjtime TAI", SYS_clock_adjtime, CLOCK_TAI, &tx);
	CALL("clock_adjtime own process CPU clock", SYS_clock_adjtime, -6, &tx);
	CALL("clock_adjtime fd clock", SYS_clock_adjtime, -797, &tx);
	CALL("clock_adjtime fd clock bad", SYS_clock_adjtime, -797, bad);
	CALL("clock_adjtime MONOTONIC bad", SYS_clock_adjtime, CLOCK_MONOTONIC, bad);

	printf("-- processes\n");
	CALLQ("ptrace PEEKDATA of itself", SYS_ptrace, 2 /* PTRACE_PEEKDATA */, getpid(), 0, 0);
	CALLQ("ptrace ATTACH to itself", SYS_ptrace, 16 /* PTRACE_ATTACH */, getpid(), 0, 0);
	CALLQ("ptrace SEIZE itself with addr", SYS_ptrace, 0x4206 /* PTRACE_SEIZE */, getpid(), 1, 0);
	CALLQ("ptrace PEEKDATA of no process", SYS_ptrace, 2, 999999, 0, 0);
	CALLQ("ptrace ATTACH to no process", SYS_ptrace, 16, 999999, 0, 0);
	CALLQ("ptrace ATTACH to pid 0", SYS_ptrace, 16, 0, 0, 0);
	CALLQ("ptrace KILL of itself", SYS_ptrace, 8 /* PTRACE_KILL */, getpid(), 0, 0);
	CALLQ("ptrace SEIZE itself bad options", SYS_ptrace, 0x4206, getpid(), 0, 0x80000000L);
	CALLQ("ptrace SEIZE itself", SYS_ptrace, 0x4206, getpid(), 0, 0);
	CALL("unshare 0", SYS_unshare, 0);
	CALL("unshare FILES|FS|SYSVSEM", SYS_unshare, CLONE_FILES | CLONE_FS | CLONE_SYSVSEM);
	CALLQ("unshare THREAD|SIGHAND|VM", SYS_unshare, CLONE_THREAD | CLONE_SIGHAND | CLONE_VM);
	CALL("unshare NEWNS", SYS_unshare, CLONE_NEWNS);
	CALL("unshare NEWUTS|NEWIPC", SYS_unshare, CLONE_NEWUTS | CLONE_NEWIPC);
	CALL("unshare NEWNET", SYS_unshare, CLONE_NEWNET);
	CALL("unshare NEWPID", SYS_unshare, CLONE_NEWPID);
	CALL("unshare bad flag", SYS_unshare, 0x1);
	CALL("unshare NEWTIME|NEWCGROUP", SYS_unshare, 0x80 | 0x02000000);
	CALL("unshare CLONE_VFORK", SYS_unshare, 0x4000);
	/* A vfork child shares its parent's memory: it cannot unshare it.
	 * (qemu-user makes vfork a fork: the parent sees nothing.) */
	static volatile long vr = 1;
	static volatile int ve;
	if (vfork() == 0) {
		vr = syscall(SYS_unshare, CLONE_VM);
		ve = errno;
		_exit(0);
	}
	errno = ve;
	CALLQ_SHOW("unshare VM in a vfork child", vr);
	CALL("setns closed fd", SYS_setns, 99, 0);
	CALL("setns a directory", SYS_setns, dir, 0);
	CALL("setns a directory NEWNS", SYS_setns, dir, CLONE_NEWNS);
	close(dir);

	printf("-- identity\n");
	CALL("setreuid -1 -1", SYS_setreuid, -1, -1);
	CALL("setreuid own", SYS_setreuid, 1000, 1000);
	CALL("setreuid root", SYS_setreuid, 0, -1);
	CALL("setreuid effective root", SYS_setreuid, -1, 0);
	CALL("setregid own", SYS_setregid, 1000, -1);
	CALL("setregid root", SYS_setregid, -1, 0);
	CALL("setfsuid root", SYS_setfsuid, 0);
	CALL("setfsuid own", SYS_setfsuid, 1000);
	CALL("setfsuid -1", SYS_setfsuid, -1);
	CALL("setfsgid root", SYS_setfsgid, 0);
	CALL("setfsgid own", SYS_setfsgid, 1000);

	printf("-- io priorities\n");
	const long idle = 3 << 13, be2 = 2 << 13 | 2;
	CALL("ioprio_get which 4", SYS_ioprio_get, 4, 0);
	CALL("ioprio_get no process", SYS_ioprio_get, 1, 999999);
	CALL("ioprio_set RT", SYS_ioprio_set, 1, 0, 1 << 13 | 4);
	CALL("ioprio_set class 4", SYS_ioprio_set, 1, 0, 4 << 13);
	CALL("ioprio_set NONE level 1", SYS_ioprio_set, 1, 0, 1);
	CALL("ioprio_set which 4", SYS_ioprio_set, 4, 0, idle);
	CALL("ioprio_set no process", SYS_ioprio_set, 1, 999999, idle);
	CALL("ioprio_set IDLE", SYS_ioprio_set, 1, 0, idle);
	CALL("ioprio_get", SYS_ioprio_get, 1, 0);
	CALL("ioprio_get by pid", SYS_ioprio_get, 1, getpid());
	pid_t kid = fork();
	if (kid == 0) {
		CALL("ioprio_get in a child", SYS_ioprio_get, 1, 0);
		_exit(0);
	}
	waitpid(kid, NULL, 0);
	CALL("ioprio_set BE 2", SYS_ioprio_set, 1, 0, be2);
	CALL("ioprio_get", SYS_ioprio_get, 1, 0);
	CALL("ioprio_set NONE", SYS_ioprio_set, 1, 0, 0);
	CALL("ioprio_get", SYS_ioprio_get, 1, 0);
	kid = fork();
	if (kid == 0) { /* class NONE is not inherited: no I/O context */
		CALL("ioprio_get in a child of class NONE", SYS_ioprio_get, 1, 0);
		_exit(0);
	}
	waitpid(kid, NULL, 0);
	CALLQ("ioprio_set own group IDLE", SYS_ioprio_set, 2, 0, idle);
	CALLQ("ioprio_get own group", SYS_ioprio_get, 2, 0);
	CALLQ("ioprio_get group by id", SYS_ioprio_get, 2, getpgrp());
	CALL("ioprio_get", SYS_ioprio_get, 1, 0);

	printf("-- memory\n");
	char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	p[0] = 1;
	CALLQ("pkey_mprotect key -1", SYS_pkey_mprotect, p, 4096, PROT_READ, -1);
	CALLQ("pkey_mprotect key -1 misaligned", SYS_pkey_mprotect, p + 1, 4096, PROT_READ, -1);
	CALLQ("pkey_mprotect key 1", SYS_pkey_mprotect, p, 4096, PROT_READ, 1);
	CALLQ("pkey_mprotect key 1 length 0", SYS_pkey_mprotect, p, 0, PROT_READ, 1);
	CALLQ("pkey_mprotect key 1 misaligned", SYS_pkey_mprotect, p + 1, 4096, PROT_READ, 1);
	CALLQ("pkey_mprotect key 1 bad prot", SYS_pkey_mprotect, p, 4096, 0x100, 1);
	CALLQ("pkey_free 1", SYS_pkey_free, 1);
	CALLQ("pkey_free -1", SYS_pkey_free, -1);
	munmap(p, 8192);
#ifdef __x86_64__
	struct stat st;
	char ust[32];
	stat("/", &st);
	CALL("ustat of /", SYS_ustat, (unsigned)st.st_dev, ust);
	CALL("ustat bad buffer", SYS_ustat, (unsigned)st.st_dev, bad);
	CALL("ustat no device", SYS_ustat, 0xfff00, ust);
#endif
}

/* Calls whose native answer depends on the kernel's build and
 * configuration: icount answers them as kernel/sys_absent.go documents. */
static void configured(void)
{
	printf("-- configured\n");
	CALL("init_module", SYS_init_module, NULL, 0, "");
	CALL("finit_module", SYS_finit_module, 0, "", 0);
	CALL("delete_module", SYS_delete_module, "absent", 0);
	CALL("kexec_load", SYS_kexec_load, 0, 0, NULL, 0);
	CALL("kexec_file_load", SYS_kexec_file_load, -1, -1, 0, "", 0);
#ifdef __x86_64__
	CALL("iopl 0", SYS_iopl, 0);
	CALL("iopl 3", SYS_iopl, 3);
	CALL("iopl 4", SYS_iopl, 4);
	CALL("ioperm off", SYS_ioperm, 0x80, 1, 0);
	CALL("ioperm on", SYS_ioperm, 0x80, 1, 1);
	CALL("ioperm past the end", SYS_ioperm, 0xffff, 2, 1);
	CALL("ioperm wrap", SYS_ioperm, -1L, 2, 0);
#endif
	CALL("ioprio_get own user", SYS_ioprio_get, 3, 0); /* natively, every process of uid 1000 */
	CALL("io_setup", SYS_io_setup, 1, &(long){0});
	CALL("io_destroy", SYS_io_destroy, 0);
	CALL("io_submit", SYS_io_submit, 0, 0, NULL);
	CALL("io_cancel", SYS_io_cancel, 0, NULL, NULL);
	CALL("io_getevents", SYS_io_getevents, 0, 0, 0, NULL, NULL);
	CALL("io_pgetevents", SYS_io_pgetevents, 0, 0, 0, NULL, NULL, NULL);
	char params[120] = {0};
	CALL("io_uring_setup", NR_io_uring_setup, 1, params);
	CALL("io_uring_enter", NR_io_uring_enter, 0, 0, 0, 0, NULL, 0);
	CALL("io_uring_register", NR_io_uring_register, 0, 0, NULL, 0);
	CALL("shmget size 0", SYS_shmget, 0 /* IPC_PRIVATE */, 0, 0600);
	CALL("shmat", SYS_shmat, -1, NULL, 0);
	CALL("shmctl", SYS_shmctl, -1, 2 /* IPC_STAT */, NULL);
	CALL("shmdt", SYS_shmdt, NULL);
	CALL("semget nsems -1", SYS_semget, 0, -1, 0600);
	CALL("semop", SYS_semop, -1, NULL, 0);
	CALL("semctl", SYS_semctl, -1, 0, 2 /* IPC_STAT */, NULL);
	CALL("semtimedop", SYS_semtimedop, -1, NULL, 0, NULL);
	CALL("msgget missing key", SYS_msgget, 0x41627365, 0600);
	CALL("msgsnd", SYS_msgsnd, -1, NULL, 0, 0);
	CALL("msgrcv", SYS_msgrcv, -1, NULL, 0, 0, 0);
	CALL("msgctl", SYS_msgctl, -1, 2, NULL);
	CALL("mq_open", SYS_mq_open, "absent", O_RDONLY, 0, NULL);
	CALL("mq_unlink", SYS_mq_unlink, "absent");
	CALL("mq_timedsend", SYS_mq_timedsend, 0, "", 0, 0, NULL);
	CALL("mq_timedreceive", SYS_mq_timedreceive, 0, NULL, 0, NULL, NULL);
	CALL("mq_notify", SYS_mq_notify, 0, NULL);
	CALL("mq_getsetattr", SYS_mq_getsetattr, 0, NULL, NULL);
	CALL("add_key", SYS_add_key, "user", "absent", "x", 1, 0);
	CALL("request_key", SYS_request_key, "user", "absent", NULL, 0);
	CALL("keyctl", SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -3, 0);
	CALL("mbind", SYS_mbind, NULL, 0, 0, NULL, 0, 0);
	CALL("set_mempolicy", SYS_set_mempolicy, 0, NULL, 0);
	CALL("get_mempolicy", SYS_get_mempolicy, NULL, NULL, 0, NULL, 0);
	CALL("migrate_pages", SYS_migrate_pages, 0, 0, NULL, NULL);
	CALL("move_pages", SYS_move_pages, 0, 0, NULL, NULL, NULL, 0);
	CALL("set_mempolicy_home_node", NR_set_mempolicy_home_node, 0, 0, 0, 0);
	CALL("landlock_create_ruleset", NR_landlock_create_ruleset, NULL, 0, 1 /* VERSION */);
	CALL("landlock_add_rule", NR_landlock_add_rule, -1, 1, NULL, 0);
	CALL("landlock_restrict_self", NR_landlock_restrict_self, -1, 0);
	CALL("seccomp", SYS_seccomp, 0 /* SECCOMP_SET_MODE_STRICT */, 1, NULL);
	CALL("memfd_secret", NR_memfd_secret, 0);
	CALL("futex_waitv", NR_futex_waitv, NULL, 0, 0, NULL, 0);
	CALL("pidfd_open", NR_pidfd_open, getpid(), 0);
	CALL("pidfd_send_signal", NR_pidfd_send_signal, 0, 0, NULL, 0);
	CALL("pidfd_getfd", NR_pidfd_getfd, 0, 0, 0);
	CALL("process_madvise", NR_process_madvise, 0, NULL, 0, 0, 0);
	CALL("process_mrelease", NR_process_mrelease, 0, 0);
	CALL("process_vm_readv", SYS_process_vm_readv, getpid(), NULL, 0, NULL, 0, 0);
	CALL("process_vm_writev", SYS_process_vm_writev, getpid(), NULL, 0, NULL, 0, 0);
	CALL("kcmp", SYS_kcmp, getpid(), getpid(), 0 /* KCMP_FILE */, 1, 1);
	CALL("fanotify_init", SYS_fanotify_init, 0, O_RDONLY);
	CALL("fanotify_mark", SYS_fanotify_mark, 0, 0, 0, AT_FDCWD, "/");
	char handle[136] = {0};
	int mnt;
	CALL("name_to_handle_at", SYS_name_to_handle_at, AT_FDCWD, "/", handle, &mnt, 0);
	CALL("open_by_handle_at", SYS_open_by_handle_at, AT_FDCWD, handle, O_RDONLY);
	CALL("quotactl", SYS_quotactl, 0x800007 /* Q_GETQUOTA */, "/", getuid(), handle);
	CALL("quotactl_fd", NR_quotactl_fd, 0, 0x800007, getuid(), handle);
	CALL("userfaultfd", SYS_userfaultfd, 0);
	CALL("bpf", SYS_bpf, 5 /* BPF_PROG_LOAD */, params, 120);
	char pattr[128] = {0};
	CALL("perf_event_open", SYS_perf_event_open, pattr, 0, -1, -1, 0);
	char log[16];
	CALL("syslog SIZE_BUFFER", SYS_syslog, 10, NULL, 0);
	CALL("syslog READ_ALL", SYS_syslog, 3, log, sizeof log);
	CALL("syslog OPEN", SYS_syslog, 1, NULL, 0);
	CALL("pkey_alloc", SYS_pkey_alloc, 0, 0);
	CALL("pkey_alloc bad flags", SYS_pkey_alloc, 1, 0);
	CALL("pkey_alloc bad rights", SYS_pkey_alloc, 0, 0x10);
#ifdef __x86_64__
	CALL("sysfs", SYS_sysfs, 3 /* the number of file system types */);
#endif
	pid_t child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	CALL("ptrace ATTACH to a child", SYS_ptrace, 16, child, 0, 0);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	/* Last: natively these change the process. */
	CALL("ptrace TRACEME", SYS_ptrace, 0 /* PTRACE_TRACEME */, 0, 0, 0);
	CALL("unshare NEWUSER", SYS_unshare, CLONE_NEWUSER);
}

int main(int argc, char **argv)
{
	if (getuid() == 0) {
		/* The judge runs as the unprivileged user icount's guest is. */
		if (setgroups(0, NULL) < 0 || setgid(1000) < 0 || setuid(1000) < 0) {
			perror("dropping privileges");
			return 1;
		}
	}
	if (geteuid() == 0 || setuid(0) == 0) {
		fprintf(stderr, "absent: still privileged, refusing to run\n");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	setpgid(0, 0); /* a process group of its own, for ioprio's IOPRIO_WHO_PGRP */
	bad = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(bad, 4096);
	if (argc > 2 && strcmp(argv[1], "stop") == 0) {
		/* Forms icount refuses to guess: each stops the run. */
		struct { unsigned modes; char rest[204]; } tx = {0};
		if (strcmp(argv[2], "adjtimex") == 0)
			CALL("adjtimex read", SYS_adjtimex, &tx);
		else if (strcmp(argv[2], "clock_adjtime") == 0)
			CALL("clock_adjtime read", SYS_clock_adjtime, CLOCK_REALTIME, &tx);
		else if (strcmp(argv[2], "open_tree") == 0)
			CALL("open_tree without CLONE", NR_open_tree, AT_FDCWD, "/", 0);
		return 0;
	}
	mountapi();
	privileged();
	if (argc > 1 && strcmp(argv[1], "configured") == 0)
		configured();
	return 0;
}
