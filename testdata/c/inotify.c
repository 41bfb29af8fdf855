/* The inotify calls (kernel/sys_inotify.go): instances, watches on the
 * working directory, a subdirectory and a directory in /tmp, the events
 * that file operations queue, reads that would block (with IN_NONBLOCK:
 * EAGAIN; without: the thread waits for a child's rename), a buffer too
 * small for the next event, FIONREAD, poll and epoll readiness, and the
 * errors Linux gives. cmd/icount/inotify_test.go compares the output
 * natively (or under qemu-aarch64) and under icount. Rename cookies are
 * printed by their order of appearance (Linux's are a counter of the
 * whole system), every other field as it is.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "conformance.h"

static uint32_t cookies[64];
static int ncookies;

/* cookie_name is the order in which the program first saw the cookie c. */
static int cookie_name(uint32_t c)
{
	if (c == 0)
		return 0;
	for (int i = 0; i < ncookies; i++)
		if (cookies[i] == c)
			return i + 1;
	cookies[ncookies] = c;
	return ++ncookies;
}

static const struct {
	uint32_t bit;
	const char *name;
} masks[] = {
	{IN_ACCESS, "ACCESS"}, {IN_MODIFY, "MODIFY"}, {IN_ATTRIB, "ATTRIB"},
	{IN_CLOSE_WRITE, "CLOSE_WRITE"}, {IN_CLOSE_NOWRITE, "CLOSE_NOWRITE"},
	{IN_OPEN, "OPEN"}, {IN_MOVED_FROM, "MOVED_FROM"}, {IN_MOVED_TO, "MOVED_TO"},
	{IN_CREATE, "CREATE"}, {IN_DELETE, "DELETE"}, {IN_DELETE_SELF, "DELETE_SELF"},
	{IN_MOVE_SELF, "MOVE_SELF"}, {IN_UNMOUNT, "UNMOUNT"}, {IN_Q_OVERFLOW, "Q_OVERFLOW"},
	{IN_IGNORED, "IGNORED"}, {IN_ISDIR, "ISDIR"},
};

/* events reads once from fd into a buffer of size bytes and prints each
 * event, or the errno. */
static void events(const char *what, int fd, size_t size)
{
	char buf[4096] __attribute__((aligned(8)));
	ssize_t n = read(fd, buf, size);
	if (n < 0) {
		printf("%s: read %zu: %s\n", what, size, ename(errno));
		return;
	}
	printf("%s: read %zu: %zd bytes\n", what, size, n);
	for (char *p = buf; p < buf + n;) {
		struct inotify_event *e = (struct inotify_event *)p;
		printf("  wd %d", e->wd);
		for (size_t i = 0; i < sizeof masks / sizeof masks[0]; i++)
			if (e->mask & masks[i].bit)
				printf(" %s", masks[i].name);
		printf(" cookie #%d len %u name \"%s\"\n", cookie_name(e->cookie), e->len, e->len ? e->name : "");
		p += sizeof *e + e->len;
	}
}

static void value(const char *what, long rc)
{
	if (rc < 0)
		printf("%s: %s\n", what, ename(errno));
	else
		printf("%s: %ld\n", what, rc);
}

static void pending(const char *what, int fd)
{
	int n = -1;
	long rc = ioctl(fd, FIONREAD, &n);
	if (rc < 0)
		printf("%s: FIONREAD %s\n", what, ename(errno));
	else
		printf("%s: FIONREAD %d\n", what, n);
	struct pollfd p = {fd, POLLIN | POLLOUT, 0};
	rc = poll(&p, 1, 0);
	printf("%s: poll %ld revents %#x\n", what, rc, rc > 0 ? p.revents : 0);
}

static void touch(const char *name)
{
	int fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (fd < 0 || write(fd, "data", 4) != 4 || close(fd) < 0)
		printf("making %s: %s\n", name, ename(errno));
}

