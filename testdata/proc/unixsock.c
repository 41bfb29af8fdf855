/* Unix-domain sockets between processes: socketpair of each type, the
 * transfers and their flags, shutdown, readiness, EPIPE and SIGPIPE,
 * buffer limits, socket options, blocking transfers between a parent and
 * a child that take turns; every result, errno and byte received is
 * printed, the same natively and under icount. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../c/errname.h"

static long show(const char *what, long r) {
	if (r < 0)
		printf("%s: %s\n", what, ename(errno));
	else
		printf("%s: %ld\n", what, r);
	return r;
}

static volatile int sigpipes;
static pid_t last_child;
static void onpipe(int sig) { (void)sig; sigpipes++; }

static const char *tname(int t) {
	return t == SOCK_STREAM ? "stream" : t == SOCK_DGRAM ? "dgram" : "seqpacket";
}

static void printdata(const char *what, const char *buf, long n) {
	printf("%s: %ld \"", what, n);
	for (long i = 0; i < n; i++)
		putchar(buf[i] >= 32 && buf[i] < 127 ? buf[i] : '.');
	printf("\"\n");
}

static void recvshow(const char *what, int fd, size_t len, int flags) {
	char buf[64];
	long n = recv(fd, buf, len, flags);
	if (n < 0)
		show(what, n);
	else
		printdata(what, buf, n < (long)len ? n : (long)len);
}

static int optint(int fd, int name) {
	int v = -7;
	socklen_t len = sizeof v;
	if (getsockopt(fd, SOL_SOCKET, name, &v, &len) < 0)
		return -errno;
	return v;
}

static void options(int fd) {
	printf("  SO_TYPE %d SO_DOMAIN %d SO_PROTOCOL %d SO_SNDBUF %d SO_RCVBUF %d SO_PASSCRED %d SO_ERROR %d SO_ACCEPTCONN %d SO_REUSEADDR %d SO_KEEPALIVE %d\n",
	       optint(fd, SO_TYPE), optint(fd, SO_DOMAIN), optint(fd, SO_PROTOCOL), optint(fd, SO_SNDBUF),
	       optint(fd, SO_RCVBUF), optint(fd, SO_PASSCRED), optint(fd, SO_ERROR), optint(fd, SO_ACCEPTCONN),
	       optint(fd, SO_REUSEADDR), optint(fd, SO_KEEPALIVE));
	struct ucred c;
	socklen_t len = sizeof c;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &c, &len) == 0)
		printf("  SO_PEERCRED len %u: pid is mine %d, uid is mine %d, gid is mine %d\n", len, c.pid == getpid(),
		       c.uid == getuid(), c.gid == getgid());
	else
		show("  SO_PEERCRED", -1);
}

static void each_type(int type) {
	int sv[2];
	char buf[64];
	printf("== %s\n", tname(type));
	if (show("socketpair", socketpair(AF_UNIX, type, 0, sv)) < 0)
		return;
	printf("fds %d %d\n", sv[0], sv[1]);
	options(sv[0]);
	show("send hello", send(sv[0], "hello", 5, 0));
	show("send world!", send(sv[0], "world!", 6, 0));
	struct pollfd pf[2] = {{sv[0], POLLIN | POLLOUT, 0}, {sv[1], POLLIN | POLLOUT, 0}};
	show("poll", poll(pf, 2, 0));
	printf("  revents %#x %#x\n", pf[0].revents, pf[1].revents);
	recvshow("recv peek 3", sv[1], 3, MSG_PEEK);
	recvshow("recv 3", sv[1], 3, 0);
	long n = recv(sv[1], buf, 2, MSG_TRUNC);
	show("recv 2 MSG_TRUNC", n);
	recvshow("recv 64", sv[1], 64, MSG_DONTWAIT);
	recvshow("recv empty MSG_DONTWAIT", sv[1], 64, MSG_DONTWAIT);
	show("write", write(sv[1], "back", 4));
	show("read", read(sv[0], buf, sizeof buf));
	struct sockaddr_un from;
	socklen_t flen = sizeof from;
	show("sendto", sendto(sv[0], "x", 1, 0, NULL, 0));
	show("recvfrom", recvfrom(sv[1], buf, sizeof buf, 0, (struct sockaddr *)&from, &flen));
	printf("  from len %u\n", flen);
	show("shutdown 7", shutdown(sv[0], 7));
	show("shutdown SHUT_WR", shutdown(sv[0], SHUT_WR));
	show("send after SHUT_WR", send(sv[0], "y", 1, MSG_NOSIGNAL));
	printf("  sigpipes %d\n", sigpipes);
	recvshow("recv after peer SHUT_WR", sv[1], 64, MSG_DONTWAIT);
	show("send back after SHUT_WR", send(sv[1], "z", 1, MSG_DONTWAIT));
	recvshow("recv on the shut end", sv[0], 64, MSG_DONTWAIT);
	show("shutdown SHUT_RD", shutdown(sv[1], SHUT_RD));
	pf[0].revents = pf[1].revents = 0;
	show("poll", poll(pf, 2, 0));
	printf("  revents %#x %#x\n", pf[0].revents, pf[1].revents);
	close(sv[0]);
	close(sv[1]);

	socketpair(AF_UNIX, type, 0, sv);
	close(sv[1]);
	sigpipes = 0;
	show("send to a closed peer", send(sv[0], "a", 1, 0));
	printf("  sigpipes %d\n", sigpipes);
	show("write to a closed peer", write(sv[0], "a", 1));
	printf("  sigpipes %d\n", sigpipes);
	show("send MSG_NOSIGNAL", send(sv[0], "a", 1, MSG_NOSIGNAL));
	printf("  sigpipes %d\n", sigpipes);
	sigpipes = 0;
	recvshow("recv from a closed peer", sv[0], 64, MSG_DONTWAIT);
	pf[0].fd = sv[0];
	pf[0].revents = 0;
	show("poll", poll(pf, 1, 0));
	printf("  revents %#x\n", pf[0].revents);
	close(sv[0]);

	/* How much a non-blocking sender gets in before the buffer is full. */
	socketpair(AF_UNIX, type | SOCK_NONBLOCK, 0, sv);
	static char big[1 << 20];
	long total = 0, msgs = 0;
	for (;;) {
		long w = send(sv[0], big, type == SOCK_STREAM ? sizeof big : 100, 0);
		if (w < 0) {
			show("filling", w);
			break;
		}
		total += w;
		msgs++;
	}
	printf("  took %ld bytes in %ld sends\n", total, msgs);
	pf[0].fd = sv[0];
	pf[0].revents = 0;
	show("poll full", poll(pf, 1, 0));
	printf("  revents %#x\n", pf[0].revents);
	close(sv[0]);
	close(sv[1]);
}

