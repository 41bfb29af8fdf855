/* nonblock: O_NONBLOCK as fcntl (F_GETFL, F_SETFL) and ioctl (FIONBIO)
 * set it, and what read, write, poll, select and epoll then give, on a
 * pipe the program makes, on a FIFO it opens by path at both ends (and
 * whose blocking opens in two processes wait for each other), and on
 * its stdout (a pipe its runner reads, which icount did not make); with
 * bad descriptors and pointers. It prints every result and errno, the
 * same under Linux and icount (cmd/icount/hostfds_test.go). The stdout
 * part asks only what cannot depend on how fast the reader drains it
 * (the pipe never holds more than a few lines). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/wait.h>

#include "conformance.h"

/* flags names the access mode and the status flags F_GETFL shows. */
static const char *flags(int fd)
{
	static char buf[64];
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0)
		return ename(errno);
	const char *mode = (fl & O_ACCMODE) == O_RDONLY ? "O_RDONLY" : (fl & O_ACCMODE) == O_WRONLY ? "O_WRONLY" : "O_RDWR";
	snprintf(buf, sizeof buf, "%s%s%s", mode, fl & O_NONBLOCK ? "|O_NONBLOCK" : "", fl & O_APPEND ? "|O_APPEND" : "");
	return buf;
}

/* events names poll's revents. */
static const char *events(int ev)
{
	static char buf[64];
	snprintf(buf, sizeof buf, "%s%s%s%s%s", ev & POLLIN ? " POLLIN" : "", ev & POLLOUT ? " POLLOUT" : "",
		 ev & POLLHUP ? " POLLHUP" : "", ev & POLLERR ? " POLLERR" : "", ev & POLLNVAL ? " POLLNVAL" : "");
	return ev ? buf + 1 : "none";
}

/* pollOne polls fd for ev with no wait and prints what it found. */
static void pollOne(const char *what, int fd, short ev)
{
	struct pollfd p = {fd, ev, 0};
	int n = poll(&p, 1, 0);
	if (n < 0)
		printf("poll %s: %s\n", what, ename(errno));
	else
		printf("poll %s: %d %s\n", what, n, events(p.revents));
}

/* selectOne selects fd for reading and writing with no wait. */
static void selectOne(const char *what, int fd)
{
	fd_set r, w;
	FD_ZERO(&r);
	FD_ZERO(&w);
	FD_SET(fd, &r);
	FD_SET(fd, &w);
	struct timeval tv = {0, 0};
	int n = select(fd + 1, &r, &w, NULL, &tv);
	if (n < 0)
		printf("select %s: %s\n", what, ename(errno));
	else
		printf("select %s: %d%s%s\n", what, n, FD_ISSET(fd, &r) ? " read" : "", FD_ISSET(fd, &w) ? " write" : "");
}

/* fionbio sets O_NONBLOCK on or off with ioctl and prints the flags. */
static void fionbio(const char *what, int fd, int on)
{
	int r = ioctl(fd, FIONBIO, &on);
	printf("FIONBIO %s %d: %s, flags %s\n", what, on, err(r), flags(fd));
}

/* setfl sets the status flags with fcntl and prints the flags. */
static void setfl(const char *what, int fd, int fl)
{
	int r = fcntl(fd, F_SETFL, fl);
	printf("F_SETFL %s: %s, flags %s\n", what, err(r), flags(fd));
}

/* readOne reads up to n bytes and prints the count or errno. */
static void readOne(const char *what, int fd, size_t n)
{
	char buf[8192];
	ssize_t r = read(fd, buf, n < sizeof buf ? n : sizeof buf);
	if (r < 0)
		printf("read %s: %s\n", what, ename(errno));
	else
		printf("read %s: %zd\n", what, r);
}

/* fill writes to the non-blocking fd until it would block, and prints how
 * much it took and how the next write failed. */
static void fill(const char *what, int fd)
{
	static char buf[1000];
	long total = 0;
	ssize_t r;
	while ((r = write(fd, buf, sizeof buf)) > 0)
		total += r;
	printf("fill %s: %ld bytes, then %s\n", what, total, r < 0 ? ename(errno) : "0");
}

/* epollOne waits on a new epoll instance watching fd for ev twice,
 * without a transfer between, and prints both answers. */
