/* execbig.c: runs argv[1] in a child (fork, execv) and says how the child
   ended. Given a program whose segments exceed the address-space limit
   (ulimit -v, icount's --max-memory), Linux fails the exec past its point
   of no return and the child dies of SIGSEGV
   (cmd/icount/hostileinput_test.go). */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
	if (argc < 2) {
		fprintf(stderr, "usage: execbig PROGRAM\n");
		return 2;
	}
	pid_t pid = fork();
	if (pid == 0) {
		execv(argv[1], argv + 1);
		perror("execv");
		_exit(127);
	}
	int status;
	if (waitpid(pid, &status, 0) != pid) {
		perror("waitpid");
		return 1;
	}
	if (WIFSIGNALED(status))
		printf("the child was killed by signal %d\n", WTERMSIG(status));
	else
		printf("the child exited %d\n", WEXITSTATUS(status));
	return 0;
}
