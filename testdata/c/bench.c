/*
 * bench: the CPU-bound workload of `make bench` (built glibc-static -O2).
 *
 *   bench [ITERATIONS]
 *
 * A CoreMark-like mix of integer work, repeated ITERATIONS times (default
 * 5000, about 2.1e9 instructions): linked-list search, reversal and
 * merge sort; a small integer matrix multiply; a state machine scanning a
 * buffer of numbers and junk; and a CRC-16 folding every result into the
 * checksum printed at the end. Deterministic: no clock, no randomness from
 * the system, no floating point; the checksum depends only on ITERATIONS.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- CRC-16 (CCITT), bitwise as in CoreMark ------------------------------ */
static uint16_t crc16_byte(uint8_t data, uint16_t crc) {
	for (int i = 0; i < 8; i++) {
		uint8_t x16 = (uint8_t)((data & 1) ^ ((uint8_t)crc & 1));
		data >>= 1;
		if (x16 == 1) {
			crc ^= 0x4002;
			crc = (uint16_t)((crc >> 1) | 0x8000);
		} else {
			crc >>= 1;
		}
	}
	return crc;
}

static uint16_t crc16_u32(uint32_t v, uint16_t crc) {
	crc = crc16_byte((uint8_t)v, crc);
	crc = crc16_byte((uint8_t)(v >> 8), crc);
	crc = crc16_byte((uint8_t)(v >> 16), crc);
	return crc16_byte((uint8_t)(v >> 24), crc);
}

/* ---- linked list ----------------------------------------------------------- */
#define NODES 96

struct node {
	struct node *next;
	int16_t key;
	int16_t val;
};

static struct node pool[NODES];

static struct node *list_build(uint32_t seed) {
	struct node *head = NULL;
	for (int i = NODES - 1; i >= 0; i--) {
		seed = seed * 1103515245u + 12345u;
		pool[i].key = (int16_t)(i ^ (int)(seed >> 20 & 0x3f));
		pool[i].val = (int16_t)(seed >> 16);
		pool[i].next = head;
		head = &pool[i];
	}
	return head;
}

static struct node *list_reverse(struct node *l) {
	struct node *prev = NULL;
	while (l) {
		struct node *n = l->next;
		l->next = prev;
		prev = l;
		l = n;
	}
	return prev;
}

static struct node *list_find(struct node *l, int16_t key) {
	while (l && l->key != key)
		l = l->next;
	return l;
}

/* bottom-up merge sort of a singly linked list by val (then key) */
static int node_le(const struct node *a, const struct node *b) {
	return a->val < b->val || (a->val == b->val && a->key <= b->key);
}

static struct node *list_sort(struct node *list) {
	for (int insize = 1;; insize *= 2) {
		struct node *p = list, *tail = NULL;
		list = NULL;
		int merges = 0;
		while (p) {
			merges++;
			struct node *q = p;
			int psize = 0;
			for (int i = 0; i < insize && q; i++) {
				psize++;
				q = q->next;
			}
			int qsize = insize;
			while (psize > 0 || (qsize > 0 && q)) {
				struct node *e;
				if (psize == 0) {
					e = q, q = q->next, qsize--;
				} else if (qsize == 0 || !q || node_le(p, q)) {
					e = p, p = p->next, psize--;
				} else {
					e = q, q = q->next, qsize--;
				}
				if (tail)
					tail->next = e;
				else
					list = e;
				tail = e;
			}
			p = q;
		}
		tail->next = NULL;
		if (merges <= 1)
			return list;
	}
}

static uint16_t bench_list(uint32_t seed, uint16_t crc) {
	struct node *l = list_build(seed);
	for (int16_t k = 0; k < 64; k += 3) {
		struct node *n = list_find(l, k);
		crc = crc16_u32(n ? (uint32_t)(uint16_t)n->val : 0xffffu, crc);
	}
	l = list_reverse(l);
	l = list_sort(l);
	uint32_t acc = 0;
	for (struct node *n = l; n; n = n->next)
		acc = acc * 33 + (uint16_t)n->val;
	return crc16_u32(acc, crc);
}

/* ---- matrix ----------------------------------------------------------------- */
#define N 16

