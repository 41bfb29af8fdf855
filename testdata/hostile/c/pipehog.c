/* pipehog.c: 16 threads each write 16 MiB into one pipe at once, and
   block there, the pipe full; the main thread then reads it all. Under
   icount a blocked write holds none of the guest's bytes (they are taken
   as the pipe has room), so icount's memory stays far below the 256 MiB
   the writes ask for (cmd/icount/hostileinput_test.go). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WRITERS 16
#define EACH (16 << 20)

static int fds[2];
static char *buf;

static void *writer(void *arg) {
	(void)arg;
	size_t done = 0;
	while (done < EACH) {
		ssize_t n = write(fds[1], buf + done, EACH - done);
		if (n <= 0) {
			perror("write");
			exit(1);
		}
		done += n;
	}
	return NULL;
}

int main(void) {
	if (pipe(fds) != 0) {
		perror("pipe");
		return 1;
	}
	buf = malloc(EACH);
	memset(buf, 'x', EACH);
	pthread_t t[WRITERS];
	for (int i = 0; i < WRITERS; i++) pthread_create(&t[i], NULL, writer, NULL);
	static char in[1 << 16];
	size_t total = 0, xs = 0;
	while (total < (size_t)WRITERS * EACH) {
		ssize_t n = read(fds[0], in, sizeof in);
		if (n <= 0) {
			perror("read");
			return 1;
		}
		for (ssize_t i = 0; i < n; i++) xs += in[i] == 'x';
		total += n;
	}
	for (int i = 0; i < WRITERS; i++) pthread_join(t[i], NULL);
	printf("read %zu bytes, %zu of them x\n", total, xs);
	return 0;
}