/* The parent and a child take turns through a blocking stream. */
static void turns(int type) {
	int sv[2];
	printf("== turns %s\n", tname(type));
	socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, sv);
	printf("  cloexec %d\n", fcntl(sv[0], F_GETFD));
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		close(sv[0]);
		static char big[300000];
		memset(big, 'b', sizeof big);
		char buf[16];
		struct ucred c;
		socklen_t len = sizeof c;
		getsockopt(sv[1], SOL_SOCKET, SO_PEERCRED, &c, &len);
		printf("child: peer is parent %d\n", c.pid == getppid());
		long n = read(sv[1], buf, sizeof buf); /* the parent's go */
		printdata("child: read", buf, n);
		if (type == SOCK_STREAM) {
			printf("child: wrote %ld\n", (long)write(sv[1], big, sizeof big));
			write(sv[1], "1234", 4);
			write(sv[1], "5678", 4);
		} else {
			for (int i = 0; i < 20; i++)
				send(sv[1], big, 1000 + i, 0);
			printf("child: sent 20\n");
		}
		fflush(stdout);
		_exit(0);
	}
	close(sv[1]);
	show("write go", write(sv[0], "go", 2));
	static char in[1 << 20];
	if (type == SOCK_STREAM) {
		long total = 0, n;
		while (total < 300000 && (n = read(sv[0], in, 300000 - total)) > 0)
			total += n;
		int st;
		waitpid(pid, &st, 0);
		printf("read %ld bytes\n", total);
		long w = recv(sv[0], in, 8, MSG_WAITALL);
		printdata("recv MSG_WAITALL 8", in, w);
		show("recv at the end", recv(sv[0], in, 8, MSG_WAITALL));
	} else {
		long sum = 0;
		for (int i = 0; i < 20; i++)
			sum += recv(sv[0], in, sizeof in, 0);
		int st;
		waitpid(pid, &st, 0);
		printf("received %ld bytes in 20 messages\n", sum);
		show("recv at the end", recv(sv[0], in, 8, MSG_DONTWAIT));
	}
	close(sv[0]);
}

