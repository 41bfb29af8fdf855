// Guest memory: the page table, the TLB fill hook that answers from it, and
// the host memory behind guest addresses (see memory.h).
#include "memory.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE_SIZE (1ull << IC_PAGE_BITS)

// span is the size of the range an entry of level covers: level 3 (the
// root's entries) 512 GiB, level 2 1 GiB, level 1 2 MiB, level 0 (a byte
// of a leaf) one page.
static inline uint64_t span(int level) { return 1ull << (IC_PAGE_BITS + 9 * level); }

static inline uintptr_t uniform(uint8_t v) { return v ? (uintptr_t)v << 1 | 1 : 0; }

static inline int is_table(uintptr_t e) { return e != 0 && !(e & 1); }

// effective is the access a page-table value gives the guest: a writable
// page is readable (neither CPU has write-only pages), and on x86-64 an
// executable one too.
static inline uint32_t effective(const ic_mem *m, uint8_t v) {
	if (!(v & IC_MAPPED) || (v & IC_BEYOND)) return 0;
	uint32_t p = v & UC_PROT_ALL;
	if (p & UC_PROT_WRITE) p |= UC_PROT_READ;
	if (m->exec_reads && (p & UC_PROT_EXEC)) p |= UC_PROT_READ;
	return p;
}

// lookup returns the value of the page holding addr (< 2^48) and sets *end
// to the end of the range known to share it: a page, or a whole entry.
static uint8_t lookup(const ic_mem *m, uint64_t addr, uint64_t *end) {
	uintptr_t e = m->root[addr >> (IC_PAGE_BITS + 27) & 511];
	for (int level = 3;; level--) {
		if (!is_table(e)) {
			*end = (addr & ~(span(level) - 1)) + span(level);
			return (uint8_t)(e >> 1);
		}
		if (level == 1) {
			*end = (addr & ~(PAGE_SIZE - 1)) + PAGE_SIZE;
			return ((const uint8_t *)e)[addr >> IC_PAGE_BITS & 511];
		}
		e = ((const uintptr_t *)e)[addr >> (IC_PAGE_BITS + 9 * (level - 1)) & 511];
	}
}

uint8_t ic_mem_get(const ic_mem *m, uint64_t addr) {
	uint64_t end;
	return lookup(m, addr, &end);
}

// ic_mem_lookup returns the value of the page holding addr (< 2^48) and
// sets *end to the end of the range known to share it.
uint8_t ic_mem_lookup(const ic_mem *m, uint64_t addr, uint64_t *end) { return lookup(m, addr, end); }

// ic_mem_find returns the first address of [lo, hi) that is unmapped or
// that the guest may not access as need (UC_PROT_* bits) asks, hi if none.
uint64_t ic_mem_find(const ic_mem *m, uint64_t lo, uint64_t hi, uint8_t need) {
	for (uint64_t a = lo, end; a < hi; a = end) {
		uint8_t v = lookup(m, a, &end);
		if (!(v & IC_MAPPED) || (effective(m, v) & need) != need) return a;
	}
	return hi;
}

// ic_mem_any returns the union of the values of the pages of [lo, hi).
uint8_t ic_mem_any(const ic_mem *m, uint64_t lo, uint64_t hi) {
	uint8_t any = 0;
	for (uint64_t a = lo, end; a < hi; a = end) any |= lookup(m, a, &end);
	return any;
}

static void free_entry(uintptr_t e, int level) {
	if (!is_table(e)) return;
	if (level > 1) {
		const uintptr_t *t = (const uintptr_t *)e;
		for (int i = 0; i < 512; i++) free_entry(t[i], level - 1);
	}
	free((void *)e);
}

