// pipes: threads that wait for each other in the kernel rather than on
// futexes: a writer blocked on a full pipe and a reader on an empty one,
// a blocking eventfd read, an epoll_wait and a poll, each ended by another
// thread, and one write three times the pipe's capacity that a reader
// drains, waiting in poll before each read (Python's communicate). Its
// output is the same on every run (cmd/icount/pipes_test.go).
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define TOTAL (1 << 20) // bytes through the pipe: 16 times its capacity
#define CHUNK 3000

#define BIG (3 << 16) // bytes of the one write: three pipes full

static int data[2], wake[2], big[2], efd, ep;

// producer writes TOTAL bytes in chunks, blocking while the pipe is full.
static void *producer(void *arg) {
	(void)arg;
	static unsigned char buf[CHUNK];
	for (long sent = 0; sent < TOTAL;) {
		size_t n = TOTAL - sent < CHUNK ? TOTAL - sent : CHUNK;
		for (size_t i = 0; i < n; i++) buf[i] = (unsigned char)((sent + i) * 31 >> 3);
		for (size_t off = 0; off < n;) {
			ssize_t w = write(data[1], buf + off, n - off);
			if (w <= 0) return (void *)1;
			off += w;
		}
		sent += n;
	}
	close(data[1]);
	return NULL;
}

// counter reads the eventfd, blocking until main writes it.
static void *counter(void *arg) {
	uint64_t v = 0;
	if (read(efd, &v, sizeof v) != sizeof v) v = 0;
	*(uint64_t *)arg = v;
	return NULL;
}

// waiter waits in epoll_wait, then in poll, for main's bytes on wake[0].
static void *waiter(void *arg) {
	long *out = arg;
	struct epoll_event ev;
	out[0] = epoll_wait(ep, &ev, 1, -1);
	out[1] = (long)ev.data.u64;
	char c;
	out[2] = read(wake[0], &c, 1) == 1 ? c : -1;
	struct pollfd pfd = {.fd = wake[0], .events = POLLIN};
	out[3] = poll(&pfd, 1, 50); // nothing comes: times out, in guest time
	out[4] = poll(&pfd, 1, -1); // main writes again
	out[5] = pfd.revents;
	return NULL;
}

// bigwriter writes BIG bytes in one call, which blocks until the reader
// has taken all but the last pipe full.
static void *bigwriter(void *arg) {
	static unsigned char buf[BIG];
	memset(buf, 'b', sizeof buf);
	*(ssize_t *)arg = write(big[1], buf, sizeof buf);
	close(big[1]);
	return NULL;
}

int main(void) {
	if (pipe(data) || pipe(wake) || (efd = eventfd(0, 0)) < 0 || (ep = epoll_create1(0)) < 0) return 1;
	struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 0x1234567890ull};
	if (epoll_ctl(ep, EPOLL_CTL_ADD, wake[0], &ev)) return 2;

	pthread_t tp, tc, tw;
	uint64_t got = 0;
	long w[6] = {0};
	pthread_create(&tp, NULL, producer, NULL);
	pthread_create(&tc, NULL, counter, &got);
	pthread_create(&tw, NULL, waiter, w);

	unsigned long sum = 0, n = 0;
	unsigned char buf[5000];
	ssize_t r;
	while ((r = read(data[0], buf, sizeof buf)) > 0) {
		for (ssize_t i = 0; i < r; i++) sum = sum * 31 + buf[i];
		n += r;
	}
	uint64_t v = 7;
	if (write(efd, &v, sizeof v) != sizeof v) return 3;
	if (write(wake[1], "x", 1) != 1) return 4;
	void *res;
	pthread_join(tp, &res);
	pthread_join(tc, NULL);
	// Let the waiter's first poll time out before the second byte.
	struct timespec ts = {0, 200000000};
	nanosleep(&ts, NULL);
	if (write(wake[1], "y", 1) != 1) return 5;
	pthread_join(tw, NULL);

	if (pipe(big)) return 6;
	pthread_t tb;
	ssize_t wrote = 0;
	unsigned long nbig = 0;
	long polls = 0;
	pthread_create(&tb, NULL, bigwriter, &wrote);
	static unsigned char all[1 << 16]; // each read empties the pipe
	for (struct pollfd pfd = {.fd = big[0], .events = POLLIN}; poll(&pfd, 1, -1) == 1; polls++) {
		if ((r = read(big[0], all, sizeof all)) <= 0) break;
		nbig += r;
	}
	pthread_join(tb, NULL);

	printf("pipe: %lu bytes, hash %lu, producer %s\n", n, sum, res ? "failed" : "ok");
	printf("eventfd: %llu\n", (unsigned long long)got);
	printf("epoll_wait: %ld event, data %#lx, byte %c\n", w[0], w[1], (char)w[2]);
	printf("poll: %ld after the timeout, then %ld with revents %#lx\n", w[3], w[4], w[5]);
	printf("one write of %d bytes: wrote %zd, read %lu, polls > 1: %d\n", BIG, wrote, nbig, polls > 1);
	return 0;
}
