/* forkexec N PROG [ARGS...]: forks N children one after another, each
 * exec'ing PROG, and waits for each; fails unless every one exits 0.
 * make bench times it to give the cost of one fork, exec and exit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: forkexec N PROG [ARGS...]\n");
		return 2;
	}
	long n = atol(argv[1]);
	for (long i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid == -1) {
			perror("forkexec: fork");
			return 1;
		}
		if (pid == 0) {
			execve(argv[2], argv + 2, environ);
			perror("forkexec: execve");
			_exit(127);
		}
		int st;
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "forkexec: child %ld did not exit 0\n", i);
			return 1;
		}
	}
	return 0;
}