static void edges(void) {
	int sv[2], p[2];
	printf("== edges\n");
	show("socketpair AF_INET", socketpair(AF_INET, SOCK_STREAM, 0, sv));
	show("socketpair AF_INET6", socketpair(AF_INET6, SOCK_STREAM, 0, sv));
	show("socketpair 999", socketpair(999, SOCK_STREAM, 0, sv));
	show("socketpair type 99", socketpair(AF_UNIX, 99, 0, sv));
	show("socketpair protocol 5", socketpair(AF_UNIX, SOCK_STREAM, 5, sv));
	show("socketpair flag 0x1000", socketpair(AF_UNIX, SOCK_STREAM | 0x1000, 0, sv));
	show("socketpair sv NULL", socketpair(AF_UNIX, SOCK_STREAM, 0, NULL));
	show("socketpair nonblock", socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv));
	printf("  fds %d %d O_NONBLOCK %d\n", sv[0], sv[1], (fcntl(sv[0], F_GETFL) & O_NONBLOCK) != 0);
	show("read empty non-blocking", read(sv[0], p, 4));
	int v = 1;
	show("setsockopt SO_SNDBUF 1", setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &v, sizeof v));
	show("setsockopt SO_RCVBUF 1", setsockopt(sv[0], SOL_SOCKET, SO_RCVBUF, &v, sizeof v));
	v = 65536;
	show("setsockopt SO_SNDBUF 65536", setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &v, sizeof v));
	v = 1;
	show("setsockopt SO_PASSCRED", setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &v, sizeof v));
	show("setsockopt SO_REUSEADDR", setsockopt(sv[1], SOL_SOCKET, SO_REUSEADDR, &v, sizeof v));
	show("setsockopt SO_KEEPALIVE", setsockopt(sv[1], SOL_SOCKET, SO_KEEPALIVE, &v, sizeof v));
	show("setsockopt SO_TYPE", setsockopt(sv[1], SOL_SOCKET, SO_TYPE, &v, sizeof v));
	show("setsockopt SO_SNDBUF len 2", setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &v, 2));
	show("setsockopt SO_SNDBUF bad pointer", setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, (void *)8, 4));
	options(sv[0]);
	options(sv[1]);
	struct timeval tv = {1, 500000};
	show("setsockopt SO_RCVTIMEO", setsockopt(sv[1], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv));
	show("setsockopt SO_SNDTIMEO", setsockopt(sv[1], SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv));
	tv.tv_usec = 2000000;
	show("setsockopt SO_RCVTIMEO usec 2000000", setsockopt(sv[1], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv));
	show("setsockopt SO_RCVTIMEO short", setsockopt(sv[1], SOL_SOCKET, SO_RCVTIMEO, &tv, 8));
	socklen_t tlen = sizeof tv;
	show("getsockopt SO_RCVTIMEO", getsockopt(sv[1], SOL_SOCKET, SO_RCVTIMEO, &tv, &tlen));
	printf("  len %u %ld s %ld us\n", tlen, (long)tv.tv_sec, (long)tv.tv_usec);
	show("getsockopt SO_SNDTIMEO unset", getsockopt(sv[0], SOL_SOCKET, SO_SNDTIMEO, &tv, &tlen));
	printf("  len %u %ld s %ld us\n", tlen, (long)tv.tv_sec, (long)tv.tv_usec);
	int fl = fcntl(sv[1], F_GETFL);
	fcntl(sv[1], F_SETFL, fl & ~O_NONBLOCK);
	show("recv timing out", recv(sv[1], &v, 4, 0));
	fcntl(sv[1], F_SETFL, fl);
	socklen_t len = 2;
	v = 0;
	show("getsockopt SO_TYPE len 2", getsockopt(sv[0], SOL_SOCKET, SO_TYPE, &v, &len));
	printf("  len %u value %d\n", len, v);
	len = -1;
	show("getsockopt len -1", getsockopt(sv[0], SOL_SOCKET, SO_TYPE, &v, &len));
	len = 4;
	show("getsockopt bad pointer", getsockopt(sv[0], SOL_SOCKET, SO_TYPE, (void *)8, &len));
	show("getsockopt bad len pointer", getsockopt(sv[0], SOL_SOCKET, SO_TYPE, &v, (void *)8));
	show("getsockopt level TCP", getsockopt(sv[0], 6, 1, &v, &len));
	show("setsockopt level TCP", setsockopt(sv[0], 6, 1, &v, 4));
	pipe(p);
	show("send on a pipe", send(p[1], "x", 1, 0));
	show("getsockopt on a pipe", getsockopt(p[0], SOL_SOCKET, SO_TYPE, &v, &len));
	show("shutdown on a pipe", shutdown(p[0], SHUT_RD));
	show("send on a bad fd", send(99, "x", 1, 0));
	show("recv on a bad fd", recv(99, &v, 1, 0));
	show("shutdown on a bad fd", shutdown(99, SHUT_RD));
	show("send bad buffer", send(sv[0], (void *)8, 4, 0));
	show("send", send(sv[0], "abcd", 4, 0));
	show("recv bad buffer", recv(sv[1], (void *)8, 4, 0));
	show("recv after a bad buffer", recv(sv[1], &v, 4, MSG_DONTWAIT));
	show("send", send(sv[0], "abcd", 4, 0));
	struct iovec biov[2] = {{&v, 2}, {(void *)8, 2}};
	struct msghdr bm = {.msg_iov = biov, .msg_iovlen = 2};
	show("recvmsg bad second iovec", recvmsg(sv[1], &bm, 0));
	biov[0].iov_len = 4;
	show("recvmsg first iovec", recvmsg(sv[1], &bm, 0));
	int dg[2];
	socketpair(AF_UNIX, SOCK_DGRAM, 0, dg);
	send(dg[0], "msg", 3, 0);
	show("dgram recv bad buffer", recv(dg[1], (void *)8, 4, 0));
	show("dgram recv after", recv(dg[1], &v, 4, MSG_DONTWAIT));
	close(dg[0]);
	close(dg[1]);
	show("send", send(sv[0], "abcd", 4, 0));
	close(p[0]);
	close(p[1]);
	close(sv[0]);
	close(sv[1]);
}