// collapse replaces the table below *e by one value if all its entries
// hold it, so that the table's size follows the boundaries between
// mappings, not their sizes.
static void collapse(uintptr_t *e, int level) {
	if (level == 1) {
		const uint8_t *leaf = (const uint8_t *)*e;
		for (int i = 1; i < 512; i++)
			if (leaf[i] != leaf[0]) return;
		uint8_t v = leaf[0];
		free((void *)*e);
		*e = uniform(v);
		return;
	}
	const uintptr_t *t = (const uintptr_t *)*e;
	if (is_table(t[0])) return;
	for (int i = 1; i < 512; i++)
		if (t[i] != t[0]) return;
	uintptr_t u = t[0];
	free((void *)*e);
	*e = u;
}

// set gives every page of [lo, hi) under the entry *e of level, which
// covers [base, base + span(level)), the value (old & keep) | v, where old
// is the page's value before: keep 0 sets v, keep IC_CODE keeps the marks
// of the pages holding code.
static int set(uintptr_t *e, int level, uint64_t base, uint64_t lo, uint64_t hi, uint8_t keep, uint8_t v) {
	uint64_t size = span(level);
	if (lo <= base && base + size <= hi && (keep == 0 || !is_table(*e))) {
		uint8_t old = is_table(*e) ? 0 : (uint8_t)(*e >> 1);
		free_entry(*e, level);
		*e = uniform((old & keep) | v);
		return 0;
	}
	if (!is_table(*e)) {
		uint8_t old = (uint8_t)(*e >> 1);
		if (*e == uniform((old & keep) | v)) return 0;
		void *t;
		if (level == 1) {
			t = malloc(512);
			if (!t) return -1;
			memset(t, old, 512);
		} else {
			uintptr_t *tt = malloc(512 * sizeof *tt);
			if (!tt) return -1;
			for (int i = 0; i < 512; i++) tt[i] = *e;
			t = tt;
		}
		*e = (uintptr_t)t;
	}
	uint64_t child = size >> 9;
	uint64_t first = ((lo > base ? lo : base) - base) / child;
	uint64_t last = ((hi < base + size ? hi : base + size) - 1 - base) / child;
	if (level == 1) {
		uint8_t *leaf = (uint8_t *)*e;
		if (keep == 0) memset(leaf + first, v, last - first + 1);
		else
			for (uint64_t i = first; i <= last; i++) leaf[i] = (leaf[i] & keep) | v;
	} else {
		uintptr_t *t = (uintptr_t *)*e;
		for (uint64_t i = first; i <= last; i++)
			if (set(&t[i], level - 1, base + i * child, lo, hi, keep, v) != 0) return -1;
	}
	collapse(e, level);
	return 0;
}

// ic_mem_update gives every page of [lo, hi) (page aligned, below 2^48)
// the page-table value (old & keep) | v, where old is its value before.
// It returns -1 when out of memory.
int ic_mem_update(ic_mem *m, uint64_t lo, uint64_t hi, uint8_t keep, uint8_t v) {
	for (uint64_t i = lo / span(3); i <= (hi - 1) / span(3); i++)
		if (set(&m->root[i], 3, i * span(3), lo, hi, keep, v) != 0) return -1;
	return 0;
}

// ic_mem_set gives every page of [lo, hi) (page aligned, below 2^48) the
// page-table value v; 0 unmaps. It returns -1 when out of memory.
int ic_mem_set(ic_mem *m, uint64_t lo, uint64_t hi, uint8_t v) { return ic_mem_update(m, lo, hi, 0, v); }

// ic_mem_mark_code marks the mapped pages of [lo, hi) as holding
// translated code (IC_CODE). It returns 1 when one of them is writable,
// so that the TLB may hold write access to it and must be flushed; -1
// when out of memory; 0 otherwise.
int ic_mem_mark_code(ic_mem *m, uint64_t lo, uint64_t hi) {
	int flush = 0;
	for (uint64_t a = lo & ~(PAGE_SIZE - 1); a < hi && a < (1ull << IC_ADDR_BITS); a += PAGE_SIZE) {
		uint8_t v = ic_mem_get(m, a);
		if (!(v & IC_MAPPED) || (v & IC_CODE)) continue;
		if (ic_mem_set(m, a, a + PAGE_SIZE, v | IC_CODE) != 0) return -1;
		if (effective(m, v) & UC_PROT_WRITE) flush = 1;
	}
	return flush;
}

