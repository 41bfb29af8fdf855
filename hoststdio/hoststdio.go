// Package hoststdio says which of the standard descriptors (0, 1, 2) the
// process was started without. Go's runtime opens /dev/null on a closed
// one before any Go code runs, so the answer is taken earlier, by a C
// constructor, which the C library runs before Go's runtime starts (a
// cgo program is linked externally: the C library's start-up calls the
// runtime). A guest inherits exactly what icount was given: EBADF on a
// descriptor icount lacked, and that number free for its next open.
package hoststdio

/*
#include <fcntl.h>

static int checked;      // the constructor ran
static int closedAtStart; // bit fd: descriptor fd was not open

__attribute__((constructor)) static void recordClosed(void)
{
	for (int fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) < 0)
			closedAtStart |= 1 << fd;
	checked = 1;
}

static int constructorRan(void) { return checked; }
static int closedMask(void) { return closedAtStart; }
*/
import "C"

// closed is the answer, bit fd set for a descriptor that was not open.
var closed = func() int {
	if C.constructorRan() == 0 {
		// Linked without the C library's start-up (-linkmode=internal):
		// the runtime's /dev/null would pass for what was given.
		panic("hoststdio: the C constructor did not run; link icount externally (the default for cgo)")
	}
	return int(C.closedMask())
}()

// Closed reports whether standard descriptor fd (0, 1 or 2) was closed
// when the process started.
func Closed(fd int) bool { return closed&(1<<fd) != 0 }
