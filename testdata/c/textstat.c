/*
 * textstat: a test program for icount (built musl-static and glibc-static).
 *
 *   textstat [IN OUT] < TEXT
 *
 * Reads TEXT from stdin: counts bytes, lines and words, keeps a hash table of
 * lower-cased words, sorts them by frequency and prints the most frequent,
 * with a CRC-32 of the input. With IN and OUT, reads the file IN, writes OUT
 * with every line reversed and numbered, and prints both files' CRC-32s.
 *
 * Deterministic: no clock, no randomness, does not print argv[0]; output is
 * a few KB at most whatever the input.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t crc_table[256];

static void crc_init(void) {
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
}

static uint32_t crc32(const unsigned char *p, size_t n) {
	uint32_t c = 0xFFFFFFFFu;
	while (n--)
		c = crc_table[(c ^ *p++) & 0xFF] ^ (c >> 8);
	return c ^ 0xFFFFFFFFu;
}

static unsigned char *slurp(FILE *f, size_t *len) {
	size_t cap = 4096, n = 0;
	unsigned char *buf = malloc(cap);
	if (!buf)
		return NULL;
	for (;;) {
		if (n == cap) {
			cap *= 2;
			unsigned char *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				return NULL;
			}
			buf = nb;
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		if (got == 0)
			break;
		n += got;
	}
	*len = n;
	return buf;
}

struct word {
	char *text;
	uint32_t hash;
	unsigned count;
};

static struct word *table;
static size_t table_cap, table_len;

static uint32_t fnv1a(const char *s, size_t n) {
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return h;
}

static void table_grow(void) {
	size_t ncap = table_cap ? table_cap * 2 : 1024;
	struct word *nt = calloc(ncap, sizeof *nt);
	if (!nt) {
		fputs("textstat: out of memory\n", stderr);
		exit(2);
	}
	for (size_t i = 0; i < table_cap; i++) {
		if (!table[i].text)
			continue;
		size_t j = table[i].hash & (ncap - 1);
		while (nt[j].text)
			j = (j + 1) & (ncap - 1);
		nt[j] = table[i];
	}
	free(table);
	table = nt;
	table_cap = ncap;
}

static void add_word(const char *s, size_t n) {
	if (table_len * 2 >= table_cap)
		table_grow();
	uint32_t h = fnv1a(s, n);
	size_t j = h & (table_cap - 1);
	while (table[j].text) {
		if (table[j].hash == h && strlen(table[j].text) == n &&
		    memcmp(table[j].text, s, n) == 0) {
			table[j].count++;
			return;
		}
		j = (j + 1) & (table_cap - 1);
	}
	char *t = malloc(n + 1);
	if (!t) {
		fputs("textstat: out of memory\n", stderr);
		exit(2);
	}
	memcpy(t, s, n);
	t[n] = 0;
	table[j].text = t;
	table[j].hash = h;
	table[j].count = 1;
	table_len++;
}

/* more frequent first, then alphabetical */
static int before(const struct word *x, const struct word *y) {
	if (x->count != y->count)
		return x->count > y->count;
	return strcmp(x->text, y->text) < 0;
}

/*
 * A merge sort of our own rather than qsort: glibc's qsort asks the kernel
 * for the machine's memory size (sysinfo) to choose its algorithm, which
 * would make the instructions run depend on the host.
 */
static void sort_words(struct word *a, struct word *tmp, size_t n) {
	if (n < 2)
		return;
	size_t h = n / 2, i = 0, j = h, k = 0;
	sort_words(a, tmp, h);
	sort_words(a + h, tmp, n - h);
	while (i < h && j < n)
		tmp[k++] = before(&a[j], &a[i]) ? a[j++] : a[i++];
	while (i < h)
		tmp[k++] = a[i++];
	while (j < n)
		tmp[k++] = a[j++];
	memcpy(a, tmp, n * sizeof *a);
}

