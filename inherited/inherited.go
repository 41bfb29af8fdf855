// Package inherited says what the process was started with that Go's
// runtime changes before any Go code runs: which of the standard
// descriptors (0, 1, 2) were closed (the runtime opens /dev/null there)
// and which signals were ignored (the runtime installs its handlers). The
// answers are taken earlier, by a C constructor, which the C library runs
// before Go's runtime starts (a cgo program is linked externally: the C
// library's start-up calls the runtime). A guest inherits exactly what
// icount was given, as a program exec'd does: EBADF on a descriptor icount
// lacked, and that number free for its next open; SIG_IGN for a signal
// icount's parent ignored (nohup's SIGHUP, a shell's background job's
// SIGINT and SIGQUIT).
package inherited

/*
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

// kernelSigaction is the kernel's struct sigaction (x86-64): glibc's
// sigaction refuses the signals it keeps for itself (32 and 33), which a
// parent may have ignored all the same.
struct kernelSigaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	uint64_t mask;
};

static int checked;              // the constructor ran
static int closedAtStart;        // bit fd: descriptor fd was not open
static uint64_t ignoredAtStart;  // bit sig-1: signal sig was ignored

__attribute__((constructor)) static void recordInherited(void)
{
	for (int fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) < 0)
			closedAtStart |= 1 << fd;
	for (int sig = 1; sig <= 64; sig++) {
		struct kernelSigaction sa;
		if (syscall(SYS_rt_sigaction, sig, NULL, &sa, sizeof sa.mask) == 0 && sa.handler == (void *)SIG_IGN)
			ignoredAtStart |= (uint64_t)1 << (sig - 1);
	}
	checked = 1;
}

static int constructorRan(void) { return checked; }
static int closedMask(void) { return closedAtStart; }
static uint64_t ignoredMask(void) { return ignoredAtStart; }
*/
import "C"

// closed and ignored are the answers: bit fd set for a descriptor that
// was not open, bit sig-1 for a signal that was ignored.
var closed, ignored = func() (int, uint64) {
	if C.constructorRan() == 0 {
		// Linked without the C library's start-up (-linkmode=internal):
		// the runtime's /dev/null would pass for what was given.
		panic("inherited: the C constructor did not run; link icount externally (the default for cgo)")
	}
	return int(C.closedMask()), uint64(C.ignoredMask())
}()

// Closed reports whether standard descriptor fd (0, 1 or 2) was closed
// when the process started.
func Closed(fd int) bool { return closed&(1<<fd) != 0 }

// Ignored reports whether signal sig (1 to 64) was ignored when the
// process started.
func Ignored(sig int) bool { return ignored&(1<<(sig-1)) != 0 }
