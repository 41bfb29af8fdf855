// The block table: every block the emulator ran, as entries in chunks that
// never move, found by address and size through an index, and by page.
//
// Block n (its id, from 1) is entry n - 1 of the chunks: an entry keeps its
// place for the whole run, so the hook's links (links.c) and s->cur point
// at it, and one whose code changed stays where it is, out of the index,
// with its counts. The hook reaches an entry through its link; the index
// (open addressing on ids) is asked at a block's first execution and when
// a link does not hold its block, so it is small (4 bytes a slot) and the
// entries are dense: a run touches only the pages its blocks fill.
#include "hotpath.h"

#include <stdlib.h>
#include <string.h>

// IC_INDEX_INITIAL is the index's first size, in slots: a small program
// runs a few hundred blocks, and the index doubles as it fills.
#define IC_INDEX_INITIAL 1024

// ic_block_of is block id's entry (id from 1 to s->nblocks).
ic_block *ic_block_of(const ic_state *s, uint32_t id) {
	return &s->chunks[(id - 1) / IC_BLOCK_CHUNK][(id - 1) % IC_BLOCK_CHUNK];
}

// grow_index rehashes the index into n slots.
static int grow_index(ic_state *s, uint32_t n) {
	uint32_t *t = calloc(n, sizeof *t);
	if (!t) return -1;
	for (uint32_t i = 0; i < s->nslots; i++) {
		uint32_t id = s->slots[i];
		if (!id) continue;
		uint32_t h = ic_hash(n - 1, ic_block_of(s, id)->addr);
		while (t[h]) h = (h + 1) & (n - 1);
		t[h] = id;
	}
	free(s->slots);
	s->slots = t;
	s->nslots = n;
	return 0;
}

// ic_blocks_init makes s's table empty; -1 when out of memory.
int ic_blocks_init(ic_state *s) { return grow_index(s, IC_INDEX_INITIAL); }

// ic_blocks_free frees s's table.
void ic_blocks_free(ic_state *s) {
	for (uint32_t i = 0; i < s->capchunks; i++) free(s->chunks[i]);
	free(s->chunks);
	for (int i = 0; i < s->nretired; i++) free(s->retired[i]);
	free(s->slots);
	for (uint32_t i = 0; i < s->npageslots; i++) free(s->pages[i].ids);
	free(s->pages);
}

// add_chunk makes room for block id, the first of its chunk (which a
// failed add may have made already). The array of chunks is published
// before the count of blocks that needs it, and an array outgrown is kept
// until ic_blocks_free: Go may be reading the table from another thread
// (Executed).
static int add_chunk(ic_state *s, uint32_t id) {
	uint32_t c = (id - 1) / IC_BLOCK_CHUNK;
	if (c == s->capchunks) {
		uint32_t cap = s->capchunks ? 2 * s->capchunks : 16;
		ic_block **a = calloc(cap, sizeof *a);
		if (!a) return -1;
		if (s->chunks) {
			memcpy(a, s->chunks, c * sizeof *a);
			s->retired[s->nretired++] = s->chunks;
		}
		__atomic_store_n(&s->chunks, a, __ATOMIC_RELEASE);
		s->capchunks = cap;
	}
	if (!s->chunks[c] && !(s->chunks[c] = calloc(IC_BLOCK_CHUNK, sizeof(ic_block)))) return -1;
	return 0;
}

// ic_block_find returns the entry of the block at addr of size bytes,
// NULL if the index has none.
ic_block *ic_block_find(const ic_state *s, uint64_t addr, uint32_t size) {
	uint32_t mask = s->nslots - 1;
	for (uint32_t h = ic_hash(mask, addr); s->slots[h]; h = (h + 1) & mask) {
		ic_block *b = ic_block_of(s, s->slots[h]);
		if (b->addr == addr && b->size == size) return b;
	}
	return NULL;
}

// page_ids returns the ids of page p's blocks (a page number), adding an
// entry when add is set; NULL when there is none (or no memory for it).
static ic_pageids *page_ids(ic_state *s, uint64_t p, int add) {
	if (add && 2 * (s->npages + 1) > s->npageslots) {
		uint32_t n = s->npageslots ? 2 * s->npageslots : 1024;
		ic_pageids *t = calloc(n, sizeof *t);
		if (!t) return NULL;
		for (uint32_t i = 0; i < s->npageslots; i++) {
			if (!s->pages[i].page) continue;
			uint32_t h = ic_hash(n - 1, s->pages[i].page);
			while (t[h].page) h = (h + 1) & (n - 1);
			t[h] = s->pages[i];
		}
		free(s->pages);
		s->pages = t;
		s->npageslots = n;
	}
	if (!s->npageslots) return NULL;
	uint32_t mask = s->npageslots - 1;
	for (uint32_t h = ic_hash(mask, p + 1);; h = (h + 1) & mask) {
		ic_pageids *e = &s->pages[h];
		if (e->page == p + 1) return e;
		if (!e->page) {
			if (!add) return NULL;
			e->page = p + 1;
			s->npages++;
			return e;
		}
	}
}

