/* More file calls (kernel/sys_file.go, sys_cwd.go, sys_fsops.go,
 * sys_space.go, sys_xattr.go, sys_splice.go, sys_vecio.go): access and
 * faccessat2, chdir and fchdir, mkdirat, the syncs, fadvise, the xattr
 * getters by descriptor and by link, statfs, copy_file_range, sendfile,
 * fchmodat2, preadv2 and pwritev2, dup3, each with what succeeds and the
 * errors Linux gives, in the working directory (or argv[1]), which must
 * be empty. Lines starting "x86 " are the calls only x86-64 has; the
 * others print alike on both arches. cmd/icount/syscalls_test.go compares
 * the output natively and under icount. Run as root, it first becomes
 * uid and gid 1000, which icount's guest is.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/xattr.h>
#include "conformance.h"

#ifndef AT_EACCESS
#define AT_EACCESS 0x200
#endif
#ifndef RWF_NOWAIT
#define RWF_NOWAIT 8
#endif
#define NR_faccessat2 439
#define NR_fchmodat2 452

static void *bad; /* an unmapped page */

static void put(const char *name, const char *text, int mode)
{
	int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, mode);
	if (fd < 0 || write(fd, text, strlen(text)) < 0 || close(fd) < 0) {
		perror(name);
		exit(1);
	}
}

/* contents prints what the file name holds. */
static void contents(const char *name)
{
	char buf[64];
	int fd = open(name, O_RDONLY);
	long n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
	if (n < 0) {
		printf("  %s: %s\n", name, ename(errno));
	} else {
		buf[n] = 0;
		printf("  %s: \"%s\"\n", name, buf);
	}
	if (fd >= 0)
		close(fd);
}

static void accesses(void)
{
	put("f", "data\n", 0640);
	put("x", "#!/bin/sh\n", 0750);
	symlink("f", "link");
	symlink("missing", "dangling");
#ifdef SYS_access
	show("x86 access F_OK", syscall(SYS_access, "f", F_OK));
	show("x86 access R_OK|W_OK", syscall(SYS_access, "f", R_OK | W_OK));
	show("x86 access X_OK of a plain file", syscall(SYS_access, "f", X_OK));
	show("x86 access X_OK", syscall(SYS_access, "x", X_OK));
	show("x86 access missing", syscall(SYS_access, "nothing", F_OK));
	show("x86 access bad mode", syscall(SYS_access, "f", 8));
	show("x86 access bad pointer", syscall(SYS_access, bad, F_OK));
	show("x86 access dangling link", syscall(SYS_access, "dangling", F_OK));
	show("x86 access through a file", syscall(SYS_access, "f/x", F_OK));
#endif
	int dir = open(".", O_RDONLY | O_DIRECTORY);
	show("faccessat F_OK", syscall(SYS_faccessat, AT_FDCWD, "f", F_OK));
	show("faccessat relative to a dirfd", syscall(SYS_faccessat, dir, "x", X_OK));
	show("faccessat X_OK of a plain file", syscall(SYS_faccessat, dir, "f", X_OK));
	show("faccessat bad mode", syscall(SYS_faccessat, AT_FDCWD, "f", 0x10));
	show("faccessat bad dirfd", syscall(SYS_faccessat, 99, "f", F_OK));
	show("faccessat dirfd a file", syscall(SYS_faccessat, open("f", O_RDONLY), "g", F_OK));
	show("faccessat empty path", syscall(SYS_faccessat, AT_FDCWD, "", F_OK));
	show("faccessat bad pointer", syscall(SYS_faccessat, AT_FDCWD, bad, F_OK));
	show("faccessat2 AT_EACCESS", syscall(NR_faccessat2, AT_FDCWD, "f", R_OK, AT_EACCESS));
	show("faccessat2 AT_SYMLINK_NOFOLLOW dangling", syscall(NR_faccessat2, AT_FDCWD, "dangling", F_OK, AT_SYMLINK_NOFOLLOW));
	show("faccessat2 dangling", syscall(NR_faccessat2, AT_FDCWD, "dangling", F_OK, 0));
	show("faccessat2 bad flag", syscall(NR_faccessat2, AT_FDCWD, "f", F_OK, 0x1));
	show("faccessat2 bad mode", syscall(NR_faccessat2, AT_FDCWD, "f", 8, 0));
	int f = open("f", O_RDONLY);
	show("faccessat2 AT_EMPTY_PATH", syscall(NR_faccessat2, f, "", R_OK, AT_EMPTY_PATH));
	show("faccessat2 AT_EMPTY_PATH X_OK", syscall(NR_faccessat2, f, "", X_OK, AT_EMPTY_PATH));
	show("faccessat2 empty path without the flag", syscall(NR_faccessat2, f, "", R_OK, 0));
	show("faccessat2 bad dirfd", syscall(NR_faccessat2, -5, "f", F_OK, 0));
	close(f);
	close(dir);
}

