/* A bounded fork bomb (cmd/icount/process_test.go): forks children that
 * block reading a pipe until fork fails, prints the error's name (not the
 * number of children, which is the process limit's), releases the
 * children by closing the pipe and reaps them all. Under Linux it needs a
 * process limit (RLIMIT_NPROC, as an unprivileged user) to stop; under
 * icount the limit is icount's own. It gives up, and fails, after
 * MAXCHILDREN children without an error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAXCHILDREN 100000

int main(void)
{
	int p[2];
	if (pipe(p)) {
		perror("forkbomb: pipe");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	long n = 0;
	int err = 0;
	while (n < MAXCHILDREN) {
		pid_t pid = fork();
		if (pid == -1) {
			err = errno;
			break;
		}
		if (pid == 0) {
			char c;
			close(p[1]);
			/* Blocks until every write end is closed. */
			_exit(read(p[0], &c, 1) == 0 ? 0 : 1);
		}
		n++;
	}
	printf("fork failed: %s\n", err == EAGAIN ? "EAGAIN" : err ? strerror(err) : "never");
	close(p[1]);
	long reaped = 0, bad = 0;
	int st;
	pid_t r;
	while ((r = wait(&st)) > 0) {
		reaped++;
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			bad++;
	}
	int waiterr = errno;
	printf("reaped every child: %s, all exited 0: %s, then wait: %s\n", reaped == n ? "yes" : "no",
	       bad == 0 ? "yes" : "no", waiterr == ECHILD ? "ECHILD" : strerror(waiterr));
	return err == EAGAIN && reaped == n && bad == 0 && n > 0 ? 0 : 1;
}
