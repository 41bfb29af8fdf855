/* mapfile: what a private file mapping shows (kernel/filemap.go): the
 * file's bytes and zeros past its end in the last page; the process's
 * writes kept to itself, never reaching the file; the file's later changes
 * in the pages it has not written; SIGBUS (BUS_ADRERR) for a page wholly
 * past the end, whatever its protection, and EFAULT for a system call's
 * buffer there; MADV_DONTNEED giving the file's bytes back; a fork's child
 * seeing what its parent saw, and given the file's bytes back as its parent
 * is; a truncation making the pages past the new
 * end SIGBUS, written or not; a file larger than 1 GiB mapped whole; the
 * program's own data and .bss given back (MADV_DONTNEED), in a fork's child
 * too.
 * cmd/icount/syscalls_test.go compares the output natively and under
 * icount. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/wait.h>
#include "conformance.h"

#define PAGE 4096
#define FILESIZE (3 * PAGE + 100) /* three pages and part of a fourth */

static sigjmp_buf jump;
static volatile sig_atomic_t signo, code;
static void *volatile faulted;

static void on_fault(int sig, siginfo_t *si, void *ctx)
{
	(void)ctx;
	signo = sig;
	code = si->si_code;
	faulted = si->si_addr;
	siglongjmp(jump, 1);
}

/* touch reads (or writes) the byte at p and prints what happened: its
 * value, or the signal with its code and whether si_addr is p. */
static void touch(const char *what, volatile char *p, int write)
{
	signo = 0;
	if (sigsetjmp(jump, 1) == 0) {
		if (write)
			*p = 'w';
		int v = *p;
		printf("%s: %d\n", what, v);
		return;
	}
	printf("%s: %s code %d at the byte %d\n", what, signo == SIGBUS ? "SIGBUS" : signo == SIGSEGV ? "SIGSEGV" : "signal", code,
	       faulted == (void *)p);
}

/* pattern is the file's byte at offset i. */
static char pattern(long i) { return (char)('a' + (i / PAGE) * 3 + i % 7); }

static int make_file(const char *name)
{
	int fd = open(name, O_RDWR | O_CREAT | O_TRUNC, 0644);
	char buf[FILESIZE];
	for (long i = 0; i < FILESIZE; i++)
		buf[i] = pattern(i);
	if (fd < 0 || write(fd, buf, FILESIZE) != FILESIZE) {
		perror(name);
		exit(1);
	}
	return fd;
}

/* same reports whether the n bytes at p from file offset off are the
 * file's pattern. */
static int same(const char *p, long off, long n)
{
	for (long i = 0; i < n; i++)
		if (p[i] != pattern(off + i))
			return 0;
	return 1;
}

