/*
 * compile.c: the compiler workload of `make bench` (scripts/bench.sh), the
 * input of gcc's cc1 run directly:
 *
 *   cc1 -quiet -O2 compile.c -o /dev/null
 *
 * Self-contained (no #include: cc1 run without the gcc driver lacks the
 * multiarch include directory) and never run, only compiled: a tokenizer,
 * a recursive-descent parser and a stack machine for arithmetic, a hash
 * table, sorting, fixed-point matrix work and string routines, enough
 * varied code (loops, switches, inlining, structs) to keep the optimiser
 * busy.
 */

typedef unsigned long size_t;
typedef unsigned int u32;
typedef unsigned long long u64;

/* ---- memory and strings ----------------------------------------------- */

static char heap[1 << 16];
static size_t heap_used;

static void *arena_alloc(size_t n) {
	n = (n + 15) & ~(size_t)15;
	if (heap_used + n > sizeof heap)
		return 0;
	void *p = heap + heap_used;
	heap_used += n;
	return p;
}

static size_t str_len(const char *s) {
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

static int str_cmp(const char *a, const char *b) {
	while (*a && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}

static char *str_dup(const char *s) {
	size_t n = str_len(s);
	char *d = arena_alloc(n + 1);
	if (!d)
		return 0;
	for (size_t i = 0; i <= n; i++)
		d[i] = s[i];
	return d;
}

static void mem_set(void *p, int c, size_t n) {
	unsigned char *b = p;
	while (n--)
		*b++ = (unsigned char)c;
}

static int fmt_u64(char *out, u64 v) {
	char tmp[24];
	int n = 0, i = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		out[i++] = tmp[--n];
	out[i] = 0;
	return i;
}

/* ---- hashing and a hash table ------------------------------------------- */

static u32 fnv1a(const char *s) {
	u32 h = 2166136261u;
	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 16777619u;
	}
	return h;
}

struct entry {
	char *key;
	long value;
	struct entry *next;
};

struct table {
	struct entry **slots;
	size_t nslots, count;
};

static int table_init(struct table *t, size_t nslots) {
	t->slots = arena_alloc(nslots * sizeof *t->slots);
	if (!t->slots)
		return -1;
	mem_set(t->slots, 0, nslots * sizeof *t->slots);
	t->nslots = nslots;
	t->count = 0;
	return 0;
}

static struct entry *table_find(struct table *t, const char *key) {
	for (struct entry *e = t->slots[fnv1a(key) % t->nslots]; e; e = e->next)
		if (str_cmp(e->key, key) == 0)
			return e;
	return 0;
}

static int table_put(struct table *t, const char *key, long value) {
	struct entry *e = table_find(t, key);
	if (e) {
		e->value = value;
		return 0;
	}
	e = arena_alloc(sizeof *e);
	if (!e || !(e->key = str_dup(key)))
		return -1;
	size_t slot = fnv1a(key) % t->nslots;
	e->value = value;
	e->next = t->slots[slot];
	t->slots[slot] = e;
	t->count++;
	return 0;
}

/* ---- tokenizer ------------------------------------------------------------ */

enum tok { T_END, T_NUM, T_NAME, T_PLUS, T_MINUS, T_STAR, T_SLASH, T_PCT, T_LP, T_RP, T_ASSIGN, T_SEMI, T_BAD };

struct lexer {
	const char *p;
	enum tok kind;
	long num;
	char name[32];
};

static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int is_alpha(int c) { return (c | 32) >= 'a' && (c | 32) <= 'z'; }
static int is_space(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static void next(struct lexer *lx) {
	while (is_space(*lx->p))
		lx->p++;
	char c = *lx->p;
	if (!c) {
		lx->kind = T_END;
		return;
	}
	if (is_digit(c)) {
		long v = 0;
		while (is_digit(*lx->p))
			v = v * 10 + (*lx->p++ - '0');
		lx->num = v;
		lx->kind = T_NUM;
		return;
	}
	if (is_alpha(c)) {
		int n = 0;
		while ((is_alpha(*lx->p) || is_digit(*lx->p)) && n < 31)
			lx->name[n++] = *lx->p++;
		lx->name[n] = 0;
		lx->kind = T_NAME;
		return;
	}
	lx->p++;
	switch (c) {
	case '+': lx->kind = T_PLUS; break;
	case '-': lx->kind = T_MINUS; break;
	case '*': lx->kind = T_STAR; break;
	case '/': lx->kind = T_SLASH; break;
	case '%': lx->kind = T_PCT; break;
	case '(': lx->kind = T_LP; break;
	case ')': lx->kind = T_RP; break;
	case '=': lx->kind = T_ASSIGN; break;
	case ';': lx->kind = T_SEMI; break;
	default: lx->kind = T_BAD; break;
	}
}

/* ---- parser to stack-machine code ---------------------------------------- */

enum op { OP_PUSH, OP_LOAD, OP_STORE, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD, OP_NEG, OP_POP };

struct insn {
	enum op op;
	long arg;
	const char *name;
};

struct program {
	struct insn code[512];
	int n, error;
};

static void emit(struct program *pr, enum op op, long arg, const char *name) {
	if (pr->n >= (int)(sizeof pr->code / sizeof pr->code[0])) {
		pr->error = 1;
		return;
	}
	pr->code[pr->n].op = op;
	pr->code[pr->n].arg = arg;
	pr->code[pr->n].name = name;
	pr->n++;
}

static void expr(struct lexer *lx, struct program *pr);

static void primary(struct lexer *lx, struct program *pr) {
	switch (lx->kind) {
	case T_NUM:
		emit(pr, OP_PUSH, lx->num, 0);
		next(lx);
		break;
	case T_NAME:
		emit(pr, OP_LOAD, 0, str_dup(lx->name));
		next(lx);
		break;
	case T_MINUS:
		next(lx);
		primary(lx, pr);
		emit(pr, OP_NEG, 0, 0);
		break;
	case T_LP:
		next(lx);
		expr(lx, pr);
		if (lx->kind != T_RP)
			pr->error = 1;
		next(lx);
		break;
	default:
		pr->error = 1;
		next(lx);
	}
}

static void term(struct lexer *lx, struct program *pr) {
	primary(lx, pr);
	for (;;) {
		enum tok k = lx->kind;
		if (k != T_STAR && k != T_SLASH && k != T_PCT)
			return;
		next(lx);
		primary(lx, pr);
		emit(pr, k == T_STAR ? OP_MUL : k == T_SLASH ? OP_DIV : OP_MOD, 0, 0);
	}
}

static void expr(struct lexer *lx, struct program *pr) {
	term(lx, pr);
	while (lx->kind == T_PLUS || lx->kind == T_MINUS) {
		enum tok k = lx->kind;
		next(lx);
		term(lx, pr);
		emit(pr, k == T_PLUS ? OP_ADD : OP_SUB, 0, 0);
	}
}

static void statement(struct lexer *lx, struct program *pr) {
	if (lx->kind == T_NAME) {
		struct lexer save = *lx;
		next(lx);
		if (lx->kind == T_ASSIGN) {
			const char *target = str_dup(save.name);
			next(lx);
			expr(lx, pr);
			emit(pr, OP_STORE, 0, target);
			return;
		}
		*lx = save;
	}
	expr(lx, pr);
	emit(pr, OP_POP, 0, 0);
}

static int compile(const char *src, struct program *pr) {
	struct lexer lx = {src, T_END, 0, {0}};
	pr->n = pr->error = 0;
	next(&lx);
	while (lx.kind != T_END && !pr->error) {
		statement(&lx, pr);
		if (lx.kind == T_SEMI)
			next(&lx);
		else if (lx.kind != T_END)
			pr->error = 1;
	}
	return pr->error ? -1 : 0;
}

static long execute(const struct program *pr, struct table *vars, long *last) {
	long stack[64];
	int sp = 0;
	for (int pc = 0; pc < pr->n; pc++) {
		const struct insn *in = &pr->code[pc];
		long a, b;
		struct entry *e;
		switch (in->op) {
		case OP_PUSH:
			stack[sp++] = in->arg;
			break;
		case OP_LOAD:
			e = table_find(vars, in->name);
			stack[sp++] = e ? e->value : 0;
			break;
		case OP_STORE:
			table_put(vars, in->name, stack[--sp]);
			break;
		case OP_NEG:
			stack[sp - 1] = -stack[sp - 1];
			break;
		case OP_POP:
			*last = stack[--sp];
			break;
		default:
			b = stack[--sp];
			a = stack[--sp];
			switch (in->op) {
			case OP_ADD: a += b; break;
			case OP_SUB: a -= b; break;
			case OP_MUL: a *= b; break;
			case OP_DIV: a = b ? a / b : 0; break;
			case OP_MOD: a = b ? a % b : 0; break;
			default: return -1;
			}
			stack[sp++] = a;
		}
		if (sp >= 64)
			return -1;
	}
	return 0;
}

/* ---- sorting --------------------------------------------------------------- */

static void insertion_sort(long *v, int n) {
	for (int i = 1; i < n; i++) {
		long x = v[i];
		int j = i - 1;
		while (j >= 0 && v[j] > x) {
			v[j + 1] = v[j];
			j--;
		}
		v[j + 1] = x;
	}
}

static void quick_sort(long *v, int n) {
	while (n > 16) {
		long pivot = v[n / 2];
		int i = 0, j = n - 1;
		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				long t = v[i];
				v[i++] = v[j];
				v[j--] = t;
			}
		}
		if (j + 1 < n - i) {
			quick_sort(v, j + 1);
			v += i;
			n -= i;
		} else {
			quick_sort(v + i, n - i);
			n = j + 1;
		}
	}
	insertion_sort(v, n);
}