static uint16_t bench_matrix(uint32_t seed, uint16_t crc) {
	int16_t a[N][N], b[N][N];
	int32_t c[N][N];
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			seed = seed * 1664525u + 1013904223u;
			a[i][j] = (int16_t)(seed >> 24) - 128;
			b[i][j] = (int16_t)((seed >> 16) & 0xff) - 128;
		}
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			int32_t s = 0;
			for (int k = 0; k < N; k++)
				s += a[i][k] * b[k][j];
			c[i][j] = s;
		}
	/* add a constant, multiply by a constant, extract bits, as CoreMark does */
	uint32_t acc = 0;
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			int32_t v = (c[i][j] + 7) * 3;
			acc += (uint32_t)((v >> 2) & 0x7f) + (v > 0);
		}
	return crc16_u32(acc, crc);
}

/* ---- state machine ------------------------------------------------------------ */
enum state { START, INT, SIGNED, FRAC, EXP, SEXP, SCI, INVALID, NSTATES };

static enum state next_state(enum state s, char c) {
	int digit = c >= '0' && c <= '9';
	switch (s) {
	case START:
		if (digit)
			return INT;
		if (c == '+' || c == '-')
			return SIGNED;
		if (c == '.')
			return FRAC;
		return INVALID;
	case SIGNED:
		if (digit)
			return INT;
		return c == '.' ? FRAC : INVALID;
	case INT:
		if (digit)
			return INT;
		if (c == '.')
			return FRAC;
		return c == 'e' || c == 'E' ? EXP : INVALID;
	case FRAC:
		if (digit)
			return FRAC;
		return c == 'e' || c == 'E' ? EXP : INVALID;
	case EXP:
		if (c == '+' || c == '-')
			return SEXP;
		return digit ? SCI : INVALID;
	case SEXP:
	case SCI:
		return digit ? SCI : INVALID;
	default:
		return INVALID;
	}
}

static const char *const words[] = {
	"5012", "1234", "-874", "+122", "35.54400", ".1234500", "-110.700", "+0.64400",
	"5.500e+3", "-.123e-2", "-87e+832", "+0.6e-12", "T0.3e-1F", "-T.T++Tq", "1T3.4e4z", "34.0e-T^",
};

static uint16_t bench_state(uint32_t seed, uint16_t crc) {
	char buf[16 * 9 + 1];
	int pos = 0;
	for (int i = 0; i < 16; i++) {
		seed = seed * 22695477u + 1u;
		const char *w = words[(seed >> 16) & 15];
		for (int j = 0; w[j]; j++)
			buf[pos++] = w[j];
		buf[pos++] = ',';
	}
	buf[pos] = 0;
	uint32_t counts[NSTATES] = {0}, transitions = 0;
	for (int round = 0; round < 2; round++) {
		enum state s = START;
		for (const char *p = buf; *p; p++) {
			if (*p == ',') {
				counts[s]++;
				s = START;
				continue;
			}
			enum state n = next_state(s, *p);
			transitions += n != s;
			s = n;
		}
		/* corrupt every 7th byte for the second round, as CoreMark does */
		for (int i = 0; i < pos; i += 7)
			if (buf[i] != ',')
				buf[i] ^= (char)(seed & 0x3f) | 1;
	}
	for (int i = 0; i < NSTATES; i++)
		crc = crc16_u32(counts[i], crc);
	return crc16_u32(transitions, crc);
}

int main(int argc, char **argv) {
	long iterations = argc > 1 ? strtol(argv[1], NULL, 10) : 5000;
	if (iterations <= 0) {
		fputs("usage: bench [ITERATIONS]\n", stderr);
		return 2;
	}
	uint16_t crc = 0;
	for (long it = 0; it < iterations; it++) {
		uint32_t seed = (uint32_t)it * 2654435761u;
		for (int rep = 0; rep < 8; rep++) {
			crc = bench_list(seed + (uint32_t)rep, crc);
			crc = bench_matrix(seed ^ (uint32_t)rep, crc);
			crc = bench_state(seed + 77u * (uint32_t)rep, crc);
		}
	}
	printf("bench: %ld iterations, checksum 0x%04x\n", iterations, crc);
	return 0;
}
