// Fork's copies: a new engine's page table and host memory made those of
// another (ic_mem_copy_from), and its registers (ic_copy_regs); and the
// translation buffer, sized per engine, whose flushes are made safe and
// cheap in Unicorn 2.1.1 (ic_init_code_buffer, __wrap_memset).
//
// Memory is copied eagerly, but only what the host holds: the slabs are
// reserved with MAP_NORESERVE and fill as the guest touches them, so the
// copy visits only the chunks that may hold data (memory.h: IC_CHUNK_BITS)
// of the pages mapped, asks the host's page map which of their pages exist
// (present or swapped out), and copies those that are not all zeros (a
// page only read holds the host's shared zero page). A page the parent
// never touched stays untouched in the child too.
#include "fork.h"

#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE (1ull << IC_PAGE_BITS)
#define CHUNK (1ull << IC_CHUNK_BITS)

// The bits of a /proc/self/pagemap entry that say a page exists.
#define PM_PRESENT (1ull << 63)
#define PM_SWAPPED (1ull << 62)
// The bit of a present page that says it is a file's (or shared), not the
// process's own: a private file mapping's page the process wrote lacks it.
#define PM_FILE (1ull << 61)

static int zeros(const uint8_t *p) {
	const uint64_t *q = (const uint64_t *)p;
	for (size_t i = 0; i < PAGE / 8; i++)
		if (q[i]) return 0;
	return 1;
}

// copy_run copies the n pages at a, which the host holds in src, to dst,
// having the host give dst's memory for them in one call (before Linux
// 5.14 it is given page by page as the copy touches it).
static int copy_run(ic_mem *dst, uint64_t a, const uint8_t *from, uint64_t n) {
	if (n == 0) return 0;
	if (ic_mem_back(dst, a, a + n * PAGE) != 0) return -1;
	uint8_t *to = dst->slab[a >> IC_SLAB_BITS] + (a & (IC_SLAB_SIZE - 1));
#ifdef MADV_POPULATE_WRITE
	madvise(to, n * PAGE, MADV_POPULATE_WRITE);
#endif
	memcpy(to, from, n * PAGE);
	return 0;
}

// read_page_map reads into map the host's page-map entries of the host
// pages (of hp bytes) holding [p, p + len), at most max of them. It
// returns the number of the first (never 0: the host's first page is
// never memory icount uses), or 0 when it cannot read them.
static uint64_t read_page_map(int pagemap, const uint8_t *p, uint64_t len, uint64_t hp, uint64_t *map, uint64_t max) {
	uint64_t first = (uintptr_t)p / hp, n = ((uintptr_t)p + len - 1) / hp - first + 1;
	if (pagemap < 0 || n > max || pread(pagemap, map, n * 8, (off_t)(first * 8)) != (ssize_t)(n * 8)) return 0;
	return first;
}

// copy_chunk copies the pages of [lo, hi), within one chunk of src that
// may hold data, to dst: those the host holds that are not all zeros.
// pagemap is /proc/self/pagemap, -1 if the host has none: every page is
// then read.
static int copy_chunk(ic_mem *dst, const ic_mem *src, uint64_t lo, uint64_t hi, int pagemap) {
	const uint8_t *host = src->slab[lo >> IC_SLAB_BITS] + (lo & (IC_SLAB_SIZE - 1));
	const uint64_t hp = (uint64_t)src->host_page;
	uint64_t map[CHUNK / 4096 + 1];
	uint64_t first = read_page_map(pagemap, host, hi - lo, hp, map, sizeof map / sizeof map[0]);
	int known = first != 0;
	uint64_t run = lo, len = 0; // pages to copy from run on
	for (uint64_t a = lo; a < hi; a += PAGE) {
		const uint8_t *p = host + (a - lo);
		int held = !known || (map[(uintptr_t)p / hp - first] & (PM_PRESENT | PM_SWAPPED));
		if (held && !zeros(p)) {
			len++;
			continue;
		}
		if (copy_run(dst, run, host + (run - lo), len) != 0) return -1;
		run = a + PAGE;
		len = 0;
	}
	return copy_run(dst, run, host + (run - lo), len);
}

// copy_data copies what the host holds of [lo, hi), mapped in src. Pages
// of a file (files) hold the file's bytes whether the host has them
// present or not: each is read.
static int copy_data(ic_mem *dst, const ic_mem *src, uint64_t lo, uint64_t hi, int pagemap, int files) {
	if (files) pagemap = -1;
	for (uint64_t a = lo, next; a < hi; a = next) {
		uint64_t i = a >> IC_SLAB_BITS;
		if (!src->slab[i]) {
			next = (i + 1) << IC_SLAB_BITS;
			continue;
		}
		next = (a | (CHUNK - 1)) + 1;
		if (next > hi) next = hi;
		uint64_t k = (a & (IC_SLAB_SIZE - 1)) >> IC_CHUNK_BITS;
		if (!(src->chunks[i][k >> 3] & (1u << (k & 7)))) continue;
		if (copy_chunk(dst, src, a, next, pagemap) != 0) return -1;
	}
	return 0;
}