static void contents(void)
{
	int fd = make_file("file");
	char *p = mmap(NULL, 6 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	printf("map 6 pages of a file of 3 pages and 100 bytes: %s\n", p == MAP_FAILED ? ename(errno) : "ok");
	printf("  the file's bytes: %d\n", same(p, 0, FILESIZE));
	int zeros = 1;
	for (long i = FILESIZE; i < 4 * PAGE; i++)
		zeros &= p[i] == 0;
	printf("  zeros after them in the last page: %d\n", zeros);
	touch("  read page 4, past the end", p + 4 * PAGE + 8, 0);
	touch("  write page 5, past the end", p + 5 * PAGE, 1);
	number("  write(2) from page 4", write(1, p + 4 * PAGE, 10));
	number("  read(2) into page 4", pread(fd, p + 4 * PAGE, 10, 0));
	show("  mprotect page 4 read-write", mprotect(p + 4 * PAGE, PAGE, PROT_READ | PROT_WRITE));
	touch("  read page 4 then", p + 4 * PAGE, 0);

	/* Writes stay the process's; the file's own changes show in the pages
	 * it has not written. */
	p[10] = 'X';
	p[PAGE + 10] = 'Y';
	char b[2] = {0};
	pread(fd, b, 1, 10);
	printf("  a write to the mapping reaches the file: %d\n", b[0] == 'X');
	pwrite(fd, "ZZ", 2, PAGE + 20);
	pwrite(fd, "QQ", 2, 2 * PAGE + 20);
	printf("  the file's change shows in a page written: %d, in one not written: %d\n", p[PAGE + 20] == 'Z', p[2 * PAGE + 20] == 'Q');
	printf("  the process's write kept: %d %d\n", p[10] == 'X', p[PAGE + 10] == 'Y');
	show("  madvise DONTNEED page 0", madvise(p, PAGE, MADV_DONTNEED));
	printf("  page 0 is the file's again: %d\n", same(p, 0, PAGE));

	/* mprotect keeps the file's pages. */
	show("  mprotect pages 0-3 read-only", mprotect(p, 4 * PAGE, PROT_READ));
	touch("  write page 2 read-only", p + 2 * PAGE, 1);
	printf("  page 3 still the file's: %d\n", same(p + 3 * PAGE, 3 * PAGE, 100));

	/* A fork's child sees what its parent saw, and its writes are its own. */
	show("  mprotect pages 0-3 read-write", mprotect(p, 4 * PAGE, PROT_READ | PROT_WRITE));
	pid_t child = fork();
	if (child == 0) {
		printf("  child: page 1 as the parent wrote it: %d, page 3 the file's: %d\n", p[PAGE + 10] == 'Y', same(p + 3 * PAGE, 3 * PAGE, 100));
		touch("  child: read page 4", p + 4 * PAGE + 8, 0);
		p[3 * PAGE] = 'C';
		/* Its mapping is the file's still: a page given back is the
		 * file's again, the parent's writes gone. */
		show("  child: madvise DONTNEED page 1", madvise(p + PAGE, PAGE, MADV_DONTNEED));
		char was = 0;
		pread(fd, &was, 1, PAGE + 10);
		printf("  child: page 1 the file's again: %d, not the parent's write: %d\n", p[PAGE + 10] == was, p[PAGE + 10] != 'Y');
		_exit(0);
	}
	int status;
	waitpid(child, &status, 0);
	pread(fd, b, 1, 3 * PAGE);
	printf("  after the child wrote page 3: the parent's %d, the file's %d\n", p[3 * PAGE] == 'C', b[0] == 'C');

	/* munmap, and anonymous memory in its place reads zeros. */
	show("  munmap page 2", munmap(p + 2 * PAGE, PAGE));
	char *q = mmap(p + 2 * PAGE, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	printf("  anonymous memory in its place: %s, zeros %d\n", q == MAP_FAILED ? ename(errno) : "ok", q != MAP_FAILED && q[20] == 0 && q[0] == 0);

	/* A truncation: the pages past the new end fault, written or not. */
	show("  ftruncate to 1 page", ftruncate(fd, PAGE));
	touch("  read page 0", p + 5, 0);
	touch("  read page 1, written", p + PAGE + 10, 0);
	touch("  read page 3, not written", p + 3 * PAGE + 50, 0);
	touch("  read page 2, anonymous", p + 2 * PAGE + 50, 0);
	munmap(p, 6 * PAGE);
	close(fd);

	/* Truncated by open's O_TRUNC. */
	fd = make_file("file");
	p = mmap(NULL, 4 * PAGE, PROT_READ, MAP_SHARED, fd, 0);
	printf("map 4 pages shared, read-only: %s\n", p == MAP_FAILED ? ename(errno) : "ok");
	printf("  the file's bytes: %d\n", same(p, 0, FILESIZE));
	pwrite(fd, "SS", 2, PAGE);
	printf("  the file's change shows: %d\n", p[PAGE] == 'S');
	int fd2 = open("file", O_WRONLY | O_TRUNC);
	printf("  open O_TRUNC: %s\n", fd2 < 0 ? ename(errno) : "ok");
	touch("  read page 0", p, 0);
	munmap(p, 4 * PAGE);
	close(fd2);
	close(fd);
	unlink("file");
}

/* big maps a sparse file of 1 GiB and two pages whole, and reads a byte
 * written past its first GiB. */
static void big(void)
{
	const off_t gib = 1L << 30;
	int fd = open("big", O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, gib + 2 * PAGE) < 0 || pwrite(fd, "M", 1, gib + PAGE + 7) != 1) {
		printf("sparse file: %s\n", ename(errno));
		return;
	}
	char *p = mmap(NULL, gib + 2 * PAGE, PROT_READ, MAP_PRIVATE, fd, 0);
	printf("map a file of 1 GiB and 2 pages: %s\n", p == MAP_FAILED ? ename(errno) : "ok");
	if (p != MAP_FAILED) {
		printf("  its byte past 1 GiB: %c, a byte before: %d\n", p[gib + PAGE + 7], p[gib - 1]);
		munmap(p, gib + 2 * PAGE);
	}
	close(fd);
	unlink("big");
}

/* own is initialized data of the program's own file, whole pages of it. */
static char own[3 * PAGE] __attribute__((aligned(PAGE))) = {[0] = 'f', [PAGE] = 'i', [2 * PAGE] = 'l'};
/* owned is its zero part (.bss), beside the data. */
static char owned[2 * PAGE];

/* image gives back pages of the program's own image, which the loader
 * maps privately from its file: initialized data shows the file's bytes
 * again, written or not, and .bss zeros. */
static void image(void)
{
	own[PAGE] = 'X';
	own[2 * PAGE] = 'Y';
	owned[PAGE] = 'Z';
	show("own data, madvise DONTNEED its second page", madvise(own + PAGE, PAGE, MADV_DONTNEED));
	printf("  its pages: %c %c %c\n", own[0], own[PAGE], own[2 * PAGE]);
	char *z = (char *)(((uintptr_t)owned + PAGE - 1) & ~(uintptr_t)(PAGE - 1));
	z[0] = 'W';
	show("own bss, madvise DONTNEED a page", madvise(z, PAGE, MADV_DONTNEED));
	printf("  its byte: %d\n", z[0]);
	/* A fork's child sees the parent's writes, and gets the file's bytes
	 * back as the parent does. */
	own[PAGE] = 'V';
	z[0] = 'U';
	pid_t child = fork();
	if (child == 0) {
		printf("  child: %c %c %c, bss %c\n", own[0], own[PAGE], own[2 * PAGE], z[0]);
		show("  child: madvise DONTNEED the data's second page", madvise(own + PAGE, PAGE, MADV_DONTNEED));
		printf("  child: %c\n", own[PAGE]);
		_exit(0);
	}
	int status;
	waitpid(child, &status, 0);
	printf("  parent after: %c\n", own[PAGE]);
}

int main(int argc, char **argv)
{
	start(argc, argv);
	struct sigaction sa = {0};
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
	contents();
	big();
	image();
	printf("done\n");
	return 0;
}