/* here prints the last part of the working directory. */
static void here(const char *what)
{
	char buf[4096];
	if (getcwd(buf, sizeof buf) == NULL) {
		printf("%s: getcwd %s\n", what, ename(errno));
		return;
	}
	const char *s = strrchr(buf, '/');
	printf("%s: in %s\n", what, s ? s + 1 : buf);
}

static void directories(void)
{
	struct stat top;
	stat(".", &top);
	show("mkdirat AT_FDCWD", syscall(SYS_mkdirat, AT_FDCWD, "d", 0777));
	int d = open("d", O_RDONLY | O_DIRECTORY);
	show("mkdirat relative to a dirfd", syscall(SYS_mkdirat, d, "sub", 0750));
	show("mkdirat existing", syscall(SYS_mkdirat, d, "sub", 0750));
	show("mkdirat in a missing directory", syscall(SYS_mkdirat, d, "no/sub", 0750));
	show("mkdirat dirfd a file", syscall(SYS_mkdirat, open("f", O_RDONLY), "sub", 0750));
	show("mkdirat bad dirfd", syscall(SYS_mkdirat, 77, "sub", 0750));
	show("mkdirat bad pointer", syscall(SYS_mkdirat, AT_FDCWD, bad, 0750));
	show("mkdirat empty", syscall(SYS_mkdirat, AT_FDCWD, "", 0750));
	show("mkdirat under a file", syscall(SYS_mkdirat, AT_FDCWD, "f/sub", 0750));
	show("mkdirat a dangling link's name", syscall(SYS_mkdirat, AT_FDCWD, "dangling", 0750));
	struct stat st;
	umask(027);
	show("mkdirat with umask 027", syscall(SYS_mkdirat, AT_FDCWD, "masked", 0777));
	stat("masked", &st);
	printf("  mode %o\n", st.st_mode & 07777);
	stat("d/sub", &st);
	printf("  d/sub mode %o\n", st.st_mode & 07777);
	umask(022);

	show("chdir d", syscall(SYS_chdir, "d"));
	here("  after chdir d");
	show("chdir ..", syscall(SYS_chdir, ".."));
	show("chdir missing", syscall(SYS_chdir, "nothing"));
	show("chdir a file", syscall(SYS_chdir, "f"));
	show("chdir empty", syscall(SYS_chdir, ""));
	show("chdir bad pointer", syscall(SYS_chdir, bad));
	show("fchdir d", syscall(SYS_fchdir, d));
	here("  after fchdir d");
	show("mkdirat relative to the new cwd", syscall(SYS_mkdirat, AT_FDCWD, "incwd", 0700));
	show("chdir back", syscall(SYS_chdir, ".."));
	struct stat in;
	printf("  d/incwd made there: %d\n", stat("d/incwd", &in) == 0);
	int file = open("f", O_RDONLY);
	show("fchdir a file", syscall(SYS_fchdir, file));
	show("fchdir bad fd", syscall(SYS_fchdir, 99));
	show("fchdir -1", syscall(SYS_fchdir, -1));
	int path = open("d", O_PATH | O_DIRECTORY);
	show("fchdir an O_PATH directory", syscall(SYS_fchdir, path));
	here("  after");
	show("fchdir back", syscall(SYS_chdir, ".."));
	close(path);
	close(file);
	close(d);
	struct stat now;
	stat(".", &now);
	printf("back where it started: %d\n", now.st_ino == top.st_ino && now.st_dev == top.st_dev);
}