/* ---- fixed-point matrices --------------------------------------------------- */

#define DIM 12
typedef int fixed; /* 16.16 */

struct matrix {
	fixed m[DIM][DIM];
};

static fixed fx_mul(fixed a, fixed b) { return (fixed)(((long long)a * b) >> 16); }

static void mat_mul(struct matrix *out, const struct matrix *a, const struct matrix *b) {
	for (int i = 0; i < DIM; i++)
		for (int j = 0; j < DIM; j++) {
			fixed s = 0;
			for (int k = 0; k < DIM; k++)
				s += fx_mul(a->m[i][k], b->m[k][j]);
			out->m[i][j] = s;
		}
}

static void mat_identity(struct matrix *m, fixed scale) {
	for (int i = 0; i < DIM; i++)
		for (int j = 0; j < DIM; j++)
			m->m[i][j] = i == j ? scale : (fixed)((i * 31 + j * 17) % 7) << 12;
}

static fixed mat_trace(const struct matrix *m) {
	fixed t = 0;
	for (int i = 0; i < DIM; i++)
		t += m->m[i][i];
	return t;
}

/* ---- the program ---------------------------------------------------------- */

static const char *const sources[] = {
	"a = 6 * 7; b = a - 2; c = (a + b) * (a - b) % 1000; c",
	"x = 1; y = x * 2 + 3; z = y * y - x * 4; z / (y - 3)",
	"n = 100; s = n * (n + 1) / 2; s % 97 - -3",
	"p = (1 + 2) * (3 + 4) * (5 + 6); q = p % 13; p - q * 13",
};

int main(void) {
	struct table vars;
	static struct program pr;
	static long values[4096];
	char buf[32];
	u64 check = 0;

	if (table_init(&vars, 257))
		return 1;
	for (unsigned i = 0; i < sizeof sources / sizeof sources[0]; i++) {
		long last = 0;
		if (compile(sources[i], &pr) || execute(&pr, &vars, &last))
			return 2;
		check = check * 1000003u + (u64)last;
	}
	u64 x = check | 1;
	for (int i = 0; i < 4096; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		values[i] = (long)(x % 1000000);
	}
	quick_sort(values, 4096);
	for (int i = 1; i < 4096; i++)
		if (values[i - 1] > values[i])
			return 3;
	struct matrix a, b, c;
	mat_identity(&a, 1 << 16);
	mat_identity(&b, 2 << 16);
	for (int r = 0; r < 8; r++) {
		mat_mul(&c, &a, &b);
		a = c;
	}
	check += (u64)mat_trace(&a) + (u64)values[2048] + vars.count;
	fmt_u64(buf, check);
	return (int)(fnv1a(buf) & 0x7f);
}