static void epollOne(const char *what, int fd, unsigned ev)
{
	int ep = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event e = {.events = ev, .data.u64 = 0x1122334455667788ull};
	int r = epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e);
	int again = epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e);
	struct epoll_event out[2], out2[2];
	int n1 = epoll_wait(ep, out, 2, 0);
	int n2 = epoll_wait(ep, out2, 2, 0);
	printf("epoll %s: add %s, add again %s, wait %d", what, err(r), again < 0 ? ename(errno) : "ok", n1);
	if (n1 > 0)
		printf(" (%s, data %s)", events(out[0].events), out[0].data.u64 == 0x1122334455667788ull ? "kept" : "lost");
	printf(", again %d", n2);
	if (n2 > 0)
		printf(" (%s)", events(out2[0].events));
	struct epoll_event m = {.events = ev | EPOLLONESHOT};
	int mod = epoll_ctl(ep, EPOLL_CTL_MOD, fd, &m);
	int n3 = epoll_wait(ep, out, 2, 0);
	int n4 = epoll_wait(ep, out, 2, 0);
	int del = epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);
	int del2 = epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);
	printf("; oneshot mod %s, wait %d, again %d; del %s, del again %s\n", err(mod), n3, n4, err(del),
	       del2 < 0 ? ename(errno) : "ok");
	close(ep);
}

/* pipeEnds is the pipe part: flags, transfers and readiness of both ends
 * as O_NONBLOCK comes and goes, a full pipe, a reader or writer gone. */
static void pipeEnds(void)
{
	int p[2];
	show("pipe", pipe(p));
	printf("flags read end %s, ", flags(p[0]));
	printf("write end %s\n", flags(p[1]));
	setfl("read end O_NONBLOCK", p[0], O_NONBLOCK);
	readOne("empty non-blocking", p[0], 10);
	pollOne("empty read end", p[0], POLLIN | POLLOUT);
	pollOne("empty write end", p[1], POLLIN | POLLOUT);
	selectOne("empty read end", p[0]);
	selectOne("empty write end", p[1]);
	epollOne("empty read end", p[0], EPOLLIN);
	epollOne("empty write end, level", p[1], EPOLLOUT);
	epollOne("empty write end, edge", p[1], EPOLLOUT | EPOLLET);
	fionbio("write end", p[1], 1);
	int d = dup(p[1]);
	printf("dup of write end: flags %s\n", flags(d));
	fill("write end", p[1]);
	pollOne("full write end", p[1], POLLOUT);
	pollOne("full read end", p[0], POLLIN);
	selectOne("full write end", p[1]);
	epollOne("full write end", p[1], EPOLLOUT);
	epollOne("full read end", p[0], EPOLLIN);
	int avail = -1;
	int r = ioctl(p[0], FIONREAD, &avail);
	printf("FIONREAD full: %s %d\n", err(r), avail);
	readOne("full", p[0], 4096);
	pollOne("write end after a page read", p[1], POLLOUT);
	fionbio("dup of write end", d, 0);
	printf("write end after: flags %s\n", flags(p[1]));
	setfl("write end O_APPEND|O_NONBLOCK", p[1], O_APPEND | O_NONBLOCK);
	setfl("write end 0", p[1], 0);
	close(d);
	close(p[1]);
	pollOne("read end, writer gone, data left", p[0], POLLIN);
	while (read(p[0], (char[8192]){0}, 8192) > 0)
		;
	pollOne("read end, writer gone, drained", p[0], POLLIN);
	readOne("writer gone", p[0], 10);
	close(p[0]);

	show("pipe2 O_NONBLOCK", pipe2(p, O_NONBLOCK | O_CLOEXEC));
	printf("flags read end %s, ", flags(p[0]));
	printf("write end %s\n", flags(p[1]));
	fionbio("read end", p[0], 0);
	close(p[0]);
	signal(SIGPIPE, SIG_IGN);
	ssize_t w = write(p[1], "x", 1);
	printf("write, reader gone: %s\n", w < 0 ? ename(errno) : "ok");
	pollOne("write end, reader gone", p[1], POLLOUT);
	close(p[1]);
}

/* fifoEnds opens a FIFO by path at both ends, the read end first without
 * waiting (O_NONBLOCK), as a process of the run holds both. */