static void syncs(void)
{
	int f = open("f", O_RDWR);
	int p[2];
	pipe(p);
	int path = open("f", O_PATH);
	int dir = open(".", O_RDONLY | O_DIRECTORY);
	show("fsync a file", syscall(SYS_fsync, f));
	show("fsync a directory", syscall(SYS_fsync, dir));
	show("fsync a pipe", syscall(SYS_fsync, p[0]));
	show("fsync an O_PATH descriptor", syscall(SYS_fsync, path));
	show("fsync bad fd", syscall(SYS_fsync, 99));
	show("fdatasync a file", syscall(SYS_fdatasync, f));
	show("fdatasync a read-only file", syscall(SYS_fdatasync, open("x", O_RDONLY)));
	show("fdatasync a pipe", syscall(SYS_fdatasync, p[1]));
	show("fdatasync bad fd", syscall(SYS_fdatasync, -1));
	show("fadvise NORMAL", syscall(SYS_fadvise64, f, 0, 0, POSIX_FADV_NORMAL));
	show("fadvise DONTNEED a range", syscall(SYS_fadvise64, f, 4096, 8192, POSIX_FADV_DONTNEED));
	show("fadvise WILLNEED", syscall(SYS_fadvise64, f, 0, 100, POSIX_FADV_WILLNEED));
	show("fadvise SEQUENTIAL", syscall(SYS_fadvise64, f, 0, 0, POSIX_FADV_SEQUENTIAL));
	show("fadvise bad advice", syscall(SYS_fadvise64, f, 0, 0, 99));
	show("fadvise negative length", syscall(SYS_fadvise64, f, 0, (long)-1, POSIX_FADV_NORMAL));
	show("fadvise a pipe", syscall(SYS_fadvise64, p[0], 0, 0, POSIX_FADV_NORMAL));
	show("fadvise bad fd", syscall(SYS_fadvise64, 99, 0, 0, POSIX_FADV_NORMAL));
	show("fadvise a directory", syscall(SYS_fadvise64, dir, 0, 0, POSIX_FADV_NORMAL));
	show("fadvise an O_PATH descriptor", syscall(SYS_fadvise64, path, 0, 0, POSIX_FADV_NORMAL));
	close(f);
	close(p[0]);
	close(p[1]);
	close(path);
	close(dir);
}

static void xattrs(void)
{
	char buf[256];
	int f = open("f", O_RDONLY);
	show("setxattr user.a", setxattr("f", "user.a", "va", 2, 0));
	show("setxattr user.b", setxattr("f", "user.b", "vbb", 3, 0));
	number("fgetxattr user.a", syscall(SYS_fgetxattr, f, "user.a", buf, sizeof buf));
	printf("  value %.2s\n", buf);
	number("fgetxattr size query", syscall(SYS_fgetxattr, f, "user.b", NULL, 0));
	number("fgetxattr buffer too small", syscall(SYS_fgetxattr, f, "user.b", buf, 1));
	number("fgetxattr missing", syscall(SYS_fgetxattr, f, "user.none", buf, sizeof buf));
	number("fgetxattr no namespace", syscall(SYS_fgetxattr, f, "plain", buf, sizeof buf));
	number("fgetxattr empty name", syscall(SYS_fgetxattr, f, "", buf, sizeof buf));
	number("fgetxattr bad fd", syscall(SYS_fgetxattr, 99, "user.a", buf, sizeof buf));
	number("fgetxattr bad name pointer", syscall(SYS_fgetxattr, f, bad, buf, sizeof buf));
	number("fgetxattr bad buffer", syscall(SYS_fgetxattr, f, "user.a", bad, sizeof buf));
	int path = open("f", O_PATH);
	number("fgetxattr an O_PATH descriptor", syscall(SYS_fgetxattr, path, "user.a", buf, sizeof buf));
	number("flistxattr size query", syscall(SYS_flistxattr, f, NULL, 0));
	long n = syscall(SYS_flistxattr, f, buf, sizeof buf);
	number("flistxattr", n);
	int users = 0;
	for (long i = 0; i < n; i += strlen(buf + i) + 1)
		users += strncmp(buf + i, "user.", 5) == 0;
	printf("  user. names: %d\n", users);
	number("flistxattr too small", syscall(SYS_flistxattr, f, buf, 3));
	number("flistxattr bad fd", syscall(SYS_flistxattr, -1, buf, sizeof buf));
	number("flistxattr bad buffer", syscall(SYS_flistxattr, f, bad, sizeof buf));
	number("flistxattr an O_PATH descriptor", syscall(SYS_flistxattr, path, buf, sizeof buf));
	number("lgetxattr a file", syscall(SYS_lgetxattr, "f", "user.b", buf, sizeof buf));
	number("lgetxattr a link (user. is not for links)", syscall(SYS_lgetxattr, "link", "user.a", buf, sizeof buf));
	number("getxattr through the link", syscall(SYS_getxattr, "link", "user.a", buf, sizeof buf));
	number("lgetxattr missing", syscall(SYS_lgetxattr, "nothing", "user.a", buf, sizeof buf));
	number("lgetxattr bad path", syscall(SYS_lgetxattr, bad, "user.a", buf, sizeof buf));
	number("lgetxattr name too long", syscall(SYS_lgetxattr, "f", "user.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", buf, sizeof buf));
	n = syscall(SYS_llistxattr, "link", buf, sizeof buf);
	users = 0;
	for (long i = 0; n > 0 && i < n; i += strlen(buf + i) + 1)
		users += strncmp(buf + i, "user.", 5) == 0;
	printf("llistxattr a link: %s, user. names %d\n", n < 0 ? ename(errno) : "ok", users);
	number("llistxattr a file, size query", syscall(SYS_llistxattr, "f", NULL, 0) > 0);
	number("llistxattr missing", syscall(SYS_llistxattr, "nothing", buf, sizeof buf));
	number("llistxattr bad path", syscall(SYS_llistxattr, bad, buf, sizeof buf));
	number("llistxattr dangling link", syscall(SYS_llistxattr, "dangling", NULL, 0) >= 0);
	close(path);
	close(f);
}

