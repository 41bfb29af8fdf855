// Links: how a translated block finds its entry in the block table without
// hashing its address at every execution.
//
// Unicorn calls the block hook from the translated code with the hook's
// user data as its last argument, the same for every block. icount gives
// each address translated with the block hook a link of its own instead
// (translation.c puts it in that argument), which holds the entry of the
// block last run from that address: the hook checks that the entry is
// that block's (address and size, both on the line it counts in) and
// takes the table's index only when it is not. Entries never move; a block
// whose code changed is unbound from its links (ic_links_forget), and a
// reset, which frees the entries, unbinds them all. Links live as long as
// the engine, whose translated code may hold them: one per address
// translated, found by address when an address is translated again.
#include "hotpath.h"

#include <stdlib.h>

// IC_LINK_CHUNK is the number of links allocated at once.
#define IC_LINK_CHUNK 1024

// link_number is link n.
static inline ic_link *link_number(ic_state *s, uint32_t n) {
	return &s->linkchunks[n / IC_LINK_CHUNK][n % IC_LINK_CHUNK];
}

// ic_links_init readies s's links: the hook's own, which a call not made
// through a link passes (and which any block may use), and the entry an
// unbound link points at, whose size 0 no block has.
void ic_links_init(ic_state *s) {
	s->no_block = (ic_block){.addr = UINT64_MAX};
	s->own_link = (ic_link){.b = &s->no_block, .s = s, .addr = UINT64_MAX};
}

// ic_links_unbind makes every link look its block up again.
void ic_links_unbind(ic_state *s) {
	s->own_link.b = &s->no_block;
	for (uint32_t n = 0; n < s->nlinks; n++) link_number(s, n)->b = &s->no_block;
}

// link_slot returns the slot of the table by address that holds addr's
// link, or the empty one where it would go. The table holds a link's number
// + 1 (0: an empty slot); link n is the (n % IC_LINK_CHUNK)th of chunk
// n / IC_LINK_CHUNK.
static uint32_t *link_slot(ic_state *s, uint64_t addr) {
	uint32_t mask = s->nlinkslots - 1;
	uint32_t h = ic_hash(mask, addr);
	while (s->linkslots[h] && link_number(s, s->linkslots[h] - 1)->addr != addr) h = (h + 1) & mask;
	return &s->linkslots[h];
}

// ic_links_forget unbinds the links that hold b, whose code changed.
void ic_links_forget(ic_state *s, const ic_block *b) {
	if (s->own_link.b == b) s->own_link.b = &s->no_block;
	if (!s->nlinkslots) return;
	uint32_t k = *link_slot(s, b->addr);
	if (k && link_number(s, k - 1)->b == b) link_number(s, k - 1)->b = &s->no_block;
}

// ic_link_at returns the link of the blocks translated at addr, making it
// on the first translation there; NULL when out of memory (the block then
// passes the hook's own link).
ic_link *ic_link_at(ic_state *s, uint64_t addr) {
	if (2 * (s->nlinks + 1) > s->nlinkslots) {
		uint32_t n = s->nlinkslots ? 2 * s->nlinkslots : 4096;
		uint32_t *t = calloc(n, sizeof *t);
		if (!t) return NULL;
		for (uint32_t i = 0; i < s->nlinkslots; i++) {
			uint32_t k = s->linkslots[i];
			if (!k) continue;
			uint32_t h = ic_hash(n - 1, link_number(s, k - 1)->addr);
			while (t[h]) h = (h + 1) & (n - 1);
			t[h] = k;
		}
		free(s->linkslots);
		s->linkslots = t;
		s->nlinkslots = n;
	}
	uint32_t *slot = link_slot(s, addr);
	if (*slot) return link_number(s, *slot - 1);
	uint32_t n = s->nlinks;
	if (n % IC_LINK_CHUNK == 0) {
		if (n / IC_LINK_CHUNK == s->caplinkchunks) {
			uint32_t cap = s->caplinkchunks ? 2 * s->caplinkchunks : 16;
			ic_link **c = realloc(s->linkchunks, cap * sizeof *c);
			if (!c) return NULL;
			s->linkchunks = c;
			s->caplinkchunks = cap;
		}
		if (!(s->linkchunks[n / IC_LINK_CHUNK] = malloc(IC_LINK_CHUNK * sizeof(ic_link)))) return NULL;
	}
	ic_link *l = link_number(s, n);
	*l = (ic_link){.b = &s->no_block, .s = s, .addr = addr};
	*slot = n + 1;
	s->nlinks++;
	return l;
}

// ic_links_free frees s's links, once its engine is gone.
void ic_links_free(ic_state *s) {
	for (uint32_t i = 0; i * IC_LINK_CHUNK < s->nlinks; i++) free(s->linkchunks[i]);
	free(s->linkchunks);
	free(s->linkslots);
	s->linkchunks = NULL, s->linkslots = NULL;
	s->nlinks = s->nlinkslots = s->caplinkchunks = 0;
}
