// Cells: each block's executions counted per context of the calling-context
// tree, so that every context knows what it ran instruction by
// instruction. A cell is a (node, block) pair; the block hook finds the
// cell of the block's last context in the block's own entry (ic_block's
// cell_node and cell), and asks ic_cell_of only when the block runs in
// another context than last time. A cut (ic_cut) lands in the current
// execution's cell, by the index of the first instruction that did not
// complete.
#include "hotpath.h"

#include <stdlib.h>

static uint32_t mix(uint64_t k, uint32_t mask) {
	return (uint32_t)((k * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

static uint32_t cell_hash(uint32_t mask, uint32_t node, uint32_t block) {
	return mix(((uint64_t)node << 32) | block, mask);
}

// grow_cellslots rehashes the cells into a table of n slots.
static int grow_cellslots(ic_state *s, uint32_t n) {
	uint32_t *t = calloc(n, sizeof *t);
	if (!t) return -1;
	for (uint32_t i = 1; i < s->ncells; i++) {
		uint32_t h = cell_hash(n - 1, s->cells[i].node, s->cells[i].block);
		while (t[h]) h = (h + 1) & (n - 1);
		t[h] = i + 1;
	}
	free(s->cellslots);
	s->cellslots = t;
	s->ncellslots = n;
	return 0;
}

// ic_cells_init makes the empty cell tables, with cell 0 taking nothing.
int ic_cells_init(ic_state *s) {
	s->capcells = 1024;
	s->cells = calloc(s->capcells, sizeof *s->cells);
	if (!s->cells || grow_cellslots(s, 2048) != 0) return -1;
	s->ncells = 1;
	return 0;
}

// new_cell adds the cell of block b in node; 0 when out of memory.
static uint32_t new_cell(ic_state *s, uint32_t node, uint32_t block) {
	if (s->ncells == s->capcells) {
		ic_cell *c = realloc(s->cells, 2 * (size_t)s->capcells * sizeof *c);
		if (!c) return 0;
		s->cells = c;
		s->capcells *= 2;
	}
	if (2 * (s->ncells + 1) > s->ncellslots && grow_cellslots(s, 2 * s->ncellslots) != 0) return 0;
	uint32_t i = s->ncells++;
	s->cells[i] = (ic_cell){.node = node, .block = block};
	uint32_t h = cell_hash(s->ncellslots - 1, node, block);
	while (s->cellslots[h]) h = (h + 1) & (s->ncellslots - 1);
	s->cellslots[h] = i + 1;
	return i;
}

// ic_cell_of returns the cell of block b in the current context, and makes
// it b's cached one; 0 (the cell taking nothing) when out of memory, which
// stops the run.
__attribute__((noinline)) uint32_t ic_cell_of(ic_state *s, ic_block *b) {
	uint32_t node = s->top, mask = s->ncellslots - 1, found = 0;
	for (uint32_t h = cell_hash(mask, node, b->id), slot; (slot = s->cellslots[h]) != 0; h = (h + 1) & mask) {
		const ic_cell *c = &s->cells[slot - 1];
		if (c->node == node && c->block == b->id) {
			found = slot - 1;
			break;
		}
	}
	if (!found && !(found = new_cell(s, node, b->id))) {
		s->oom = 1;
		uc_emu_stop(s->uc);
		return 0;
	}
	b->cell_node = node;
	b->cell = found;
	return found;
}

// grow_cuts rehashes the cuts into a table of n slots.
static int grow_cuts(ic_state *s, uint32_t n) {
	ic_cellcut *t = calloc(n, sizeof *t);
	if (!t) return -1;
	for (uint32_t i = 0; i < s->ncutslots; i++) {
		const ic_cellcut *c = &s->cuts[i];
		if (!c->cell) continue;
		uint32_t h = mix(((uint64_t)c->cell << 32) | c->index, n - 1);
		while (t[h].cell) h = (h + 1) & (n - 1);
		t[h] = *c;
	}
	free(s->cuts);
	s->cuts = t;
	s->ncutslots = n;
	return 0;
}

// ic_cell_cut records one execution of cell cut short before its block's
// instruction index.
void ic_cell_cut(ic_state *s, uint32_t cell, uint32_t index) {
	if (!cell) return;
	if (2 * (s->ncuts + 1) > s->ncutslots && grow_cuts(s, s->ncutslots ? 2 * s->ncutslots : 256) != 0) {
		s->oom = 1;
		uc_emu_stop(s->uc);
		return;
	}
	uint32_t mask = s->ncutslots - 1;
	for (uint32_t h = mix(((uint64_t)cell << 32) | index, mask);; h = (h + 1) & mask) {
		ic_cellcut *c = &s->cuts[h];
		if (c->cell == cell && c->index == index) {
			c->execs++;
			return;
		}
		if (!c->cell) {
			*c = (ic_cellcut){.cell = cell, .index = index, .execs = 1};
			s->ncuts++;
			return;
		}
	}
}

void ic_cells_free(ic_state *s) {
	free(s->cells);
	free(s->cellslots);
	free(s->cuts);
}
