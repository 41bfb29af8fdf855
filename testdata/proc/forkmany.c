/* A thousand short children one after another (cmd/icount/process_test.go):
 * child i does a little work and exits with i % 256; the parent waits for
 * each and checks its status, then prints a checksum of the statuses and
 * of what the children computed (sent back through a pipe).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHILDREN 1000

int main(void)
{
	int p[2];
	if (pipe(p)) {
		perror("forkmany: pipe");
		return 1;
	}
	unsigned long sum = 0, wrong = 0;
	for (int i = 0; i < CHILDREN; i++) {
		pid_t pid = fork();
		if (pid == -1) {
			perror("forkmany: fork");
			return 1;
		}
		if (pid == 0) {
			unsigned int h = 2166136261u;
			for (int k = 0; k < 100; k++)
				h = (h ^ (unsigned int)(i * 131 + k)) * 16777619u;
			_exit(write(p[1], &h, sizeof h) == sizeof h ? i % 256 : 255);
		}
		int st;
		if (waitpid(pid, &st, 0) != pid) {
			perror("forkmany: waitpid");
			return 1;
		}
		unsigned int h;
		if (read(p[0], &h, sizeof h) != sizeof h) {
			perror("forkmany: read");
			return 1;
		}
		if (!WIFEXITED(st) || WEXITSTATUS(st) != i % 256)
			wrong++;
		sum = sum * 31 + WEXITSTATUS(st) + h;
	}
	printf("%d children, %lu with a wrong status, checksum %lx\n", CHILDREN, wrong, sum);
	return wrong != 0;
}
