/* errname.h: err(r) names the errno of a failed system call (r < 0), "ok"
   otherwise, for the test programs that print every result: the same
   words natively and under icount, on glibc and musl alike. */
#include <errno.h>
#include <stdio.h>

static const char *err(long r) {
	static const struct {
		int no;
		const char *name;
	} names[] = {
	    {EPERM, "EPERM"},   {ESRCH, "ESRCH"},   {EINTR, "EINTR"},   {E2BIG, "E2BIG"},
	    {EBADF, "EBADF"},   {EAGAIN, "EAGAIN"}, {ENOMEM, "ENOMEM"}, {EACCES, "EACCES"},
	    {EFAULT, "EFAULT"}, {EBUSY, "EBUSY"},   {EINVAL, "EINVAL"}, {EOPNOTSUPP, "EOPNOTSUPP"},
	};
	if (r >= 0) return "ok";
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (names[i].no == errno) return names[i].name;
	static char b[32];
	snprintf(b, sizeof b, "errno %d", errno);
	return b;
}
