/* headline FILE...: prints the first line of each FILE, or the name of
 * the errno opening it gives, for the sysroot test of
 * cmd/icount/edges_test.go (built arm64 glibc-dynamic: its libraries come
 * from the sysroot).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	char line[256];
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "r");
		if (f == NULL) {
			printf("%s: %s\n", argv[i], errno == ENOENT ? "ENOENT" : strerror(errno));
			continue;
		}
		if (fgets(line, sizeof line, f) == NULL)
			line[0] = 0;
		line[strcspn(line, "\n")] = 0;
		printf("%s: %s\n", argv[i], line);
		fclose(f);
	}
	return 0;
}