int main(int argc, char **argv)
{
	start(argc, argv);
	umask(022);
	value("inotify_init1 bad flags", inotify_init1(1));
	value("inotify_init1 IN_NONBLOCK|2", inotify_init1(IN_NONBLOCK | 2));
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	value("inotify_init1 IN_NONBLOCK|IN_CLOEXEC", fd >= 0 ? 0 : -1);
	printf("  FD_CLOEXEC %d O_NONBLOCK %d\n", fcntl(fd, F_GETFD) & FD_CLOEXEC, !!(fcntl(fd, F_GETFL) & O_NONBLOCK));
	events("nothing queued", fd, 4096);
	pending("nothing queued", fd);
	value("lseek", lseek(fd, 0, SEEK_SET));
	value("write", write(fd, "x", 1));

	if (mkdir("sub", 0755) < 0)
		perror("mkdir");
	touch("file");
	value("add_watch .", inotify_add_watch(fd, ".", IN_ALL_EVENTS));
	value("add_watch . again", inotify_add_watch(fd, ".", IN_ALL_EVENTS));
	value("add_watch ./ (the same directory)", inotify_add_watch(fd, "./", IN_CREATE));
	value("add_watch sub", inotify_add_watch(fd, "sub", IN_ALL_EVENTS | IN_ONLYDIR));
	value("add_watch file IN_ONLYDIR", inotify_add_watch(fd, "file", IN_ALL_EVENTS | IN_ONLYDIR));
	value("add_watch missing", inotify_add_watch(fd, "missing", IN_ALL_EVENTS));
	value("add_watch empty path", inotify_add_watch(fd, "", IN_ALL_EVENTS));
	value("add_watch mask 0", inotify_add_watch(fd, ".", 0));
	value("add_watch mask IN_ONLYDIR alone", inotify_add_watch(fd, ".", IN_ONLYDIR));
	value("add_watch IN_MASK_ADD|IN_MASK_CREATE", inotify_add_watch(fd, ".", IN_CREATE | IN_MASK_ADD | IN_MASK_CREATE));
	value("add_watch IN_MASK_CREATE on a watch", inotify_add_watch(fd, ".", IN_CREATE | IN_MASK_CREATE));
	value("add_watch bad path pointer", inotify_add_watch(fd, (char *)8, IN_ALL_EVENTS));
	value("add_watch fd -1", inotify_add_watch(-1, ".", IN_ALL_EVENTS));
	value("add_watch fd 99", inotify_add_watch(99, ".", IN_ALL_EVENTS));
	value("add_watch fd -1 mask 0", inotify_add_watch(-1, ".", 0));
	value("add_watch fd -1 bad path", inotify_add_watch(-1, (char *)8, IN_ALL_EVENTS));
	int plain = open("file", O_RDONLY);
	value("add_watch not an inotify fd", inotify_add_watch(plain, ".", IN_ALL_EVENTS));
	value("add_watch not an inotify fd, bad path", inotify_add_watch(plain, (char *)8, IN_ALL_EVENTS));
	close(plain);
	events("the watches' own opens", fd, 4096);

	touch("new");
	pending("after a file was made", fd);
	events("buffer of 16 bytes", fd, 16);
	events("buffer of 0 bytes", fd, 0);
	events("buffer of 31 bytes", fd, 31);
	events("made new", fd, 32);
	events("made new, the rest", fd, 4096);
	value("chmod", chmod("new", 0600));
	value("rename new sub/moved", rename("new", "sub/moved"));
	value("rename sub/moved again", rename("sub/moved", "again"));
	events("chmod and renames", fd, 4096);
	value("unlink again", unlink("again"));
	value("mkdir dir", mkdir("dir", 0755));
	value("rmdir dir", rmdir("dir"));
	events("unlink, mkdir, rmdir", fd, 4096);
	value("rmdir sub", rmdir("sub"));
	events("the watched sub removed", fd, 4096);
	value("rm_watch 2 (gone)", inotify_rm_watch(fd, 2));
	value("rm_watch 1", inotify_rm_watch(fd, 1));
	events("after rm_watch", fd, 4096);
	value("rm_watch 1 again", inotify_rm_watch(fd, 1));
	value("rm_watch -1", inotify_rm_watch(fd, -1));
	value("rm_watch fd -1", inotify_rm_watch(-1, 1));
	value("rm_watch not an inotify fd", inotify_rm_watch(1, 1));

	/* A watch in /tmp: the directory mkdtemp makes, by its absolute path. */
	char tmp[] = "/tmp/inotify-XXXXXX";
	if (mkdtemp(tmp) == NULL)
		perror("mkdtemp");
	value("add_watch /tmp/inotify-XXXXXX", inotify_add_watch(fd, tmp, IN_CREATE | IN_DELETE | IN_DELETE_SELF));
	char name[64];
	snprintf(name, sizeof name, "%s/in-tmp", tmp);
	touch(name);
	unlink(name);
	rmdir(tmp);
	events("in /tmp", fd, 4096);

	/* epoll readiness. */
	int ep = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event ev = {.events = EPOLLIN, .data.u32 = 7}, got;
	value("epoll_ctl ADD", epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev));
	value("epoll_wait nothing queued", epoll_wait(ep, &got, 1, 0));
	value("add_watch . IN_CREATE", inotify_add_watch(fd, ".", IN_CREATE));
	touch("third");
	value("epoll_wait after a create", epoll_wait(ep, &got, 1, 0));
	printf("  events %#x data %u\n", got.events, got.data.u32);
	events("third", fd, 4096);
	close(ep);
	show("close", close(fd));

	/* A blocking instance: the read waits for a child's rename. */
	int bfd = inotify_init();
	printf("inotify_init: FD_CLOEXEC %d O_NONBLOCK %d\n", fcntl(bfd, F_GETFD) & FD_CLOEXEC, !!(fcntl(bfd, F_GETFL) & O_NONBLOCK));
	value("add_watch . IN_MOVE", inotify_add_watch(bfd, ".", IN_MOVE));
	pid_t child = fork();
	if (child == 0) {
		rename("third", "fourth");
		_exit(0);
	}
	events("a blocking read, the child's rename", bfd, 4096);
	int status;
	waitpid(child, &status, 0);
	value("fcntl F_SETFL O_NONBLOCK", fcntl(bfd, F_SETFL, O_NONBLOCK));
	events("after F_SETFL O_NONBLOCK", bfd, 4096);
	int on = 0;
	value("ioctl FIONBIO 0", ioctl(bfd, FIONBIO, &on));
	value("add_watch . IN_DELETE", inotify_add_watch(bfd, ".", IN_DELETE));
	unlink("fourth");
	unlink("file");
	events("delete, blocking again", bfd, 4096);
	close(bfd);
	return 0;
}
