/* fpwarn.c: reads the x87 status word 7 times (fnstsw), of whose flags the
   emulated CPU never sets DE and C1 on rounding up: icount's run warns that
   fnstsw ran 7 times (cmd/icount/sites_test.go). Exits with the flags
   seen, 0: nothing raised any. */
int main(void) {
	unsigned sum = 0;
	for (int i = 0; i < 7; i++) {
		unsigned short sw;
		__asm__ volatile("fnstsw %0" : "=m"(sw));
		sum += sw & 0x3f;
	}
	return sum != 0;
}
