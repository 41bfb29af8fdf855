/* intfix.c: the integer instructions whose results Unicorn computes
   differently from the hardware, over many inputs: cmpxchg r/m32, r32
   (RAX and a register destination, equal and not) and, unfixed, its byte
   form, bsf and bsr of 32 bits
   (a zero source leaves the destination), and lock neg of every size (the
   flags). Prints every result and the arithmetic flags: the output must be
   the same natively and under icount. */
#include <stdint.h>
#include <stdio.h>

#define FLAGS 0x8d5 /* OF SF ZF AF PF CF */

static uint64_t seed = 0x9e3779b97f4a7c15;
static uint64_t next(void) {
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

static const uint64_t edges[] = {
	0, 1, 2, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x7fffffff, 0x80000000, 0xffffffff,
	0x100000000, 0xffffffff00000000, 0x8000000000000000, 0x7fffffffffffffff, UINT64_MAX,
	0xdeadbeef00000000, 0x123456789abcdef0, 0xfedcba9876543210,
};
#define NEDGES (sizeof edges / sizeof edges[0])

static uint64_t input(int i) { return i < (int)NEDGES ? edges[i] : next(); }

static void cmpxchg_reg(uint64_t rax, uint64_t dst, uint64_t src) {
	uint64_t flags;
	__asm__ volatile("cmpxchg %k[src], %k[dst]\n\tpushfq\n\tpop %[fl]"
	                 : "+a"(rax), [dst] "+r"(dst), [fl] "=r"(flags)
	                 : [src] "r"(src)
	                 : "cc");
	printf("cmpxchg reg: rax %016llx dst %016llx flags %03llx\n", (unsigned long long)rax,
	       (unsigned long long)dst, (unsigned long long)(flags & FLAGS));
}

static void cmpxchg_mem(uint64_t rax, uint32_t mem, uint64_t src) {
	uint64_t flags;
	__asm__ volatile("lock cmpxchg %k[src], %[mem]\n\tpushfq\n\tpop %[fl]"
	                 : "+a"(rax), [mem] "+m"(mem), [fl] "=r"(flags)
	                 : [src] "r"(src)
	                 : "cc");
	printf("cmpxchg mem: rax %016llx mem %08x flags %03llx\n", (unsigned long long)rax, mem,
	       (unsigned long long)(flags & FLAGS));
}

/* cmpxchg %cl,%al: the byte form, whose destination AL always equals
   AL, so AL gets CL. No fix applies: the byte form writes AL alone. */
static void cmpxchg_byte(uint64_t rax, uint64_t src) {
	uint64_t flags;
	__asm__ volatile("cmpxchg %%cl, %%al\n\tpushfq\n\tpop %[fl]" : "+a"(rax), [fl] "=r"(flags) : "c"(src) : "cc");
	printf("cmpxchg byte: rax %016llx flags %03llx\n", (unsigned long long)rax, (unsigned long long)(flags & FLAGS));
}

static void bitscan(uint64_t dst, uint64_t src) {
	uint64_t f, r = dst, rm = dst;
	uint32_t m = (uint32_t)src;
	__asm__ volatile("bsf %k[src], %k[r]\n\tpushfq\n\tpop %[f]" : [r] "+r"(r), [f] "=r"(f) : [src] "r"(src) : "cc");
	printf("bsf: %016llx zf %d\n", (unsigned long long)r, (int)(f >> 6 & 1));
	r = dst;
	__asm__ volatile("bsr %k[src], %k[r]\n\tpushfq\n\tpop %[f]" : [r] "+r"(r), [f] "=r"(f) : [src] "r"(src) : "cc");
	printf("bsr: %016llx zf %d\n", (unsigned long long)r, (int)(f >> 6 & 1));
	__asm__ volatile("bsfl %[m], %k[r]" : [r] "+r"(rm) : [m] "m"(m) : "cc");
	printf("bsf mem: %016llx\n", (unsigned long long)rm);
	/* The destination is also the source. */
	r = dst ^ src << 32;
	__asm__ volatile("bsr %k[r], %k[r]" : [r] "+r"(r) : : "cc");
	printf("bsr self: %016llx\n", (unsigned long long)r);
}

static void lockneg(uint64_t v) {
	uint64_t f;
	uint8_t b = v;
	uint16_t w = v;
	uint32_t d = v;
	uint64_t q = v;
	__asm__ volatile("lock negb %[m]\n\tpushfq\n\tpop %[f]" : [m] "+m"(b), [f] "=r"(f) : : "cc");
	printf("lock negb: %02x flags %03llx\n", b, (unsigned long long)(f & FLAGS));
	__asm__ volatile("lock negw %[m]\n\tpushfq\n\tpop %[f]" : [m] "+m"(w), [f] "=r"(f) : : "cc");
	printf("lock negw: %04x flags %03llx\n", w, (unsigned long long)(f & FLAGS));
	__asm__ volatile("lock negl %[m]\n\tpushfq\n\tpop %[f]" : [m] "+m"(d), [f] "=r"(f) : : "cc");
	printf("lock negl: %08x flags %03llx\n", d, (unsigned long long)(f & FLAGS));
	__asm__ volatile("lock negq %[m]\n\tpushfq\n\tpop %[f]" : [m] "+m"(q), [f] "=r"(f) : : "cc");
	printf("lock negq: %016llx flags %03llx\n", (unsigned long long)q, (unsigned long long)(f & FLAGS));
	/* A flag read by a branch right after it, in the same block. */
	int s;
	d = v;
	__asm__ volatile("lock negl %[m]\n\tsets %b[s]\n\tmovzbl %b[s], %[s]" : [m] "+m"(d), [s] "=r"(s) : : "cc");
	printf("lock negl sets: %d\n", s);
}

/* Two sites in a row: the repair of bsf (its destination RAX) is due at
   cmpxchg, which reads RAX; and a jump to the instruction after a bsf
   that did not run. */
static void adjacent(uint64_t rax, uint64_t src, uint64_t dst) {
	uint64_t flags, r = dst;
	__asm__ volatile("bsf %k[src], %k[rax]\n\tcmpxchg %k[src], %k[r]\n\tpushfq\n\tpop %[fl]"
	                 : [rax] "+a"(rax), [r] "+r"(r), [fl] "=r"(flags)
	                 : [src] "r"(src)
	                 : "cc");
	printf("bsf, cmpxchg: rax %016llx r %016llx flags %03llx\n", (unsigned long long)rax, (unsigned long long)r,
	       (unsigned long long)(flags & FLAGS));
	r = dst;
	__asm__ volatile("test %k[src], %k[src]\n\tjz 1f\n\tbsf %k[src], %k[r]\n1:\tmov %k[r], %k[r]"
	                 : [r] "+r"(r)
	                 : [src] "r"(src)
	                 : "cc");
	printf("jump past bsf: %016llx\n", (unsigned long long)r);
}

int main(void) {
	int n = 0;
	for (int i = 0; i < 300; i++) {
		uint64_t a = input(i), b = input((i * 7 + 3) % 300), c = next();
		cmpxchg_reg(a, b, c);
		cmpxchg_reg(a, (b & ~0xffffffffull) | (a & 0xffffffff), c); /* equal */
		cmpxchg_mem(a, (uint32_t)b, c);
		cmpxchg_mem(a, (uint32_t)a, c); /* equal */
		cmpxchg_byte(a, c);
		bitscan(a, b);
		bitscan(a, b & ~0xffffffffull); /* a zero source */
		lockneg(a);
		adjacent(a, b, c);
		adjacent(a, b & ~0xffffffffull, c);
		n++;
	}
	printf("%d inputs\n", n);
	return 0;
}