static void fifoEnds(void)
{
	show("mkfifo", mkfifo("fifo", 0600));
	int w0 = open("fifo", O_WRONLY | O_NONBLOCK);
	printf("open write end, no reader: %s\n", w0 < 0 ? ename(errno) : "ok");
	int r = open("fifo", O_RDONLY | O_NONBLOCK);
	printf("open read end O_NONBLOCK: %s, flags %s\n", err(r), flags(r));
	readOne("fifo, no writer", r, 10);
	int w = open("fifo", O_WRONLY | O_NONBLOCK);
	printf("open write end O_NONBLOCK: %s, flags %s\n", err(w), flags(w));
	readOne("fifo empty, writer open", r, 10);
	pollOne("fifo read end, empty", r, POLLIN);
	pollOne("fifo write end", w, POLLOUT);
	fill("fifo write end", w);
	int avail = -1;
	int rc = ioctl(r, FIONREAD, &avail);
	printf("FIONREAD fifo full: %s %d\n", err(rc), avail);
	pollOne("fifo read end, full", r, POLLIN);
	pollOne("fifo write end, full", w, POLLOUT);
	readOne("fifo full", r, 4096);
	setfl("fifo write end 0", w, 0);
	fionbio("fifo read end", r, 0);
	setfl("fifo read end O_NONBLOCK", r, O_NONBLOCK);
	close(w);
	while (read(r, (char[8192]){0}, 8192) > 0)
		;
	readOne("fifo, writer gone", r, 10);
	close(r);
	int rw = open("fifo", O_RDWR | O_NONBLOCK);
	printf("open O_RDWR|O_NONBLOCK: %s, flags %s\n", err(rw), flags(rw));
	readOne("fifo O_RDWR, empty", rw, 10);
	show("write fifo O_RDWR", write(rw, "abc", 3));
	readOne("fifo O_RDWR", rw, 10);
	close(rw);
	show("unlink fifo", unlink("fifo"));
}

/* fifoOpenWaits opens a FIFO by path without O_NONBLOCK in a parent and
 * a forked child, which wait for each other as Linux's opens do: the
 * writer first, the reader first, and a writer opening with O_NONBLOCK
 * while the reader waits. The child writes "hello" and exits 0 when its
 * open and write worked; the parent prints what it read. */
static void fifoOpenWaits(void)
{
	static const char *cases[] = {"writer first", "reader first", "writer O_NONBLOCK, reader waiting"};
	for (int c = 0; c < 3; c++) {
		mkfifo("fifo", 0600);
		pid_t pid = fork();
		if (pid == 0) {
			if (c != 0)
				usleep(20000);
			int w = open("fifo", O_WRONLY | (c == 2 ? O_NONBLOCK : 0));
			_exit(w < 0 || write(w, "hello", 5) != 5 ? 1 : 0);
		}
		if (c == 0)
			usleep(20000);
		int r = open("fifo", O_RDONLY);
		char buf[64];
		long total = 0;
		ssize_t n;
		while ((n = read(r, buf, sizeof buf)) > 0)
			total += n;
		int status = -1;
		waitpid(pid, &status, 0);
		printf("blocking open, %s: open %s, read %ld bytes, then %s; writer exit %d\n", cases[c], err(r), total,
		       n == 0 ? "EOF" : ename(errno), WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		close(r);
		unlink("fifo");
	}
}

/* stdoutFlags sets and clears O_NONBLOCK on stdout, a pipe to the runner,
 * and asks what does not depend on the runner's pace. */
static void stdoutFlags(void)
{
	printf("stdout flags %s\n", flags(1));
	int r = fcntl(1, F_SETFL, fcntl(1, F_GETFL) | O_NONBLOCK);
	printf("F_SETFL stdout O_NONBLOCK: %s, flags %s\n", err(r), flags(1));
	pollOne("stdout", 1, POLLOUT);
	selectOne("stdout", 1);
	epollOne("stdout, level", 1, EPOLLOUT);
	fionbio("stdout", 1, 0);
	fionbio("stdout", 1, 1);
	setfl("stdout 0", 1, 0);
}

/* badArgs gives the calls a descriptor that is not open and a pointer to
 * nowhere. */
static void badArgs(void)
{
	int on = 1;
	printf("F_GETFL bad fd: %s\n", err(fcntl(99, F_GETFL)));
	printf("F_SETFL bad fd: %s\n", err(fcntl(99, F_SETFL, O_NONBLOCK)));
	printf("FIONBIO bad fd: %s\n", err(ioctl(99, FIONBIO, &on)));
	int p[2];
	pipe(p);
	printf("FIONBIO bad pointer: %s, flags %s\n", err(ioctl(p[0], FIONBIO, (int *)8)), flags(p[0]));
	printf("FIONREAD bad pointer: %s\n", err(ioctl(p[0], FIONREAD, (int *)8)));
	pollOne("closed fd", 99, POLLIN);
	close(p[0]);
	close(p[1]);
}

int main(int argc, char **argv)
{
	start(argc, argv);
	pipeEnds();
	fifoEnds();
	fifoOpenWaits();
	stdoutFlags();
	badArgs();
	printf("done\n");
	return 0;
}
