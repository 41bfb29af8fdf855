/* deadlock2.c: a deadlock across two processes. The parent waits for its
 * child in waitpid; the child reads a pipe whose write end only the parent
 * holds. Under icount the run ends with status 122 naming both waits;
 * natively it hangs (the test does not run it natively). */
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
	int p[2];
	if (pipe(p) != 0)
		return 1;
	pid_t c = fork();
	if (c == 0) {
		char b;
		read(p[0], &b, 1);
		_exit(0);
	}
	waitpid(c, 0, 0);
	return 0;
}
