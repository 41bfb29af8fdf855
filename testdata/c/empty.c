/*
 * empty: the smallest C program, for timing icount's start-up and libc's
 * (`make bench` runs it). It does nothing but return 0.
 */
int main(void) {
	return 0;
}
