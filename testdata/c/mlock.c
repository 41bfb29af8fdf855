/* mlock.c: mlock, mlock2, munlock, mlockall, munlockall and msync with raw
   system calls on mappings the program makes (with holes between them),
   as an unprivileged process whose RLIMIT_MEMLOCK is Linux's default 8 MiB
   (set so natively);
   every result and errno is printed. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "errname.h"

#define PG 4096UL

#define CALL(what, call) printf("%s: %s\n", what, err(call))

int main(void) {
	/* Linux's default limit, whatever the parent's was (icount's is it). */
	struct rlimit rl = {8 << 20, 8 << 20};
	printf("setrlimit RLIMIT_MEMLOCK 8 MiB: %s\n", err(setrlimit(RLIMIT_MEMLOCK, &rl)));
	getrlimit(RLIMIT_MEMLOCK, &rl);
	printf("RLIMIT_MEMLOCK %lu %lu\n", (unsigned long)rl.rlim_cur, (unsigned long)rl.rlim_max);
	getrlimit(RLIMIT_NICE, &rl);
	printf("RLIMIT_NICE %lu %lu\n", (unsigned long)rl.rlim_cur, (unsigned long)rl.rlim_max);
	getrlimit(RLIMIT_RTPRIO, &rl);
	printf("RLIMIT_RTPRIO %lu %lu\n", (unsigned long)rl.rlim_cur, (unsigned long)rl.rlim_max);

	/* Three pages, the middle one unmapped: a hole. */
	char *a = mmap(NULL, 3 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(a + PG, PG);
	CALL("mlock one page", syscall(SYS_mlock, a, PG));
	CALL("mlock 1 byte, unaligned", syscall(SYS_mlock, a + 100, 1));
	CALL("mlock length 0", syscall(SYS_mlock, a, 0));
	CALL("mlock length 0, unaligned", syscall(SYS_mlock, a + 1, 0));
	CALL("mlock across the hole", syscall(SYS_mlock, a, 3 * PG));
	CALL("mlock the hole", syscall(SYS_mlock, a + PG, PG));
	CALL("mlock page 0", syscall(SYS_mlock, 0, PG));
	CALL("mlock wrapping", syscall(SYS_mlock, a, -2 * PG));
	CALL("munlock", syscall(SYS_munlock, a, PG));
	CALL("munlock across the hole", syscall(SYS_munlock, a, 3 * PG));
	CALL("munlock unlocked", syscall(SYS_munlock, a + 2 * PG, PG));
	CALL("mlock2 flags 0", syscall(SYS_mlock2, a, PG, 0));
	CALL("mlock2 MLOCK_ONFAULT", syscall(SYS_mlock2, a + 2 * PG, PG, 1));
	CALL("mlock2 flags 2", syscall(SYS_mlock2, a, PG, 2));

	/* The limit: 8 MiB in all, pages locked twice counted once. */
	size_t big = 16 << 20;
	char *b = mmap(NULL, big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CALL("mlock 16 MiB", syscall(SYS_mlock, b, big));
	CALL("mlock 4 MiB", syscall(SYS_mlock, b, 4 << 20));
	CALL("mlock the same 4 MiB again", syscall(SYS_mlock, b, 4 << 20));
	CALL("mlock 4 MiB more (2 pages over)", syscall(SYS_mlock, b + (4 << 20), 4 << 20));
	CALL("mlock 4 MiB less 2 pages more", syscall(SYS_mlock, b + (4 << 20), (4 << 20) - 2 * PG));
	CALL("mlock 1 page more", syscall(SYS_mlock, b + (8 << 20), PG));
	CALL("munmap a locked MiB", munmap(b, 1 << 20));
	CALL("mlock 1 page more, after it", syscall(SYS_mlock, b + (8 << 20), PG));
	CALL("munlockall", syscall(SYS_munlockall));
	CALL("mlock 4 MiB after munlockall", syscall(SYS_mlock, b + (8 << 20), 4 << 20));
	fflush(stdout);
	pid_t child = fork();
	if (child == 0) {
		/* A child inherits no lock: 8 MiB of its own. */
		CALL("child: mlock 8 MiB", syscall(SYS_mlock, b + (1 << 20), 8 << 20));
		fflush(stdout);
		_exit(0);
	}
	waitpid(child, NULL, 0);
	CALL("munlock", syscall(SYS_munlock, b + (8 << 20), 4 << 20));

	/* mlockall: its flags. */
	CALL("mlockall 0", syscall(SYS_mlockall, 0));
	CALL("mlockall 8", syscall(SYS_mlockall, 8));
	CALL("mlockall MCL_ONFAULT alone", syscall(SYS_mlockall, MCL_ONFAULT));
	CALL("munlockall", syscall(SYS_munlockall));

	/* msync. */
	CALL("msync MS_SYNC", syscall(SYS_msync, a, PG, MS_SYNC));
	CALL("msync MS_ASYNC", syscall(SYS_msync, a, PG, MS_ASYNC));
	CALL("msync MS_INVALIDATE", syscall(SYS_msync, a, PG, MS_INVALIDATE));
	CALL("msync flags 0", syscall(SYS_msync, a, PG, 0));
	CALL("msync MS_SYNC|MS_ASYNC", syscall(SYS_msync, a, PG, MS_SYNC | MS_ASYNC));
	CALL("msync flags 8", syscall(SYS_msync, a, PG, 8));
	CALL("msync unaligned", syscall(SYS_msync, a + 1, PG, MS_SYNC));
	CALL("msync length 0", syscall(SYS_msync, a, 0, MS_SYNC));
	CALL("msync 1 byte", syscall(SYS_msync, a, 1, MS_SYNC));
	CALL("msync across the hole, MS_SYNC", syscall(SYS_msync, a, 3 * PG, MS_SYNC));
	CALL("msync across the hole, MS_ASYNC", syscall(SYS_msync, a, 3 * PG, MS_ASYNC));
	CALL("msync across the hole, MS_ASYNC|MS_INVALIDATE", syscall(SYS_msync, a, 3 * PG, MS_ASYNC | MS_INVALIDATE));
	CALL("msync the hole", syscall(SYS_msync, a + PG, PG, MS_SYNC));
	CALL("msync from the hole on", syscall(SYS_msync, a + PG, 2 * PG, MS_SYNC));
	CALL("msync page 0", syscall(SYS_msync, 0, PG, MS_SYNC));
	CALL("msync wrapping", syscall(SYS_msync, a, -2 * PG, MS_SYNC));
	syscall(SYS_mlock, a + 2 * PG, PG);
	CALL("msync MS_INVALIDATE of a locked page", syscall(SYS_msync, a + 2 * PG, PG, MS_INVALIDATE));
	CALL("msync MS_SYNC of a locked page", syscall(SYS_msync, a + 2 * PG, PG, MS_SYNC));
	CALL("msync across the hole to a locked page, MS_INVALIDATE", syscall(SYS_msync, a, 3 * PG, MS_INVALIDATE));
	printf("done\n");
	return 0;
}