// index_pages adds block id to the pages it touches.
static int index_pages(ic_state *s, uint32_t id, uint64_t addr, uint32_t size) {
	for (uint64_t p = addr >> 12; p <= (addr + size - 1) >> 12; p++) {
		ic_pageids *e = page_ids(s, p, 1);
		if (!e) return -1;
		if (e->n == e->cap) {
			uint32_t cap = e->cap ? 2 * e->cap : 8;
			uint32_t *ids = realloc(e->ids, cap * sizeof *ids);
			if (!ids) return -1;
			e->ids = ids;
			e->cap = cap;
		}
		e->ids[e->n++] = id;
	}
	return 0;
}

// ic_block_add adds an entry for the block at addr of size bytes, which
// the index does not have; NULL when out of memory.
ic_block *ic_block_add(ic_state *s, uint64_t addr, uint32_t size) {
	if (2 * (s->nindexed + 1) > s->nslots && grow_index(s, 2 * s->nslots) != 0) return NULL;
	uint32_t id = s->nblocks + 1;
	if ((id - 1) % IC_BLOCK_CHUNK == 0 && add_chunk(s, id) != 0) return NULL;
	if (index_pages(s, id, addr, size) != 0) return NULL;
	ic_block *b = ic_block_of(s, id);
	*b = (ic_block){.addr = addr, .size = size, .id = id, .cell_node = UINT32_MAX}; // no cell yet
	uint32_t mask = s->nslots - 1;
	uint32_t h = ic_hash(mask, addr);
	while (s->slots[h]) h = (h + 1) & mask;
	s->slots[h] = id;
	s->nindexed++;
	__atomic_store_n(&s->nblocks, id, __ATOMIC_RELEASE);
	return b;
}

// unindex empties slot i of the index, moving back the ids after it that
// would no longer be found (backward-shift deletion).
static void unindex(ic_state *s, uint32_t i) {
	uint32_t *t = s->slots;
	uint32_t mask = s->nslots - 1;
	for (uint32_t j = i;;) {
		j = (j + 1) & mask;
		if (!t[j]) break;
		uint32_t home = ic_hash(mask, ic_block_of(s, t[j])->addr);
		// t[j] stays if its home lies cyclically in (i, j].
		if (i <= j ? (i < home && home <= j) : (i < home || home <= j)) continue;
		t[i] = t[j];
		i = j;
	}
	t[i] = 0;
	s->nindexed--;
}

// forget takes block b out of the index: the next block run at its
// address is a new one. Its entry stays, with its counts.
static void forget(ic_state *s, ic_block *b) {
	uint32_t mask = s->nslots - 1;
	for (uint32_t h = ic_hash(mask, b->addr); s->slots[h]; h = (h + 1) & mask) {
		if (s->slots[h] == b->id) {
			unindex(s, h);
			break;
		}
	}
	b->forgotten = 1;
	ic_links_forget(s, b);
}

// IC_FORGET_PAGES bounds the ranges whose blocks are found page by page;
// larger ones walk the whole table.
#define IC_FORGET_PAGES 16

// ic_forget_code forgets every block of [begin, end), whose code changed:
// the next translation there is a new block, decoded afresh, and the old
// ones keep their counts.
void ic_forget_code(ic_state *s, uint64_t begin, uint64_t end) {
	if (end <= begin) return;
	if (((end - 1) >> 12) - (begin >> 12) < IC_FORGET_PAGES) {
		for (uint64_t p = begin >> 12; p <= (end - 1) >> 12; p++) {
			ic_pageids *e = page_ids(s, p, 0);
			if (!e) continue;
			uint32_t kept = 0;
			for (uint32_t k = 0; k < e->n; k++) {
				ic_block *b = ic_block_of(s, e->ids[k]);
				if (b->forgotten) continue;
				if (b->addr < end && begin < b->addr + b->size) {
					forget(s, b);
					continue;
				}
				e->ids[kept++] = e->ids[k];
			}
			e->n = kept;
		}
		return;
	}
	for (uint32_t id = 1; id <= s->nblocks; id++) {
		ic_block *b = ic_block_of(s, id);
		if (!b->forgotten && b->addr < end && begin < b->addr + b->size) forget(s, b);
	}
}