/* Descriptors and credentials between processes: the child sends the read
 * end of a pipe of its own, then two descriptors where the parent has room
 * for one; the parent reads the pipe through what it got. */
static void sendfds(int sock, const int *fds, int n, const char *byte) {
	char ctl[CMSG_SPACE(2 * sizeof(int))];
	memset(ctl, 0, sizeof ctl);
	struct iovec iov = {(void *)byte, 1};
	struct msghdr m = {0};
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = ctl;
	m.msg_controllen = CMSG_SPACE(n * sizeof(int));
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(n * sizeof(int));
	memcpy(CMSG_DATA(c), fds, n * sizeof(int));
	printf("child: sendmsg %ld\n", (long)sendmsg(sock, &m, 0));
}

static void recvshowmsg(const char *what, int sock, size_t room, int flags) {
	char data[8], ctl[256];
	struct iovec iov[2] = {{data, 1}, {data + 1, 3}};
	struct msghdr m = {0};
	m.msg_iov = iov;
	m.msg_iovlen = 2;
	m.msg_control = room ? ctl : NULL;
	m.msg_controllen = room;
	long n = recvmsg(sock, &m, flags);
	if (n < 0) {
		show(what, n);
		return;
	}
	printf("%s: %ld \"%.*s\" controllen %zu flags %#x\n", what, n, (int)n, data, (size_t)m.msg_controllen, m.msg_flags);
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
		printf("  cmsg level %d type %d len %zu\n", c->cmsg_level, c->cmsg_type, (size_t)c->cmsg_len);
		if (c->cmsg_type == SCM_RIGHTS) {
			int nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			for (int i = 0; i < nfd; i++) {
				int fd;
				memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
				char buf[32];
				long r = read(fd, buf, sizeof buf);
				printf("  fd %d cloexec %d read %ld \"%.*s\"\n", fd, fcntl(fd, F_GETFD), r, r > 0 ? (int)r : 0, buf);
				close(fd);
			}
		} else if (c->cmsg_type == SCM_CREDENTIALS) {
			struct ucred u;
			memcpy(&u, CMSG_DATA(c), sizeof u);
			printf("  creds: pid is the child %d, uid is mine %d, gid is mine %d\n", u.pid == last_child, u.uid == getuid(), u.gid == getgid());
		}
	}
}

