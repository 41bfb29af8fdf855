/* openat2 (kernel/sys_openat2.go): the struct open_how's size checks, the
 * flags, mode and resolve flags Linux rejects and the order of its checks,
 * and lookups with RESOLVE_NO_SYMLINKS, RESOLVE_NO_MAGICLINKS,
 * RESOLVE_NO_XDEV, RESOLVE_BENEATH and RESOLVE_IN_ROOT in the working
 * directory and in a directory in /tmp. cmd/icount/inotify_test.go
 * compares the output natively (or under qemu-aarch64) and under icount.
 * RESOLVE_CACHED is tried only where Linux's answer does not depend on
 * its caches (O_CREAT: EAGAIN).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <sys/syscall.h>
#include "conformance.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif
struct how {
	uint64_t flags, mode, resolve;
};
#define RESOLVE_NO_XDEV 0x01
#define RESOLVE_NO_MAGICLINKS 0x02
#define RESOLVE_NO_SYMLINKS 0x04
#define RESOLVE_BENEATH 0x08
#define RESOLVE_IN_ROOT 0x10
#define RESOLVE_CACHED 0x20

/* try opens path with how (size bytes of it) and prints the result: the
 * file's kind, its status flags and close-on-exec, or the errno. */
static void try(const char *what, int dir, const char *path, const void *how, size_t size)
{
	long fd = syscall(SYS_openat2, dir, path, how, size);
	if (fd < 0) {
		printf("%s: %s\n", what, ename(errno));
		return;
	}
	struct stat st;
	fstat(fd, &st);
	int fl = fcntl(fd, F_GETFL);
	printf("%s: ok %s mode %o flags %#x cloexec %d\n", what, S_ISDIR(st.st_mode) ? "dir" : S_ISREG(st.st_mode) ? "file" : "other",
	       st.st_mode & 07777, fl & (O_ACCMODE | O_APPEND | O_NONBLOCK), fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);
}

static void with(const char *what, int dir, const char *path, uint64_t flags, uint64_t mode, uint64_t resolve)
{
	struct how h = {flags, mode, resolve};
	try(what, dir, path, &h, sizeof h);
}