// mark_chunks notes that host memory of [lo, hi), which has slabs behind
// it, may be written from now on.
static void mark_chunks(ic_mem *m, uint64_t lo, uint64_t hi) {
	for (uint64_t c = lo >> IC_CHUNK_BITS; c <= (hi - 1) >> IC_CHUNK_BITS; c++) {
		uint64_t k = c & (IC_CHUNKS - 1);
		m->chunks[c >> (IC_SLAB_BITS - IC_CHUNK_BITS)][k >> 3] |= (uint8_t)(1u << (k & 7));
	}
}

// ic_mem_back makes sure host memory lies behind [lo, hi), mapping a
// slab into the emulator's physical memory where there is none yet, and
// notes that it may be written (IC_CHUNK_BITS). It returns -1 when the
// host has no address space left (or the slab limit is reached).
int ic_mem_back(ic_mem *m, uint64_t lo, uint64_t hi) {
	for (uint64_t i = lo >> IC_SLAB_BITS; i <= (hi - 1) >> IC_SLAB_BITS; i++) {
		if (m->slab[i]) continue;
		if (m->nslabs >= IC_MAX_SLABS) return -1;
		uint8_t *chunks = calloc(IC_CHUNKS / 8, 1);
		if (!chunks) return -1;
		void *host = mmap(NULL, IC_SLAB_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (host == MAP_FAILED) {
			free(chunks);
			return -1;
		}
		if (uc_mem_map_ptr(m->uc, i << IC_SLAB_BITS, IC_SLAB_SIZE, UC_PROT_ALL, host) != UC_ERR_OK) {
			munmap(host, IC_SLAB_SIZE);
			free(chunks);
			return -1;
		}
		m->slab[i] = host;
		m->chunks[i] = chunks;
		m->nslabs++;
	}
	mark_chunks(m, lo, hi);
	return 0;
}

// ic_mem_zero zeroes the host memory behind [lo, hi) (page aligned) and
// gives it back to the host. The emulator's TLB entries stay valid: they
// point at the same host pages, which now read as zeros.
void ic_mem_zero(ic_mem *m, uint64_t lo, uint64_t hi) {
	for (uint64_t a = lo, next; a < hi; a = next) {
		uint64_t i = a >> IC_SLAB_BITS;
		next = (i + 1) << IC_SLAB_BITS;
		if (next > hi) next = hi;
		if (!m->slab[i]) continue;
		uint8_t *p = m->slab[i] + (a & (IC_SLAB_SIZE - 1));
		if (PAGE_SIZE % m->host_page != 0 || madvise(p, next - a, MADV_DONTNEED) != 0) memset(p, 0, next - a);
	}
}

// ic_mem_release gives the host memory behind [lo, hi) (page aligned)
// back, reading as zeros after, as ic_mem_zero; when files says that a
// page of it may be a file's (IC_FILE), the slab's anonymous memory is
// mapped there again, so that no page of the file comes back.
void ic_mem_release(ic_mem *m, uint64_t lo, uint64_t hi, int files) {
	if (!files) {
		ic_mem_zero(m, lo, hi);
		return;
	}
	for (uint64_t a = lo, next; a < hi; a = next) {
		uint64_t i = a >> IC_SLAB_BITS;
		next = (i + 1) << IC_SLAB_BITS;
		if (next > hi) next = hi;
		if (!m->slab[i]) continue;
		uint8_t *p = m->slab[i] + (a & (IC_SLAB_SIZE - 1));
		if (mmap(p, next - a, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0) == MAP_FAILED)
			memset(p, 0, next - a); // private copies of zeros
	}
}

// prune_files drops the file mappings no page shows any more: those
// without a page of IC_FILE left, and those a newer one covers whole.
static void prune_files(ic_mem *m) {
	uint32_t kept = 0;
	for (uint32_t i = 0; i < m->nfiles; i++) {
		ic_filemap f = m->files[i];
		int shown = (ic_mem_any(m, f.lo, f.hi) & IC_FILE) != 0;
		for (uint32_t j = i + 1; j < m->nfiles && shown; j++)
			if (m->files[j].lo <= f.lo && f.hi <= m->files[j].hi) shown = 0;
		if (shown)
			m->files[kept++] = f;
		else
			close(f.fd);
	}
	m->nfiles = kept;
}

// forget_files drops the file mappings that cover any page of [lo, hi):
// emptied, no page shows them.
static void forget_files(ic_mem *m, uint64_t lo, uint64_t hi) {
	for (uint32_t i = 0; i < m->nfiles; i++)
		if (m->files[i].lo < hi && lo < m->files[i].hi) m->files[i].hi = m->files[i].lo;
	prune_files(m);
}

// keep_file records that [lo, hi) shows the file open at fd from off,
// with a duplicate of fd. Without room or a descriptor, the older
// mappings there are forgotten instead, for none to answer for the
// pages: a fork copies them.
static void keep_file(ic_mem *m, uint64_t lo, uint64_t hi, int fd, uint64_t off) {
	if (m->nfiles == m->capfiles) prune_files(m);
	if (m->nfiles == m->capfiles) {
		uint32_t cap = m->capfiles ? 2 * m->capfiles : 16;
		ic_filemap *f = realloc(m->files, cap * sizeof *f);
		if (!f) {
			forget_files(m, lo, hi);
			return;
		}
		m->files = f;
		m->capfiles = cap;
	}
	int dup = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (dup < 0) {
		forget_files(m, lo, hi);
		return;
	}
	m->files[m->nfiles++] = (ic_filemap){lo, hi, off, dup};
}

// ic_mem_map_file makes the host memory behind [lo, hi) (page aligned,
// newly mapped: reading zeros) a private mapping of the host file fd from
// offset off, which must hold the range's bytes but for part of its last
// page (a page wholly past the end of a file would stop icount with the
// host's SIGBUS), and marks its pages IC_FILE. It returns -1 when the
// host cannot map the file (or its pages are not the guest's size): the
// memory then reads zeros still, for the caller to copy the file's bytes
// instead. The mapping is recorded (keep_file) for a fork to repeat.
int ic_mem_map_file(ic_mem *m, uint64_t lo, uint64_t hi, int fd, uint64_t off) {
	if (m->host_page != PAGE_SIZE || ic_mem_back(m, lo, hi) != 0) return -1;
	for (uint64_t a = lo, next; a < hi; a = next) {
		uint64_t i = a >> IC_SLAB_BITS;
		next = (i + 1) << IC_SLAB_BITS;
		if (next > hi) next = hi;
		uint8_t *p = m->slab[i] + (a & (IC_SLAB_SIZE - 1));
		if (mmap(p, next - a, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_NORESERVE | MAP_FIXED, fd, (off_t)(off + (a - lo))) == MAP_FAILED) {
			ic_mem_release(m, lo, a, 1);
			return -1;
		}
	}
	keep_file(m, lo, hi, fd, off);
	return ic_mem_update(m, lo, hi, 0xff, IC_FILE);
}

// ic_mem_file_at returns the file mapping a page at addr with IC_FILE
// shows (the newest that covers it), or NULL; *end is where the next
// page that may show another begins.
const ic_filemap *ic_mem_file_at(const ic_mem *m, uint64_t addr, uint64_t *end) {
	*end = UINT64_MAX;
	for (uint32_t i = m->nfiles; i-- > 0;) {
		const ic_filemap *f = &m->files[i];
		if (f->lo <= addr && addr < f->hi) {
			if (f->hi < *end) *end = f->hi;
			return f;
		}
		// A newer mapping starting further on covers its pages.
		if (f->lo > addr && f->lo < *end) *end = f->lo;
	}
	return NULL;
}

// ic_mem_copy copies n bytes between buf and guest memory at addr, which
// the caller has checked is mapped. Memory with no host memory behind it
// yet reads as zeros; writing there reserves it. It returns -1 when that
// fails.
int ic_mem_copy(ic_mem *m, uint64_t addr, void *buf, uint64_t n, int write) {
	uint8_t *b = buf;
	while (n > 0) {
		uint64_t i = addr >> IC_SLAB_BITS;
		uint64_t chunk = ((i + 1) << IC_SLAB_BITS) - addr;
		if (chunk > n) chunk = n;
		if (!m->slab[i]) {
			if (!write) {
				memset(b, 0, chunk);
				goto next;
			}
			if (ic_mem_back(m, addr, addr + chunk) != 0) return -1;
		}
		uint8_t *p = m->slab[i] + (addr & (IC_SLAB_SIZE - 1));
		if (write) {
			mark_chunks(m, addr, addr + chunk);
			memcpy(p, b, chunk);
		} else
			memcpy(b, p, chunk);
	next:
		addr += chunk;
		b += chunk;
		n -= chunk;
	}
	return 0;
}

// Why an access was refused, besides a fault.
enum { REFUSED_FAULT, REFUSED_CODE, REFUSED_SUSPECT };

// record notes the first refusal of a run.
static void record(ic_mem *m, uc_mem_type type, uint64_t vaddr, uint8_t v, int why) {
	if (m->refused) return;
	m->refused = 1;
	m->refused_type = type;
	m->refused_at = vaddr;
	m->refused_page = v;
	m->refused_code = why == REFUSED_CODE;
	m->refused_suspect = why == REFUSED_SUSPECT;
}

// ic_tlb_fill answers the emulator's TLB misses: the identity mapping,
// with the page's permissions, or a refusal, which stops the guest with
// UC_ERR_EXCEPTION at the exact instruction; the refusal is recorded for
// Go, since no other hook is told of it. Unicorn caches what it is given
// (all of it, whatever access asked), never a refusal. A page holding
// translated code is given without write access, and a guest store there
// is refused as a store into code.
static bool ic_tlb_fill(uc_engine *uc, uint64_t vaddr, uc_mem_type type, uc_tlb_entry *e, void *ud) {
	ic_mem *m = ud;
	int backed = !(vaddr >> IC_ADDR_BITS) && m->slab[vaddr >> IC_SLAB_BITS];
	uint8_t v = vaddr >> IC_ADDR_BITS ? 0 : ic_mem_get(m, vaddr);
	uint32_t need = type == UC_MEM_FETCH ? UC_PROT_EXEC : type == UC_MEM_WRITE ? UC_PROT_WRITE : UC_PROT_READ;
	uint32_t perms = backed ? effective(m, v) : 0;
	if ((perms & UC_PROT_EXEC) && m->unsettled && ic_mem_suspect(m, vaddr)) {
		// Code an earlier program left here runs only once the page is
		// settled (spare.c): a fetch stops the guest for Go to settle it,
		// and another access gets no execute permission for the TLB to
		// keep. What is granted meanwhile (ic_mem_remove_cache) is flushed
		// after.
		if (m->granting) {
			m->granted = 1;
		} else if (type == UC_MEM_FETCH) {
			record(m, type, vaddr, v, REFUSED_SUSPECT);
			return false;
		} else {
			perms &= ~UC_PROT_EXEC;
		}
	}
	if ((v & IC_CODE) && (perms & UC_PROT_WRITE)) {
		if (type == UC_MEM_WRITE && !m->granting) {
			record(m, type, vaddr, v, REFUSED_CODE);
			return false;
		}
		perms &= ~UC_PROT_WRITE;
	}
	if (!(perms & need)) {
		if (!m->granting || !backed) {
			// The first refusal stops the guest; a later one is Unicorn's
			// own, as it discards the code at its exit address (exit - 1)
			// after the run.
			record(m, type, vaddr, v, REFUSED_FAULT);
			return false;
		}
		perms = UC_PROT_ALL;
		m->granted = 1;
	}
	e->paddr = vaddr;
	e->perms = perms;
	return true;
}

// ic_mem_grant makes ic_tlb_fill grant every access until ic_mem_ungrant,
// for the emulator's own fetches when it discards code, which it finds
// by translating an address of it as an instruction fetch: on a page the
// guest may not execute, a refusal there would stop the guest (from
// inside a hook) with a spurious exception and leave the code. What was
// granted is flushed from the TLB by ic_mem_ungrant.
void ic_mem_grant(ic_mem *m) {
	m->granting = 1;
	m->granted = 0;
}

uc_err ic_mem_ungrant(ic_mem *m) {
	m->granting = 0;
	if (!m->granted) return UC_ERR_OK;
	m->granted = 0;
	return uc_ctl_flush_tlb(m->uc);
}

// ic_mem_remove_cache discards the translated code of [lo, hi), with
// every access granted meanwhile (ic_mem_grant). Host memory is physical
// memory slab by slab, so each slab is done alone, and memory with no host
// memory behind it holds no code.
uc_err ic_mem_remove_cache(ic_mem *m, uint64_t lo, uint64_t hi) {
	const uint64_t limit = 1ull << IC_ADDR_BITS;
	if (hi > limit) hi = limit;
	uc_err err = UC_ERR_OK;
	ic_mem_grant(m);
	for (uint64_t a = lo, next; a < hi && err == UC_ERR_OK; a = next) {
		uint64_t i = a >> IC_SLAB_BITS;
		next = (i + 1) << IC_SLAB_BITS;
		if (next > hi) next = hi;
		if (m->slab[i]) err = uc_ctl_remove_cache(m->uc, a, next);
	}
	uc_err ferr = ic_mem_ungrant(m);
	return err != UC_ERR_OK ? err : ferr;
}

// uc_ctl is variadic, which cgo cannot call.
uc_err ic_mem_flush_tlb(ic_mem *m) { return uc_ctl_flush_tlb(m->uc); }

ic_mem *ic_mem_new(uc_engine *uc, int exec_reads) {
	ic_mem *m = calloc(1, sizeof *m);
	if (!m) return NULL;
	m->uc = uc;
	m->exec_reads = exec_reads;
	m->host_page = sysconf(_SC_PAGESIZE);
	if (m->host_page <= 0) m->host_page = PAGE_SIZE;
	return m;
}

// ic_mem_install puts the emulator in its virtual-TLB mode with ic_tlb_fill
// answering; it must run after the CPU model is chosen and before anything
// is mapped.
uc_err ic_mem_install(ic_mem *m) {
	uc_err err = uc_ctl_tlb_mode(m->uc, UC_TLB_VIRTUAL);
	if (err != UC_ERR_OK) return err;
	return uc_hook_add(m->uc, &(uc_hook){0}, UC_HOOK_TLB_FILL, (void *)ic_tlb_fill, m, 1, 0);
}

// ic_mem_free releases the page table and the host memory; the emulator
// must be closed first.
void ic_mem_free(ic_mem *m) {
	if (!m) return;
	ic_mem_free_suspects(m);
	for (uint32_t i = 0; i < m->nfiles; i++) close(m->files[i].fd);
	free(m->files);
	for (int i = 0; i < 512; i++) free_entry(m->root[i], 3);
	for (uint32_t i = 0; i < IC_NSLABS; i++)
		if (m->slab[i]) {
			munmap(m->slab[i], IC_SLAB_SIZE);
			free(m->chunks[i]);
		}
	free(m);
}
