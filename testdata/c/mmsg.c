/* sendmmsg and recvmmsg on Unix sockets (kernel/sys_unixmmsg.go) and
 * vmsplice on pipes (kernel/sys_vmsplice.go): several messages a call,
 * msg_len, MSG_WAITFORONE, recvmmsg's timeout, short counts, a first
 * message that waits, and
 * the errors Linux gives; vmsplice from a pipe into memory and into a
 * pipe with SPLICE_F_GIFT (a pipe's buffers fill a piece at a time), its
 * waits and errors. cmd/icount/inotify_test.go compares the output
 * natively (or under qemu-aarch64) and under icount.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include "conformance.h"

#ifndef MSG_WAITFORONE
#define MSG_WAITFORONE 0x10000
#endif
/* The calls themselves: musl's wrappers send and receive message by
 * message with sendmsg and recvmsg, and read the vector first. */
#define sendmmsg(fd, vec, n, flags) syscall(SYS_sendmmsg, fd, vec, n, flags)
#define recvmmsg(fd, vec, n, flags, timeout) syscall(SYS_recvmmsg, fd, vec, n, flags, timeout)

static void value(const char *what, long rc)
{
	if (rc < 0)
		printf("%s: %s\n", what, ename(errno));
	else
		printf("%s: %ld\n", what, rc);
}

static char bufs[4][64];
static struct iovec iovs[4];
static struct mmsghdr msgs[4];

