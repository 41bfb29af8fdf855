/* Old calls Linux keeps for old programs (kernel/sys_legacy.go), as it
 * answers a 64-bit process: uselib, modify_ldt, set_thread_area and
 * get_thread_area (x86-64), remap_file_pages and restart_syscall (both
 * arches). cmd/icount/inotify_test.go compares the output natively (or
 * under qemu-aarch64) and under icount. modify_ldt returns an unsigned
 * int: its errors come back as large positive numbers, printed as such.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include "conformance.h"

static void value(const char *what, long rc)
{
	if (rc < 0)
		printf("%s: %s\n", what, ename(errno));
	else
		printf("%s: %ld\n", what, rc);
}

int main(int argc, char **argv)
{
	start(argc, argv);
#ifdef __x86_64__
	char buf[256];
	memset(buf, 0x55, sizeof buf);
	value("uselib", syscall(SYS_uselib, "/nonexistent"));
	value("uselib NULL", syscall(SYS_uselib, NULL));
	value("modify_ldt read", syscall(SYS_modify_ldt, 0, buf, sizeof buf));
	value("modify_ldt read, bad pointer", syscall(SYS_modify_ldt, 0, (void *)8, sizeof buf));
	value("modify_ldt read default", syscall(SYS_modify_ldt, 2, buf, sizeof buf));
	int zero = 1;
	for (int i = 0; i < 128; i++)
		zero &= buf[i] == 0;
	printf("  zeros %d, byte 128 %#x\n", zero, buf[128] & 0xff);
	value("modify_ldt read default 16", syscall(SYS_modify_ldt, 2, buf, 16));
	value("modify_ldt read default, bad pointer", syscall(SYS_modify_ldt, 2, (void *)8, 16));
	value("modify_ldt function 7", syscall(SYS_modify_ldt, 7, buf, sizeof buf));
	value("modify_ldt write size 8", syscall(SYS_modify_ldt, 1, buf, 8));
	value("modify_ldt write, bad pointer", syscall(SYS_modify_ldt, 1, (void *)8, 16));
	uint32_t desc[4] = {8192, 0, 0, 0};
	value("modify_ldt write entry 8192", syscall(SYS_modify_ldt, 0x11, desc, 16));
	desc[0] = 0;
	desc[3] = 3 << 1; /* contents 3, present */
	value("modify_ldt write contents 3", syscall(SYS_modify_ldt, 0x11, desc, 16));
	desc[3] = 3 << 1 | 1 << 5; /* contents 3, not present, old mode */
	value("modify_ldt write contents 3, old mode", syscall(SYS_modify_ldt, 1, desc, 16));
	value("set_thread_area", syscall(SYS_set_thread_area, desc));
	value("get_thread_area", syscall(SYS_get_thread_area, desc));
#endif
	void *priv = mmap(0, 8192, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	value("remap_file_pages private", syscall(SYS_remap_file_pages, priv, 4096, 0, 1, 0));
	value("remap_file_pages prot", syscall(SYS_remap_file_pages, priv, 4096, PROT_READ, 1, 0));
	value("remap_file_pages wraps", syscall(SYS_remap_file_pages, priv, -4096L, 0, 1, 0));
	show("munmap", munmap(priv, 8192));
	value("remap_file_pages unmapped", syscall(SYS_remap_file_pages, priv, 4096, 0, 1, 0));
	int fd = open("file", O_CREAT | O_RDWR, 0600);
	if (fd < 0 || ftruncate(fd, 8192) < 0)
		perror("file");
	void *fmap = mmap(0, 8192, PROT_READ, MAP_PRIVATE, fd, 0);
	value("remap_file_pages of a private file mapping", syscall(SYS_remap_file_pages, fmap, 4096, 0, 1, 0));
	value("remap_file_pages of the program's own code", syscall(SYS_remap_file_pages, (uintptr_t)main & -4096L, 4096, 0, 1, 0));
	munmap(fmap, 8192);
	close(fd);
	unlink("file");
	value("restart_syscall", syscall(SYS_restart_syscall));
	return 0;
}