static void rights(void) {
	int sv[2];
	printf("== rights\n");
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	int v = 1;
	setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &v, sizeof v);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		close(sv[0]);
		int p[2], q[2];
		pipe(p);
		pipe(q);
		write(p[1], "via pipe", 8);
		write(q[1], "second", 6);
		sendfds(sv[1], p, 1, "A");
		int two[2] = {q[0], p[0]};
		sendfds(sv[1], two, 2, "B");
		write(sv[1], "CD", 2);
		sendfds(sv[1], &q[0], 1, "E");
		int bad = 99;
		sendfds(sv[1], &bad, 1, "F");
		fflush(stdout);
		_exit(0);
	}
	last_child = pid;
	close(sv[1]);
	int st;
	waitpid(pid, &st, 0);
	recvshowmsg("recvmsg cloexec", sv[0], 256, MSG_CMSG_CLOEXEC);
	recvshowmsg("recvmsg room for one", sv[0], CMSG_SPACE(sizeof(struct ucred)) + CMSG_LEN(sizeof(int)), 0);
	recvshowmsg("recvmsg peek", sv[0], 256, MSG_PEEK);
	recvshowmsg("recvmsg", sv[0], 256, 0);
	recvshowmsg("recvmsg no room", sv[0], 0, 0);
	recvshowmsg("recvmsg at the end", sv[0], 256, 0);
	show("sendmsg bad msghdr", syscall(SYS_sendmsg, sv[0], (void *)8, 0)); /* musl's wrapper reads it */
	show("recvmsg bad msghdr", syscall(SYS_recvmsg, sv[0], (void *)8, 0));
	close(sv[0]);
}

/* The abstract name the tests bind: unique to the process, since the
 * abstract namespace is the host's for every native run (other builds of
 * this program, other test runs at once), shown with its pid part masked. */
static char abstract[15];

static void showname(const char *what, int fd, int peer) {
	struct sockaddr_un a;
	memset(&a, 'x', sizeof a);
	socklen_t len = sizeof a;
	int r = peer ? getpeername(fd, (struct sockaddr *)&a, &len) : getsockname(fd, (struct sockaddr *)&a, &len);
	if (r < 0) {
		show(what, r);
		return;
	}
	printf("%s: len %u family %d", what, len, a.sun_family);
	if (len - 2 == sizeof abstract - 1 && memcmp(a.sun_path, abstract, sizeof abstract - 1) == 0)
		memcpy(a.sun_path + 8, "PPPPPP", 6);
	if (len > 2 && len <= sizeof a)
		printdata(" name", a.sun_path, len - 2);
	else
		printf("\n");
}

static socklen_t mkaddr(struct sockaddr_un *a, const char *name, size_t n) {
	memset(a, 0, sizeof *a);
	a->sun_family = AF_UNIX;
	memcpy(a->sun_path, name, n);
	return offsetof(struct sockaddr_un, sun_path) + n;
}

static int peerpid(int fd) {
	struct ucred c;
	socklen_t len = sizeof c;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &c, &len) < 0)
		return -errno;
	return c.pid;
}

/* Named sockets: abstract names, path names in the working directory,
 * autobind, datagrams between names, the backlog. */