// copy_written copies to dst the pages of [lo, hi), a mapping of a file in
// src and in dst, that src holds of its own: written (the host's private
// copy, no longer the file's page) or swapped out. The others show the
// file in both. It returns -1 when the host's page map cannot be read.
static int copy_written(ic_mem *dst, const ic_mem *src, uint64_t lo, uint64_t hi, int pagemap) {
	const uint64_t hp = (uint64_t)src->host_page;
	uint64_t map[CHUNK / 4096];
	for (uint64_t a = lo, next; a < hi; a = next) {
		next = (a | (CHUNK - 1)) + 1; // a chunk lies in one slab
		if (next > hi) next = hi;
		const uint8_t *from = src->slab[a >> IC_SLAB_BITS] + (a & (IC_SLAB_SIZE - 1));
		uint8_t *to = dst->slab[a >> IC_SLAB_BITS] + (a & (IC_SLAB_SIZE - 1));
		if (!read_page_map(pagemap, from, next - a, hp, map, sizeof map / sizeof map[0])) return -1;
		for (uint64_t k = 0; k < (next - a) / hp; k++)
			if ((map[k] & PM_PRESENT && !(map[k] & PM_FILE)) || map[k] & PM_SWAPPED)
				memcpy(to + k * hp, from + k * hp, hp);
	}
	return 0;
}

// copy_file_pages gives dst the pages of [lo, hi), which show files in src
// (IC_FILE): the same mappings of the files (ic_mem_file_at), with the
// pages src wrote copied over them, where the host maps them; a copy of
// every page elsewhere. A fork then costs the pages the parent wrote, not
// its programs' and libraries' code.
static int copy_file_pages(ic_mem *dst, const ic_mem *src, uint64_t lo, uint64_t hi, int pagemap) {
	for (uint64_t a = lo, next; a < hi; a = next) {
		const ic_filemap *f = ic_mem_file_at(src, a, &next);
		if (next > hi) next = hi;
		if (f && pagemap >= 0 && ic_mem_map_file(dst, a, next, f->fd, f->off + (a - f->lo)) == 0) {
			if (copy_written(dst, src, a, next, pagemap) == 0) continue;
			ic_mem_release(dst, a, next, 1); // its file's pages again: copied whole
			if (ic_mem_update(dst, a, next, (uint8_t)~IC_FILE, 0) != 0) return -1;
		}
		if (copy_data(dst, src, a, next, pagemap, 1) != 0) return -1;
	}
	return 0;
}

// ic_mem_copy_from gives dst, which has nothing mapped, every mapping of
// src with its permissions and contents; the marks of pages holding code
// are not copied (dst has no translations), and the pages of a file's
// mapping (IC_FILE) are dst's mapping of the same file, with the pages src
// wrote copied (copy_file_pages). It returns 0,
// or IC_COPY_NOMEM or IC_COPY_NOHOST with *failed_at the address it
// failed at.
int ic_mem_copy_from(ic_mem *dst, const ic_mem *src, uint64_t *failed_at) {
	const uint64_t limit = 1ull << IC_ADDR_BITS;
	int pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	int err = 0;
	for (uint64_t a = 0, end; a < limit && !err; a = end) {
		uint8_t v = ic_mem_lookup(src, a, &end) & ~IC_CODE;
		// The range of pages that share v, whatever the entries they lie in.
		while (end < limit) {
			uint64_t next;
			if ((ic_mem_lookup(src, end, &next) & ~IC_CODE) != v) break;
			end = next;
		}
		if (!(v & IC_MAPPED)) continue;
		*failed_at = a;
		if (ic_mem_set(dst, a, end, v & ~IC_FILE) != 0) err = IC_COPY_NOMEM;
		else if ((v & UC_PROT_ALL) && ic_mem_back(dst, a, end) != 0) err = IC_COPY_NOHOST;
		else if (v & IC_FILE ? copy_file_pages(dst, src, a, end, pagemap) : copy_data(dst, src, a, end, pagemap, 0))
			err = IC_COPY_NOHOST;
	}
	if (pagemap >= 0) close(pagemap);
	return err;
}

