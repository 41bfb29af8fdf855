/* The memory calls of kernel/sys_mem.go and sys_mlock.go not made
 * elsewhere: mremap (growing, shrinking, moving, its errors), mincore of
 * pages the program touched, membarrier. Lines starting "x86 " are the
 * calls only x86-64 has (none yet): it prints alike on both arches. cmd/icount/syscalls_test.go compares the output natively and
 * under icount. Run as root, it first becomes uid and gid 1000.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include "conformance.h"

#define PAGE 4096
#define MEMBARRIER_CMD_QUERY 0
#define MEMBARRIER_CMD_GLOBAL 1
#define MEMBARRIER_CMD_PRIVATE_EXPEDITED 8
#define MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED 16

/* mapped says whether the page at p is mapped (mincore answers ENOMEM
 * for a hole). */
static int mapped(void *p)
{
	unsigned char v;
	return syscall(SYS_mincore, p, PAGE, &v) == 0;
}

static void remaps(void)
{
	char *p = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memset(p, 'a', 4 * PAGE);
	munmap(p + 2 * PAGE, 2 * PAGE); /* room to grow in place */
	char *q = (char *)syscall(SYS_mremap, p, 2 * PAGE, 3 * PAGE, 0);
	printf("mremap grow in place: %s, same address %d\n", q == MAP_FAILED ? ename(errno) : "ok", q == p);
	printf("  old bytes kept %d, new page zero %d\n", p[PAGE] == 'a', q != MAP_FAILED && q[2 * PAGE] == 0);
	q = (char *)syscall(SYS_mremap, p, 3 * PAGE, PAGE, 0);
	printf("mremap shrink: %s, same address %d, page 2 mapped %d\n", q == MAP_FAILED ? ename(errno) : "ok", q == p, mapped(p + PAGE));
	char *wall = mmap(p + PAGE, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	show("mremap grow into a mapping without MAYMOVE", syscall(SYS_mremap, p, PAGE, 2 * PAGE, 0));
	q = (char *)syscall(SYS_mremap, p, PAGE, 2 * PAGE, MREMAP_MAYMOVE);
	printf("mremap grow with MAYMOVE: %s, moved %d, bytes kept %d, old page mapped %d\n",
	       q == MAP_FAILED ? ename(errno) : "ok", q != p, q != MAP_FAILED && q[0] == 'a' && q[PAGE - 1] == 'a', mapped(p));
	show("mremap bad flags", syscall(SYS_mremap, q, PAGE, PAGE, 0x80));
	show("mremap misaligned", syscall(SYS_mremap, q + 1, PAGE, PAGE, 0));
	show("mremap new size 0", syscall(SYS_mremap, q, PAGE, 0, MREMAP_MAYMOVE));
	show("mremap a hole", syscall(SYS_mremap, unmapped(), PAGE, 2 * PAGE, MREMAP_MAYMOVE));
	show("mremap FIXED without MAYMOVE", syscall(SYS_mremap, q, PAGE, PAGE, MREMAP_FIXED, p));
	show("mremap DONTUNMAP without MAYMOVE", syscall(SYS_mremap, q, PAGE, PAGE, 4));
	q = (char *)syscall(SYS_mremap, q, 2 * PAGE, 2 * PAGE, 0);
	printf("mremap same size: %s\n", q == MAP_FAILED ? ename(errno) : "ok");
	show("mremap a size past the mapping", syscall(SYS_mremap, q, 8 * PAGE, 9 * PAGE, MREMAP_MAYMOVE));
	munmap(q, 2 * PAGE);
	munmap(wall, PAGE);
}

static void mincores(void)
{
	unsigned char v[8];
	char *p = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memset(p, 1, 4 * PAGE);
	show("mincore touched pages", syscall(SYS_mincore, p, 4 * PAGE, v));
	printf("  %d %d %d %d\n", v[0] & 1, v[1] & 1, v[2] & 1, v[3] & 1);
	show("mincore a partial page", syscall(SYS_mincore, p, PAGE + 1, v));
	printf("  %d %d\n", v[0] & 1, v[1] & 1);
	show("mincore length 0", syscall(SYS_mincore, p, 0, v));
	show("mincore misaligned", syscall(SYS_mincore, p + 1, PAGE, v));
	show("mincore a hole", syscall(SYS_mincore, unmapped(), PAGE, v));
	munmap(p + 3 * PAGE, PAGE);
	show("mincore into a hole", syscall(SYS_mincore, p + 2 * PAGE, 2 * PAGE, v));
	show("mincore bad vector", syscall(SYS_mincore, p, PAGE, unmapped()));
	show("mincore read-only vector", syscall(SYS_mincore, p, PAGE, (void *)"constant"));
	show("mincore kernel address", syscall(SYS_mincore, (void *)0xffff800000000000UL, PAGE, v));
	int fd = open("file", O_RDWR | O_CREAT | O_TRUNC, 0644);
	write(fd, p, 2 * PAGE);
	char *f = mmap(NULL, 2 * PAGE, PROT_READ, MAP_SHARED, fd, 0);
	volatile char c = f[0] + f[PAGE]; /* both pages read */
	(void)c;
	show("mincore a file just written", syscall(SYS_mincore, f, 2 * PAGE, v));
	printf("  %d %d\n", v[0] & 1, v[1] & 1);
	munmap(f, 2 * PAGE);
	close(fd);
	munmap(p, 3 * PAGE);
}

static void barriers(void)
{
	long q = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
	printf("membarrier QUERY: %s, GLOBAL %d, PRIVATE_EXPEDITED %d, REGISTER_PRIVATE_EXPEDITED %d\n", q < 0 ? ename(errno) : "ok",
	       q > 0 && (q & MEMBARRIER_CMD_GLOBAL) != 0, q > 0 && (q & MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0,
	       q > 0 && (q & MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) != 0);
	show("membarrier QUERY with flags", syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 1, 0));
	show("membarrier GLOBAL", syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0));
	show("membarrier PRIVATE_EXPEDITED unregistered", syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0));
	show("membarrier REGISTER_PRIVATE_EXPEDITED", syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0));
	show("membarrier PRIVATE_EXPEDITED", syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0));
	show("membarrier bad command", syscall(SYS_membarrier, 3, 0, 0));
	show("membarrier command 1<<20", syscall(SYS_membarrier, 1 << 20, 0, 0));
}

int main(int argc, char **argv)
{
	start(argc, argv);
	remaps();
	mincores();
	barriers();
	printf("done\n");
	return 0;
}