static void statfses(void)
{
	struct statfs a, b;
	show("statfs .", syscall(SYS_statfs, ".", &a));
	int f = open("f", O_RDONLY);
	show("fstatfs a file", syscall(SYS_fstatfs, f, &b));
	printf("  same type: %d, same block size: %d, bsize > 0: %d, namelen %ld\n",
	       a.f_type == b.f_type, a.f_bsize == b.f_bsize, a.f_bsize > 0, (long)a.f_namelen);
	show("statfs missing", syscall(SYS_statfs, "nothing", &a));
	show("statfs through a file", syscall(SYS_statfs, "f/x", &a));
	show("statfs bad path", syscall(SYS_statfs, bad, &a));
	show("statfs bad buffer", syscall(SYS_statfs, ".", bad));
	show("statfs empty path", syscall(SYS_statfs, "", &a));
	show("statfs dangling link", syscall(SYS_statfs, "dangling", &a));
	show("fstatfs bad fd", syscall(SYS_fstatfs, 99, &b));
	show("fstatfs bad buffer", syscall(SYS_fstatfs, f, bad));
	int p[2];
	pipe(p);
	show("fstatfs a pipe", syscall(SYS_fstatfs, p[0], &b));
	int path = open("f", O_PATH);
	show("fstatfs an O_PATH descriptor", syscall(SYS_fstatfs, path, &b));
	close(path);
	close(p[0]);
	close(p[1]);
	close(f);
}