static void named(void) {
	struct sockaddr_un a, b;
	snprintf(abstract + 1, sizeof abstract - 1, "icount-%06d", (int)(getpid() % 1000000));
	socklen_t alen = mkaddr(&a, abstract, sizeof abstract - 1), blen;
	printf("== named\n");
	show("socket 999", socket(999, SOCK_STREAM, 0));
	show("socket type 99", socket(AF_UNIX, 99, 0));
	int srv = show("socket", socket(AF_UNIX, SOCK_STREAM, 0));
	show("getpeername unconnected", getpeername(srv, (struct sockaddr *)&b, &(socklen_t){sizeof b}));
	showname("getsockname unbound", srv, 0);
	show("bind len 1", bind(srv, (struct sockaddr *)&a, 1));
	b.sun_family = AF_INET;
	show("bind AF_INET", bind(srv, (struct sockaddr *)&b, alen));
	show("bind bad pointer", bind(srv, (void *)8, alen));
	show("bind abstract", bind(srv, (struct sockaddr *)&a, alen));
	show("bind again", bind(srv, (struct sockaddr *)&a, alen));
	int other = socket(AF_UNIX, SOCK_STREAM, 0);
	show("bind taken", bind(other, (struct sockaddr *)&a, alen));
	showname("getsockname", srv, 0);
	show("connect before listen", connect(other, (struct sockaddr *)&a, alen));
	show("listen", listen(srv, 4));
	printf("  SO_ACCEPTCONN %d, SO_PEERCRED is mine %d\n", optint(srv, SO_ACCEPTCONN), peerpid(srv) == getpid());
	blen = mkaddr(&b, "\0nobody", 7);
	show("connect to nobody", connect(other, (struct sockaddr *)&b, blen));
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		int c = socket(AF_UNIX, SOCK_STREAM, 0);
		printf("child: connect %d\n", connect(c, (struct sockaddr *)&a, alen));
		printf("child: peer is parent %d\n", peerpid(c) == getppid());
		showname("child: getpeername", c, 1);
		showname("child: getsockname", c, 0);
		send(c, "hi", 2, 0);
		fflush(stdout);
		_exit(0);
	}
	int st;
	waitpid(pid, &st, 0);
	struct pollfd pf = {srv, POLLIN, 0};
	show("poll listener", poll(&pf, 1, 0));
	printf("  revents %#x\n", pf.revents);
	blen = sizeof b;
	int acc = show("accept4", accept4(srv, (struct sockaddr *)&b, &blen, SOCK_CLOEXEC));
	printf("  peer len %u cloexec %d peer is child %d\n", blen, fcntl(acc, F_GETFD), peerpid(acc) == pid);
	showname("accepted getsockname", acc, 0);
	showname("accepted getpeername", acc, 1);
	recvshow("accepted recv", acc, 64, 0);
	recvshow("accepted recv at the end", acc, 64, 0);
	show("accept4 bad flags", syscall(SYS_accept4, srv, NULL, NULL, 0x1000)); /* musl's wrapper retries accept */
	fcntl(srv, F_SETFL, O_NONBLOCK);
	show("accept non-blocking", accept(srv, NULL, NULL));
	close(acc);

	/* The backlog: listen(1) takes two connections before refusing more. */
	int cs[3];
	for (int i = 0; i < 3; i++) {
		cs[i] = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
		show("connect non-blocking", connect(cs[i], (struct sockaddr *)&a, alen));
	}
	show("listen 1", listen(srv, 1));
	int c4 = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
	show("connect over the backlog", connect(c4, (struct sockaddr *)&a, alen));
	for (int i = 0; i < 4; i++)
		show("accept", acc = accept(srv, NULL, NULL)), close(acc);
	for (int i = 0; i < 3; i++)
		close(cs[i]);
	close(c4);
	close(srv);
	close(other);
	srv = socket(AF_UNIX, SOCK_STREAM, 0);
	show("bind the name after close", bind(srv, (struct sockaddr *)&a, alen));
	close(srv);

	/* Path names. */
	umask(022);
	alen = mkaddr(&a, "sock", 5);
	srv = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	show("bind path", bind(srv, (struct sockaddr *)&a, alen));
	struct stat sb;
	show("stat", stat("sock", &sb));
	printf("  socket %d mode %o size %ld\n", S_ISSOCK(sb.st_mode), sb.st_mode & 07777, (long)sb.st_size);
	showname("getsockname path", srv, 0);
	other = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	show("bind path taken", bind(other, (struct sockaddr *)&a, alen));
	show("connect before listen", connect(other, (struct sockaddr *)&a, alen));
	show("listen", listen(srv, 2));
	int stream = socket(AF_UNIX, SOCK_STREAM, 0);
	show("connect of another type", connect(stream, (struct sockaddr *)&a, alen));
	show("connect path", connect(other, (struct sockaddr *)&a, alen));
	show("connect again", connect(other, (struct sockaddr *)&a, alen));
	acc = show("accept", accept(srv, NULL, NULL));
	show("send", send(other, "path!", 5, 0));
	recvshow("recv", acc, 3, 0);
	recvshow("recv", acc, 3, MSG_DONTWAIT);
	close(acc);
	close(other);
	close(srv);
	other = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	show("connect after close", connect(other, (struct sockaddr *)&a, alen));
	show("stat after close", stat("sock", &sb));
	show("bind path left behind", bind(other, (struct sockaddr *)&a, alen));
	show("unlink", unlink("sock"));
	show("connect after unlink", connect(other, (struct sockaddr *)&a, alen));
	int reg = open("file", O_CREAT | O_WRONLY, 0644);
	close(reg);
	alen = mkaddr(&a, "file", 4);
	show("connect to a file", connect(other, (struct sockaddr *)&a, alen));
	unlink("file");
	alen = mkaddr(&a, "nodir/sock", 10);
	show("bind in no directory", bind(other, (struct sockaddr *)&a, alen));
	close(other);
	close(stream);

	/* Datagrams between names, and autobind. */
	int d1 = socket(AF_UNIX, SOCK_DGRAM, 0), d2 = socket(AF_UNIX, SOCK_DGRAM, 0), d3 = socket(AF_UNIX, SOCK_DGRAM, 0);
	alen = mkaddr(&a, "\0d1", 3);
	blen = mkaddr(&b, "\0d2", 3);
	show("bind d1", bind(d1, (struct sockaddr *)&a, alen));
	show("bind d2", bind(d2, (struct sockaddr *)&b, blen));
	show("sendto d2", sendto(d1, "to d2", 5, 0, (struct sockaddr *)&b, blen));
	show("sendto d2 unnamed", sendto(d3, "anon", 4, 0, (struct sockaddr *)&b, blen));
	show("send unconnected", send(d3, "x", 1, 0));
	struct sockaddr_un from;
	socklen_t flen = sizeof from;
	char buf[16];
	long n = recvfrom(d2, buf, sizeof buf, 0, (struct sockaddr *)&from, &flen);
	printf("recvfrom %ld from len %u %.*s\n", n, flen, (int)flen - 3, from.sun_path + 1);
	flen = sizeof from;
	n = recvfrom(d2, buf, sizeof buf, 0, (struct sockaddr *)&from, &flen);
	printf("recvfrom %ld from len %u\n", n, flen);
	show("connect d3 to d1", connect(d3, (struct sockaddr *)&a, alen));
	show("send connected", send(d3, "hey", 3, 0));
	recvshow("recv d1", d1, 16, 0);
	showname("getpeername d3", d3, 1);
	show("sendto nobody", sendto(d1, "x", 1, 0, (struct sockaddr *)&(struct sockaddr_un){AF_UNIX, "\0nobody"}, 9));
	int d4 = socket(AF_UNIX, SOCK_DGRAM, 0);
	show("autobind", bind(d4, (struct sockaddr *)&(struct sockaddr_un){AF_UNIX, ""}, 2));
	struct sockaddr_un got;
	socklen_t glen = sizeof got;
	getsockname(d4, (struct sockaddr *)&got, &glen);
	printf("  autobind len %u abstract %d\n", glen, got.sun_path[0] == 0);
	show("sendto the autobound", sendto(d1, "auto", 4, 0, (struct sockaddr *)&got, glen));
	recvshow("recv autobound", d4, 16, 0);
	close(d1);
	close(d2);
	close(d3);
	close(d4);
}

int main(int argc, char **argv) {
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	if (argc > 1 && chdir(argv[1]) < 0)
		return 2;
	if (argc > 2) { /* the families icount refuses: a native root makes them */
		show("socket AF_INET", socket(AF_INET, SOCK_STREAM, 0));
		show("socket AF_INET6", socket(AF_INET6, SOCK_DGRAM, 0));
		show("socket AF_NETLINK", socket(AF_NETLINK, SOCK_RAW, 0));
		return 0;
	}
	signal(SIGPIPE, onpipe);
	int types[] = {SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET};
	for (int i = 0; i < 3; i++)
		each_type(types[i]);
	for (int i = 0; i < 3; i++)
		turns(types[i]);
	edges();
	rights();
	named();
	printf("done\n");
	return 0;
}
