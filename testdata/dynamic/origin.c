/*
 * origin: a dynamically linked test program for icount whose library,
 * libgreet.so, lies beside it in lib/ and is found through RUNPATH
 * $ORIGIN/lib: ld.so reads /proc/self/exe to resolve $ORIGIN, so icount's
 * fixed /icount/exe/NAME must lead back to the binary's directory.
 */
int greet(const char *who);

int main(void) { return greet("origin") > 0 ? 0 : 1; }
