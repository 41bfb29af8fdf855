/* The run's /tmp and /var/tmp: the program makes argv[1] in each with
 * O_EXCL, says so on stdout, and waits for stdin to end (so that a test
 * can hold two runs at once), then works in /tmp: getcwd, readlink of
 * /proc/self/cwd and of /proc/self/fd/N for a file opened there by a
 * relative name, the mode of both directories, a file made and unlinked by
 * its absolute path. It removes what it made
 * unless argv[2] is "keep". Every line is a call and its result;
 * cmd/icount/edges_test.go compares them with the native run's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void made(const char *dir, const char *name)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	printf("create %s/NAME: %s\n", dir, fd >= 0 ? "ok" : strerror(errno));
	if (fd >= 0)
		close(fd);
}

int main(int argc, char **argv)
{
	char buf[PATH_MAX], link[64];
	if (argc < 2)
		return 2;
	const char *name = argv[1];
	made("/tmp", name);
	made("/var/tmp", name);
	fflush(stdout);
	while (read(0, buf, sizeof buf) > 0)
		;
	if (chdir("/tmp") != 0)
		return 3;
	printf("getcwd: %s\n", getcwd(buf, sizeof buf) ? buf : strerror(errno));
	ssize_t n = readlink("/proc/self/cwd", buf, sizeof buf - 1);
	buf[n > 0 ? n : 0] = 0;
	printf("readlink /proc/self/cwd: %s\n", buf);
	int fd = open("privtmp-rel", O_RDWR | O_CREAT | O_TRUNC, 0600);
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	n = readlink(link, buf, sizeof buf - 1);
	buf[n > 0 ? n : 0] = 0;
	printf("readlink /proc/self/fd/N: %s\n", buf);
	struct stat st;
	for (int i = 0; i < 2; i++) {
		const char *d = i ? "/var/tmp" : "/tmp";
		if (stat(d, &st) == 0)
			printf("stat %s: directory %d, mode %o\n", d, S_ISDIR(st.st_mode), st.st_mode & 07777);
	}
	printf("access NAME by a relative path: %s\n", access(name, F_OK) == 0 ? "ok" : strerror(errno));
	unlink("privtmp-rel");
	int afd = open("/tmp/privtmp-abs", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (afd >= 0)
		close(afd);
	printf("unlink /tmp/privtmp-abs: %s\n", unlink("/tmp/privtmp-abs") == 0 ? "ok" : strerror(errno));
	printf("access /tmp/privtmp-abs after: %s\n", access("/tmp/privtmp-abs", F_OK) == 0 ? "ok" : strerror(errno));
	if (argc < 3 || strcmp(argv[2], "keep") != 0) {
		snprintf(buf, sizeof buf, "/var/tmp/%s", name);
		unlink(buf);
		unlink(name);
	}
	return 0;
}