int main(int argc, char **argv)
{
	start(argc, argv);
	umask(022);
	int f = open("f", O_CREAT | O_WRONLY, 0644);
	close(f);
	mkdir("d", 0755);
	int x = open("d/x", O_CREAT | O_WRONLY, 0644);
	close(x);
	symlink("f", "lnk");
	symlink("..", "d/up");
	symlink("/x", "d/absx");
	int d = open("d", O_RDONLY | O_DIRECTORY);

	struct how h = {O_RDONLY, 0, 0};
	char big[40] = {0};
	try("size 0", AT_FDCWD, "f", &h, 0);
	try("size 23", AT_FDCWD, "f", &h, 23);
	try("size 24", AT_FDCWD, "f", &h, 24);
	try("size 40, zero tail", AT_FDCWD, "f", big, sizeof big);
	big[32] = 1;
	try("size 40, tail not zero", AT_FDCWD, "f", big, sizeof big);
	try("size 4097", AT_FDCWD, "f", &h, 4097);
	try("how NULL", AT_FDCWD, "f", NULL, 24);
	try("how unmapped", AT_FDCWD, "f", (void *)8, 24);

	with("O_RDONLY", AT_FDCWD, "f", O_RDONLY, 0, 0);
	with("O_RDWR|O_APPEND|O_NONBLOCK|O_CLOEXEC", AT_FDCWD, "f", O_RDWR | O_APPEND | O_NONBLOCK | O_CLOEXEC, 0, 0);
	with("unknown flag 1<<33", AT_FDCWD, "f", 1ULL << 33, 0, 0);
	with("unknown flag 1<<31", AT_FDCWD, "f", 1ULL << 31, 0, 0);
	with("unknown resolve 0x40", AT_FDCWD, "f", O_RDONLY, 0, 0x40);
	with("RESOLVE_BENEATH|RESOLVE_IN_ROOT", AT_FDCWD, "f", O_RDONLY, 0, RESOLVE_BENEATH | RESOLVE_IN_ROOT);
	with("mode without O_CREAT", AT_FDCWD, "f", O_RDONLY, 0644, 0);
	with("O_CREAT mode 010644", AT_FDCWD, "new", O_CREAT | O_WRONLY, 010644, 0);
	with("bad flag, bad path", AT_FDCWD, (char *)8, 1ULL << 33, 0, 0);
	with("bad path", AT_FDCWD, (char *)8, O_RDONLY, 0, 0);
	with("bad path, bad dirfd", 99, (char *)8, O_RDONLY, 0, 0);
	with("bad dirfd", 99, "f", O_RDONLY, 0, 0);
	with("bad dirfd, absolute path", 99, "/", O_RDONLY | O_DIRECTORY, 0, 0);
	with("empty path", AT_FDCWD, "", O_RDONLY, 0, 0);
	with("O_CREAT mode 0600", AT_FDCWD, "new", O_CREAT | O_WRONLY, 0600, 0);
	with("O_CREAT|O_EXCL existing", AT_FDCWD, "new", O_CREAT | O_EXCL | O_WRONLY, 0600, 0);
	with("O_CREAT|O_DIRECTORY", AT_FDCWD, "new2", O_CREAT | O_DIRECTORY, 0600, 0);
	with("O_DIRECTORY of a file", AT_FDCWD, "f", O_DIRECTORY, 0, 0);
	with("O_DIRECTORY of d", AT_FDCWD, "d", O_DIRECTORY, 0, 0);
	with("O_PATH|O_NOFOLLOW of lnk", AT_FDCWD, "lnk", O_PATH | O_NOFOLLOW, 0, 0);
	with("O_PATH|O_RDWR", AT_FDCWD, "f", O_PATH | O_RDWR | O_APPEND, 0, 0);
	with("O_TMPFILE without write", AT_FDCWD, "d", O_TMPFILE | O_RDONLY, 0600, 0);
	with("O_TMPFILE", AT_FDCWD, "d", O_TMPFILE | O_RDWR, 0600, 0);
	with("O_CREAT RESOLVE_CACHED", AT_FDCWD, "cached", O_CREAT | O_WRONLY, 0600, RESOLVE_CACHED);

	with("RESOLVE_NO_SYMLINKS f", AT_FDCWD, "f", O_RDONLY, 0, RESOLVE_NO_SYMLINKS);
	with("RESOLVE_NO_SYMLINKS lnk", AT_FDCWD, "lnk", O_RDONLY, 0, RESOLVE_NO_SYMLINKS);
	with("RESOLVE_NO_SYMLINKS d/up/f", AT_FDCWD, "d/up/f", O_RDONLY, 0, RESOLVE_NO_SYMLINKS);
	with("RESOLVE_NO_MAGICLINKS lnk", AT_FDCWD, "lnk", O_RDONLY, 0, RESOLVE_NO_MAGICLINKS);
	with("RESOLVE_NO_XDEV d/x", AT_FDCWD, "d/x", O_RDONLY, 0, RESOLVE_NO_XDEV);

	with("RESOLVE_BENEATH x from d", d, "x", O_RDONLY, 0, RESOLVE_BENEATH);
	with("RESOLVE_BENEATH ../f from d", d, "../f", O_RDONLY, 0, RESOLVE_BENEATH);
	with("RESOLVE_BENEATH up/f from d", d, "up/f", O_RDONLY, 0, RESOLVE_BENEATH);
	with("RESOLVE_BENEATH absx from d", d, "absx", O_RDONLY, 0, RESOLVE_BENEATH);
	with("RESOLVE_BENEATH /etc from d", d, "/etc", O_RDONLY, 0, RESOLVE_BENEATH);
	with("RESOLVE_BENEATH d/../f from .", AT_FDCWD, "d/../f", O_RDONLY, 0, RESOLVE_BENEATH);
	with("RESOLVE_BENEATH O_CREAT d/made", AT_FDCWD, "d/made", O_CREAT | O_WRONLY, 0640, RESOLVE_BENEATH);
	with("RESOLVE_IN_ROOT /x from d", d, "/x", O_RDONLY, 0, RESOLVE_IN_ROOT);
	with("RESOLVE_IN_ROOT ../../x from d", d, "../../x", O_RDONLY, 0, RESOLVE_IN_ROOT);
	with("RESOLVE_IN_ROOT absx from d", d, "absx", O_RDONLY, 0, RESOLVE_IN_ROOT);
	with("RESOLVE_IN_ROOT up/x from d", d, "up/x", O_RDONLY, 0, RESOLVE_IN_ROOT);
	with("RESOLVE_IN_ROOT /f from d", d, "/f", O_RDONLY, 0, RESOLVE_IN_ROOT);

	/* A directory in /tmp, by its absolute path and as a scope. */
	char tmp[] = "/tmp/openat2-XXXXXX";
	if (mkdtemp(tmp) == NULL)
		perror("mkdtemp");
	char name[64];
	snprintf(name, sizeof name, "%s/made", tmp);
	with("O_CREAT in /tmp", AT_FDCWD, name, O_CREAT | O_WRONLY, 0600, 0);
	with("RESOLVE_NO_SYMLINKS in /tmp", AT_FDCWD, name, O_RDONLY, 0, RESOLVE_NO_SYMLINKS);
	int t = open(tmp, O_RDONLY | O_DIRECTORY);
	with("RESOLVE_BENEATH made from the /tmp directory", t, "made", O_RDONLY, 0, RESOLVE_BENEATH);
	with("RESOLVE_IN_ROOT /made from the /tmp directory", t, "/made", O_RDONLY, 0, RESOLVE_IN_ROOT);
	with("RESOLVE_BENEATH .. from the /tmp directory", t, "..", O_RDONLY, 0, RESOLVE_BENEATH);
	close(t);
	unlink(name);
	rmdir(tmp);

	unlink("d/made");
	unlink("d/absx");
	unlink("d/up");
	unlink("d/x");
	rmdir("d");
	unlink("lnk");
	unlink("new");
	show("unlink f", unlink("f"));
	return 0;
}