static void stats(const unsigned char *p, size_t n) {
	size_t lines = 0, words = 0, letters = 0, digits = 0;
	char w[64];
	size_t wl = 0;
	for (size_t i = 0; i <= n; i++) {
		int c = i < n ? p[i] : ' ';
		if (c == '\n')
			lines++;
		if (isdigit(c))
			digits++;
		if (isalpha(c)) {
			letters++;
			if (wl < sizeof w)
				w[wl++] = (char)tolower(c);
		} else if (wl) {
			add_word(w, wl);
			words++;
			wl = 0;
		}
	}
	printf("stdin: %zu bytes, %zu lines, %zu words, %zu letters, %zu digits, crc32 %08x\n",
	       n, lines, words, letters, digits, crc32(p, n));

	struct word *list = malloc((table_len ? table_len : 1) * sizeof *list);
	struct word *tmp = malloc((table_len ? table_len : 1) * sizeof *tmp);
	if (!list || !tmp) {
		fputs("textstat: out of memory\n", stderr);
		exit(2);
	}
	size_t k = 0;
	for (size_t i = 0; i < table_cap; i++)
		if (table[i].text)
			list[k++] = table[i];
	sort_words(list, tmp, k);
	free(tmp);
	printf("distinct words: %zu\n", k);
	size_t top = k < 25 ? k : 25;
	for (size_t i = 0; i < top; i++)
		printf("%6u  %.40s\n", list[i].count, list[i].text);

	/* letter frequencies over the distinct words, a second pass of work */
	unsigned long freq[26] = {0};
	for (size_t i = 0; i < k; i++)
		for (const char *s = list[i].text; *s; s++)
			freq[*s - 'a'] += list[i].count;
	fputs("letters:", stdout);
	for (int i = 0; i < 26; i++)
		printf(" %c=%lu", 'a' + i, freq[i]);
	putchar('\n');
	free(list);
}

static int transform(const char *in, const char *out) {
	FILE *f = fopen(in, "rb");
	if (!f) {
		perror(in);
		return 1;
	}
	size_t n;
	unsigned char *p = slurp(f, &n);
	fclose(f);
	if (!p) {
		fputs("textstat: out of memory\n", stderr);
		return 1;
	}
	FILE *o = fopen(out, "wb");
	if (!o) {
		perror(out);
		free(p);
		return 1;
	}
	size_t line = 0, start = 0, written = 0;
	uint32_t ocrc = 0xFFFFFFFFu;
	char head[32];
	for (size_t i = 0; i <= n; i++) {
		if (i < n && p[i] != '\n')
			continue;
		if (i == n && start == n)
			break;
		line++;
		int hl = snprintf(head, sizeof head, "%5zu ", line);
		fwrite(head, 1, (size_t)hl, o);
		for (int j = 0; j < hl; j++)
			ocrc = crc_table[(ocrc ^ (unsigned char)head[j]) & 0xFF] ^ (ocrc >> 8);
		for (size_t j = i; j > start; j--) {
			unsigned char c = p[j - 1];
			putc(c, o);
			ocrc = crc_table[(ocrc ^ c) & 0xFF] ^ (ocrc >> 8);
		}
		putc('\n', o);
		ocrc = crc_table[(ocrc ^ '\n') & 0xFF] ^ (ocrc >> 8);
		written += (size_t)hl + (i - start) + 1;
		start = i + 1;
	}
	if (fclose(o) != 0) {
		perror(out);
		free(p);
		return 1;
	}
	printf("file in: %zu bytes, %zu lines, crc32 %08x\n", n, line, crc32(p, n));
	printf("file out: %zu bytes, crc32 %08x\n", written, ocrc ^ 0xFFFFFFFFu);
	free(p);
	return 0;
}

int main(int argc, char **argv) {
	crc_init();
	size_t n;
	unsigned char *p = slurp(stdin, &n);
	if (!p) {
		fputs("textstat: out of memory\n", stderr);
		return 2;
	}
	stats(p, n);
	free(p);
	int rc = 0;
	if (argc >= 3)
		rc = transform(argv[1], argv[2]);
	else
		puts("no files given");
	return rc;
}