// ic_copy_regs makes src's registers dst's: the whole CPU state a context
// holds, which for x86-64 and arm64 is a copy of the CPU's own (no pointer
// into the engine is set in it for a user program: only the debug
// registers, which icount refuses, would set one). On x86-64, while the
// emulator runs (src stopped in a hook, as fork is) the arithmetic flags
// and DF are kept apart from EFLAGS, which the emulator takes them from
// when it starts: EFLAGS is written whole, as read. dst's TLB is flushed,
// as a write of the registers that govern it would.
uc_err ic_copy_regs(uc_engine *dst, uc_engine *src, int x86) {
	uc_context *ctx;
	uc_err err = uc_context_alloc(src, &ctx);
	if (err != UC_ERR_OK) return err;
	err = uc_context_save(src, ctx);
	if (err == UC_ERR_OK) err = uc_context_restore(dst, ctx);
	uc_context_free(ctx);
	if (err == UC_ERR_OK && x86) {
		uint64_t flags;
		err = uc_reg_read(src, UC_X86_REG_EFLAGS, &flags);
		if (err == UC_ERR_OK) err = uc_reg_write(dst, UC_X86_REG_EFLAGS, &flags);
	}
	if (err != UC_ERR_OK) return err;
	return uc_ctl_flush_tlb(dst);
}

// uc_ctl is variadic, which cgo cannot call. The size is used when the
// engine is first initialized: it must be set before anything else.
uc_err ic_set_code_buffer(uc_engine *uc, uint32_t size) { return uc_ctl_set_tcg_buffer_size(uc, size); }

uc_err ic_code_buffer(uc_engine *uc, uint32_t *size) { return uc_ctl_get_tcg_buffer_size(uc, size); }

// Unicorn 2.1.1 zeroes the whole translation buffer at every flush (a
// hack later versions dropped: Unicorn's commit 2c688bae), which makes the
// host give it memory, all of it: 1 GiB by default. The linker sends the
// emulator's calls to mmap64, munmap and memset here (cpu.go: --wrap), so
// that the translation buffers (its executable mappings, private and
// anonymous) are known, and zeroing one of them is done by giving its
// pages back, which then read as zeros.
void *__real_mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int __real_munmap(void *addr, size_t len);
void *__real_memset(void *s, int c, size_t n);

#define IC_MAX_BUFFERS 1024
typedef struct {
	uintptr_t lo, hi;
} ic_span;
static ic_span buffers[IC_MAX_BUFFERS];
static int nbuffers;
static pthread_mutex_t buffers_mu = PTHREAD_MUTEX_INITIALIZER;

void *__wrap_mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off) {
	void *p = __real_mmap64(addr, len, prot, flags, fd, off);
	if (p != MAP_FAILED && (prot & PROT_EXEC) && (flags & (MAP_PRIVATE | MAP_ANONYMOUS)) == (MAP_PRIVATE | MAP_ANONYMOUS)) {
		pthread_mutex_lock(&buffers_mu);
		if (nbuffers < IC_MAX_BUFFERS) buffers[nbuffers++] = (ic_span){(uintptr_t)p, (uintptr_t)p + len};
		pthread_mutex_unlock(&buffers_mu);
	}
	return p;
}

int __wrap_munmap(void *addr, size_t len) {
	uintptr_t lo = (uintptr_t)addr, hi = lo + len;
	pthread_mutex_lock(&buffers_mu);
	for (int i = 0; i < nbuffers; i++)
		if (buffers[i].lo < hi && lo < buffers[i].hi) buffers[i--] = buffers[--nbuffers];
	pthread_mutex_unlock(&buffers_mu);
	return __real_munmap(addr, len);
}

void *__wrap_memset(void *s, int c, size_t n) {
	const size_t page = 4096;
	if (c != 0 || n < (1u << 20)) return __real_memset(s, c, n);
	uintptr_t lo = (uintptr_t)s, hi = lo + n;
	int in = 0;
	pthread_mutex_lock(&buffers_mu);
	for (int i = 0; i < nbuffers && !in; i++) in = buffers[i].lo <= lo && hi <= buffers[i].hi;
	pthread_mutex_unlock(&buffers_mu);
	uintptr_t alo = (lo + page - 1) & ~(page - 1), ahi = hi & ~(page - 1);
	if (!in || madvise((void *)alo, ahi - alo, MADV_DONTNEED) != 0) return __real_memset(s, c, n);
	__real_memset(s, 0, alo - lo);
	__real_memset((void *)ahi, 0, hi - ahi);
	return s;
}

// ic_init_code_buffer initializes the engine (which allocates its
// translation buffer) and, in a Unicorn before 2.1.3, flushes the buffer
// once before any code is translated. Those never start the buffer's
// region (Unicorn's commit 2128e01e, "Init tcg region buffer"): the
// first time the buffer fills, the emulator starts it over without
// discarding the blocks translated there, and crashes on the next jump
// between them. After a flush every later fill flushes, as it should.
uc_err ic_init_code_buffer(uc_engine *uc) {
	uint32_t size;
	unsigned int major, minor;
	unsigned int v = uc_version(&major, &minor);
	uc_err err = uc_ctl_get_tcg_buffer_size(uc, &size); // initializes the engine
	if (err != UC_ERR_OK || (major << 16 | minor << 8 | (v >> 8 & 0xff)) >= (2u << 16 | 1u << 8 | 3)) return err;
	return uc_ctl_flush_tb(uc);
}