/* prepare points message i at its buffer of size bytes holding text. */
static void prepare(int n, size_t size, const char *text)
{
	memset(msgs, 0, sizeof msgs);
	for (int i = 0; i < n; i++) {
		memset(bufs[i], 0, sizeof bufs[i]);
		if (text)
			snprintf(bufs[i], sizeof bufs[i], "%s %d", text, i);
		iovs[i].iov_base = bufs[i];
		iovs[i].iov_len = text ? strlen(bufs[i]) : size;
		msgs[i].msg_hdr.msg_iov = &iovs[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
		msgs[i].msg_len = 12345;
	}
}

static void received(const char *what, int fd, int n, int flags)
{
	prepare(4, 6, NULL);
	int got = recvmmsg(fd, msgs, n, flags, NULL);
	value(what, got);
	for (int i = 0; i < got; i++)
		printf("  %d: len %u flags %#x \"%.*s\"\n", i, msgs[i].msg_len, msgs[i].msg_hdr.msg_flags, (int)msgs[i].msg_len < 6 ? (int)msgs[i].msg_len : 6, bufs[i]);
}

static void handler(int sig)
{
	(void)sig;
}

static void mmsg(void)
{
	int sv[2];
	socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
	prepare(3, 0, "dgram");
	value("sendmmsg 3 datagrams", sendmmsg(sv[0], msgs, 3, 0));
	printf("  msg_len %u %u %u, the 4th untouched %u\n", msgs[0].msg_len, msgs[1].msg_len, msgs[2].msg_len, msgs[3].msg_len);
	received("recvmmsg 4, MSG_DONTWAIT (6-byte buffers)", sv[1], 4, MSG_DONTWAIT);
	received("recvmmsg, nothing queued, MSG_DONTWAIT", sv[1], 4, MSG_DONTWAIT);
	prepare(2, 0, "x");
	value("sendmmsg vlen 0", sendmmsg(sv[0], msgs, 0, 0));
	value("sendmmsg 2", sendmmsg(sv[0], msgs, 2, 0));
	received("recvmmsg 4, MSG_WAITFORONE, a blocking socket", sv[1], 4, MSG_WAITFORONE);
	value("recvmmsg vlen 0", recvmmsg(sv[1], msgs, 0, MSG_DONTWAIT, NULL));
	value("sendmmsg fd -1", sendmmsg(-1, msgs, 1, 0));
	int p[2];
	pipe(p);
	value("sendmmsg on a pipe", sendmmsg(p[1], msgs, 1, 0));
	value("recvmmsg on a pipe", recvmmsg(p[0], msgs, 1, MSG_DONTWAIT, NULL));
	value("sendmmsg bad vector", sendmmsg(sv[0], (struct mmsghdr *)8, 1, 0));
	prepare(2, 0, "y");
	iovs[1].iov_base = (void *)8;
	value("sendmmsg, the 2nd message's bytes unreadable", sendmmsg(sv[0], msgs, 2, 0));
	value("recvmmsg bad vector", recvmmsg(sv[1], (struct mmsghdr *)8, 1, MSG_DONTWAIT, NULL));
	received("recvmmsg after", sv[1], 4, MSG_DONTWAIT);
	prepare(2, 0, "z");
	msgs[1].msg_hdr.msg_iov = (void *)8;
	value("sendmmsg, the 2nd message's iovec unreadable", sendmmsg(sv[0], msgs, 2, 0));
	received("recvmmsg after", sv[1], 4, MSG_DONTWAIT);

#ifdef __x86_64__
	/* recvmmsg's timeout, looked at after each message: judged natively
	 * only, as qemu-aarch64 7.2 ignores it (and writes nothing back). */
	struct timespec ts = {5, 0};
	prepare(3, 0, "t");
	sendmmsg(sv[0], msgs, 3, 0);
	prepare(4, 6, NULL);
	value("recvmmsg 4, MSG_DONTWAIT, timeout 5 s, 3 queued", recvmmsg(sv[1], msgs, 4, MSG_DONTWAIT, &ts));
	printf("  left: %ld s, some ns %d\n", (long)ts.tv_sec, ts.tv_nsec > 0);
	struct timespec zero = {0, 0};
	prepare(2, 0, "u");
	sendmmsg(sv[0], msgs, 2, 0);
	prepare(4, 6, NULL);
	value("recvmmsg 4, timeout 0, 2 queued", recvmmsg(sv[1], msgs, 4, 0, &zero));
	printf("  left: %ld s %ld ns\n", (long)zero.tv_sec, zero.tv_nsec);
	received("recvmmsg after", sv[1], 4, MSG_DONTWAIT);
	struct timespec bad = {0, 1000000000};
	value("recvmmsg timeout of 1e9 ns", recvmmsg(sv[1], msgs, 4, MSG_DONTWAIT, &bad));
	value("recvmmsg timeout unreadable", recvmmsg(sv[1], msgs, 4, MSG_DONTWAIT, (void *)8));
	value("recvmmsg fd -1, timeout unreadable", recvmmsg(-1, msgs, 4, MSG_DONTWAIT, (void *)8));
	struct timespec negative = {-1, 0};
	value("recvmmsg fd -1, timeout of -1 s", recvmmsg(-1, msgs, 4, MSG_DONTWAIT, &negative));
	value("recvmmsg nothing queued, timeout 5 s", recvmmsg(sv[1], msgs, 4, MSG_DONTWAIT, &ts));
#endif

	pid_t child = fork();
	if (child == 0) {
		prepare(1, 0, "child");
		sendmmsg(sv[0], msgs, 1, 0);
		_exit(0);
	}
	received("recvmmsg 4, MSG_WAITFORONE, waiting for a child's", sv[1], 4, MSG_WAITFORONE);
	waitpid(child, NULL, 0);
	close(sv[0]);
	close(sv[1]);

	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	prepare(2, 0, "stream");
	value("sendmmsg 2 on a stream", sendmmsg(sv[0], msgs, 2, 0));
	prepare(4, 40, NULL);
	int got = recvmmsg(sv[1], msgs, 2, MSG_DONTWAIT, NULL);
	value("recvmmsg 2 on a stream, 40-byte buffers", got);
	printf("  0: len %u \"%.*s\"\n", msgs[0].msg_len, (int)msgs[0].msg_len, bufs[0]);
	close(sv[0]);
	close(sv[1]);
}

static char page[3 * 4096] __attribute__((aligned(4096)));

static void vms(void)
{
	int p[2];
	pipe(p);
	struct iovec v = {page, 10};
	value("vmsplice bad flags", vmsplice(p[1], &v, 1, 0x10));
	value("vmsplice fd -1", vmsplice(-1, &v, 1, SPLICE_F_GIFT));
	int f = open("file", O_CREAT | O_RDWR, 0600);
	value("vmsplice on a file", vmsplice(f, &v, 1, SPLICE_F_GIFT));
	struct iovec none = {page, 0};
	value("vmsplice of nothing on a file", vmsplice(f, &none, 1, SPLICE_F_GIFT));
	close(f);
	unlink("file");
	value("vmsplice 1025 pieces", vmsplice(p[1], &v, 1025, SPLICE_F_GIFT));
	value("vmsplice bad iovec", vmsplice(p[1], (struct iovec *)8, 1, SPLICE_F_GIFT));
	struct iovec bad = {(void *)8, 10};
	value("vmsplice bad bytes", vmsplice(p[1], &bad, 1, SPLICE_F_GIFT));

	struct iovec pieces[20];
	for (int i = 0; i < 20; i++) {
		memset(page + 100 * i, 'a' + i, 10);
		pieces[i].iov_base = page + 100 * i;
		pieces[i].iov_len = 10;
	}
	value("vmsplice 20 pieces of 10 bytes (GIFT)", vmsplice(p[1], pieces, 20, SPLICE_F_GIFT));
	char got[4096];
	ssize_t n = read(p[0], got, sizeof got);
	printf("  read %zd: %.*s\n", n, (int)(n > 0 ? n : 0), got);
	struct iovec across = {page + 4000, 200};
	value("vmsplice 200 bytes across a page boundary", vmsplice(p[1], &across, 1, SPLICE_F_GIFT));
	struct iovec out[2] = {{got, 50}, {got + 100, 500}};
	value("vmsplice from the pipe into 2 pieces", vmsplice(p[0], out, 2, 0));
	value("vmsplice from the empty pipe, SPLICE_F_NONBLOCK", vmsplice(p[0], out, 2, SPLICE_F_NONBLOCK));
	struct iovec all = {page, sizeof page};
	long total = 0, rc;
	while ((rc = vmsplice(p[1], &all, 1, SPLICE_F_GIFT | SPLICE_F_NONBLOCK)) > 0)
		total += rc;
	printf("filling the pipe, SPLICE_F_NONBLOCK: %ld bytes, then %s\n", total, ename(errno));
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	while (read(p[0], got, sizeof got) > 0)
		;
	struct sigaction sa = {0};
	sa.sa_handler = handler;
	sigaction(SIGALRM, &sa, NULL);
	alarm(1);
	value("vmsplice from an empty O_NONBLOCK pipe, flags 0 (waits: SIGALRM)", vmsplice(p[0], out, 2, 0));
	close(p[1]);
	value("vmsplice from a pipe with no writer", vmsplice(p[0], out, 2, 0));
	close(p[0]);
	pipe(p);
	close(p[0]);
	signal(SIGPIPE, SIG_IGN);
	value("vmsplice into a pipe with no reader", vmsplice(p[1], &v, 1, SPLICE_F_GIFT));
	close(p[1]);
}

int main(int argc, char **argv)
{
	start(argc, argv);
	mmsg();
	vms();
	show("done", 0);
	return 0;
}
