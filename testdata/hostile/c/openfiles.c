/* openfiles.c: opens /dev/null 10,000 times without closing any. Under a
   descriptor limit (icount's is 1024, as RLIMIT_NOFILE), open fails with
   EMFILE once the table is full; the program says how far it got and
   whether every failure was EMFILE, then closes them all. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void) {
	static int fds[10000];
	int opened = 0, emfile = 0, other = 0;
	for (int i = 0; i < 10000; i++) {
		int fd = open("/dev/null", O_RDONLY);
		if (fd >= 0)
			fds[opened++] = fd;
		else if (errno == EMFILE)
			emfile++;
		else
			other++;
	}
	printf("opened %d of 10000 files; %d failed with EMFILE, %d otherwise\n", opened, emfile, other);
	for (int i = 0; i < opened; i++)
		close(fds[i]);
	int fd = open("/dev/null", O_RDONLY);
	printf("after closing them: open %s\n", fd >= 0 ? "works" : strerror(errno));
	return other != 0 || fd < 0;
}