static void copies(void)
{
	put("src", "0123456789abcdef", 0644);
	int in = open("src", O_RDONLY);
	int out = open("dst", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	number("copy_file_range 10", syscall(SYS_copy_file_range, in, NULL, out, NULL, 10, 0));
	contents("dst");
	loff_t off_in = 12, off_out = 2;
	number("copy_file_range with offsets", syscall(SYS_copy_file_range, in, &off_in, out, &off_out, 3, 0));
	printf("  offsets now %lld %lld, file offset %ld\n", (long long)off_in, (long long)off_out, (long)lseek(in, 0, SEEK_CUR));
	contents("dst");
	number("copy_file_range at the end", syscall(SYS_copy_file_range, in, NULL, out, NULL, 100, 0));
	number("copy_file_range past the end", syscall(SYS_copy_file_range, in, NULL, out, NULL, 100, 0));
	number("copy_file_range 0 bytes", syscall(SYS_copy_file_range, in, NULL, out, NULL, 0, 0));
	number("copy_file_range flags 1", syscall(SYS_copy_file_range, in, NULL, out, NULL, 1, 1));
	number("copy_file_range bad in", syscall(SYS_copy_file_range, 99, NULL, out, NULL, 1, 0));
	number("copy_file_range bad out", syscall(SYS_copy_file_range, in, NULL, 99, NULL, 1, 0));
	number("copy_file_range out read-only", syscall(SYS_copy_file_range, in, NULL, in, NULL, 1, 0));
	number("copy_file_range in write-only", syscall(SYS_copy_file_range, out, NULL, out, NULL, 1, 0));
	int rw = open("src", O_RDWR);
	off_in = 0, off_out = 4;
	number("copy_file_range overlapping in one file", syscall(SYS_copy_file_range, rw, &off_in, rw, &off_out, 8, 0));
	off_in = 0, off_out = 8;
	number("copy_file_range within one file", syscall(SYS_copy_file_range, rw, &off_in, rw, &off_out, 4, 0));
	contents("src");
	off_in = -1;
	number("copy_file_range negative offset", syscall(SYS_copy_file_range, in, &off_in, out, NULL, 1, 0));
	number("copy_file_range bad offset pointer", syscall(SYS_copy_file_range, in, bad, out, NULL, 1, 0));
	int app = open("dst", O_WRONLY | O_APPEND);
	number("copy_file_range out O_APPEND", syscall(SYS_copy_file_range, in, &(loff_t){0}, app, NULL, 1, 0));
	int dir = open(".", O_RDONLY | O_DIRECTORY);
	number("copy_file_range from a directory", syscall(SYS_copy_file_range, dir, NULL, out, NULL, 1, 0));
	int p[2];
	pipe(p);
	number("copy_file_range to a pipe", syscall(SYS_copy_file_range, in, &(loff_t){0}, p[1], NULL, 1, 0));

	lseek(in, 0, SEEK_SET);
	int s = open("sent", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	number("sendfile 5 to a file", syscall(SYS_sendfile, s, in, NULL, 5));
	printf("  file offset %ld\n", (long)lseek(in, 0, SEEK_CUR));
	off_t off = 10;
	number("sendfile with an offset", syscall(SYS_sendfile, s, in, &off, 4));
	printf("  offset now %ld, file offset %ld\n", (long)off, (long)lseek(in, 0, SEEK_CUR));
	contents("sent");
	number("sendfile to a pipe", syscall(SYS_sendfile, p[1], in, NULL, 3));
	char buf[8] = {0};
	printf("  the pipe holds %ld bytes: %.3s\n", (long)read(p[0], buf, sizeof buf), buf);
	off = 100;
	number("sendfile past the end", syscall(SYS_sendfile, s, in, &off, 4));
	number("sendfile 0 bytes", syscall(SYS_sendfile, s, in, NULL, 0));
	off = -1;
	number("sendfile negative offset", syscall(SYS_sendfile, s, in, &off, 4));
	number("sendfile bad offset pointer", syscall(SYS_sendfile, s, in, bad, 4));
	number("sendfile bad in", syscall(SYS_sendfile, s, 99, NULL, 4));
	number("sendfile bad out", syscall(SYS_sendfile, 99, in, NULL, 4));
	number("sendfile in write-only", syscall(SYS_sendfile, s, s, NULL, 4));
	number("sendfile out read-only", syscall(SYS_sendfile, in, in, NULL, 4));
	number("sendfile out O_APPEND", syscall(SYS_sendfile, app, in, &(off_t){0}, 4));
	number("sendfile from a pipe", syscall(SYS_sendfile, s, p[0], NULL, 4));
	number("sendfile from a directory", syscall(SYS_sendfile, s, dir, NULL, 4));
	close(p[0]);
	close(p[1]);
	close(dir);
	close(app);
	close(rw);
	close(s);
	close(in);
	close(out);
}

static void modes(void)
{
	struct stat st;
	show("fchmodat2 a file", syscall(NR_fchmodat2, AT_FDCWD, "f", 0600, 0));
	stat("f", &st);
	printf("  mode %o\n", st.st_mode & 07777);
	show("fchmodat2 AT_SYMLINK_NOFOLLOW a file", syscall(NR_fchmodat2, AT_FDCWD, "f", 0640, AT_SYMLINK_NOFOLLOW));
	show("fchmodat2 AT_SYMLINK_NOFOLLOW a link", syscall(NR_fchmodat2, AT_FDCWD, "link", 0640, AT_SYMLINK_NOFOLLOW));
	show("fchmodat2 through a link", syscall(NR_fchmodat2, AT_FDCWD, "link", 0644, 0));
	stat("f", &st);
	printf("  mode %o\n", st.st_mode & 07777);
	show("fchmodat2 bad flag", syscall(NR_fchmodat2, AT_FDCWD, "f", 0644, 0x1));
	show("fchmodat2 missing", syscall(NR_fchmodat2, AT_FDCWD, "nothing", 0644, 0));
	show("fchmodat2 bad pointer", syscall(NR_fchmodat2, AT_FDCWD, bad, 0644, 0));
	int f = open("f", O_RDONLY);
	show("fchmodat2 AT_EMPTY_PATH", syscall(NR_fchmodat2, f, "", 0604, AT_EMPTY_PATH));
	stat("f", &st);
	printf("  mode %o\n", st.st_mode & 07777);
	show("fchmodat2 empty path", syscall(NR_fchmodat2, f, "", 0604, 0));
	show("fchmodat2 bad dirfd", syscall(NR_fchmodat2, 99, "f", 0644, 0));
	close(f);
}

static void vectors(void)
{
	put("v", "abcdefgh", 0644);
	int f = open("v", O_RDWR);
	char a[3] = "---", b[3] = "---";
	struct iovec iov[2] = {{a, 3}, {b, 3}};
	lseek(f, 1, SEEK_SET);
	number("preadv2 at the file offset (-1)", syscall(SYS_preadv2, f, iov, 2, (long)-1, (long)-1, 0));
	printf("  %.3s %.3s, file offset %ld\n", a, b, (long)lseek(f, 0, SEEK_CUR));
	number("preadv2 at 4", syscall(SYS_preadv2, f, iov, 1, 4, 0, 0));
	printf("  %.3s, file offset %ld\n", a, (long)lseek(f, 0, SEEK_CUR));
	number("preadv2 RWF_NOWAIT", syscall(SYS_preadv2, f, iov, 1, 0, 0, RWF_NOWAIT));
	number("preadv2 bad flag", syscall(SYS_preadv2, f, iov, 1, 0, 0, 0x40000000));
	number("preadv2 bad fd", syscall(SYS_preadv2, 99, iov, 1, 0, 0, 0));
	number("preadv2 offset -2", syscall(SYS_preadv2, f, iov, 1, (long)-2, (long)-1, 0));
	number("preadv2 bad iovec", syscall(SYS_preadv2, f, bad, 1, 0, 0, 0));
	struct iovec w[1] = {{"XY", 2}};
	number("pwritev2 at 2", syscall(SYS_pwritev2, f, w, 1, 2, 0, 0));
	number("pwritev2 at the file offset (-1)", syscall(SYS_pwritev2, f, w, 1, (long)-1, (long)-1, 0));
	printf("  file offset %ld\n", (long)lseek(f, 0, SEEK_CUR));
	number("pwritev2 bad flag", syscall(SYS_pwritev2, f, w, 1, 0, 0, 0x40000000));
	number("pwritev2 read-only", syscall(SYS_pwritev2, open("v", O_RDONLY), w, 1, 0, 0, 0));
	number("pwritev2 iovcnt -1", syscall(SYS_pwritev2, f, w, -1, 0, 0, 0));
	close(f);
	contents("v");
}

static void dups(void)
{
	int f = open("f", O_RDONLY);
	number("dup3 onto 20", syscall(SYS_dup3, f, 20, 0));
	printf("  cloexec %d\n", fcntl(20, F_GETFD) & FD_CLOEXEC);
	number("dup3 O_CLOEXEC onto 21", syscall(SYS_dup3, f, 21, O_CLOEXEC));
	printf("  cloexec %d\n", fcntl(21, F_GETFD) & FD_CLOEXEC);
	number("dup3 onto itself", syscall(SYS_dup3, f, f, 0));
	number("dup3 bad flag", syscall(SYS_dup3, f, 22, 1));
	number("dup3 bad fd", syscall(SYS_dup3, 99, 22, 0));
	number("dup3 onto -1", syscall(SYS_dup3, f, -1, 0));
	number("dup3 onto 1<<20", syscall(SYS_dup3, f, 1 << 20, 0));
	number("dup3 over an open one", syscall(SYS_dup3, f, 20, O_CLOEXEC));
	printf("  cloexec %d\n", fcntl(20, F_GETFD) & FD_CLOEXEC);
	number("dup", syscall(SYS_dup, f));
	number("dup bad fd", syscall(SYS_dup, 99));
#ifdef SYS_dup2
	number("x86 dup2 onto itself", syscall(SYS_dup2, f, f));
	number("x86 dup2 bad fd onto itself", syscall(SYS_dup2, 99, 99));
	number("x86 dup2 onto 30", syscall(SYS_dup2, f, 30));
#endif
	close(20);
	close(21);
	close(f);
}

int main(int argc, char **argv)
{
	start(argc, argv);
	bad = unmapped();
	accesses();
	directories();
	syncs();
	xattrs();
	statfses();
	copies();
	modes();
	vectors();
	dups();
	printf("done\n");
	return 0;
}
