// unwind: C++ exceptions leaving frames, in a loop, for icount's
// calling-context tree (cmd/icount/unwind_test.go); the C++ twin of
// testdata/c/unwind.c.
//
//   unwind MODE
//
// Each of 200 rounds, all in one frame of rounds(), calls work(i) and then
// goes dive(16) deep, where it leaves the dive by MODE: return (the same work with no unusual exit) or
// throw (an exception the round catches). At the end it prints a checksum.
#include <cstdio>
#include <cstring>
#include <stdexcept>

static const int nrounds = 200, depth = 16;
static volatile unsigned sink;
static bool throwing;

__attribute__((noinline)) static void work(int i) {
	for (int j = 0; j < 20; j++)
		sink += static_cast<unsigned>(i * j) ^ sink >> 3;
}

__attribute__((noinline)) static void leave() {
	if (throwing)
		throw std::runtime_error("out");
}

__attribute__((noinline)) static void dive(int n) {
	sink += static_cast<unsigned>(n);
	if (n == 0)
		leave();
	else
		dive(n - 1);
	sink -= static_cast<unsigned>(n); // keeps dive from being a tail call
}

// rounds runs every round in one frame, which the exceptions unwind to
// each time: frames they left would pile up under it.
__attribute__((noinline)) static void rounds() {
	for (int i = 0; i < nrounds; i++) {
		work(i);
		try {
			dive(depth);
		} catch (const std::runtime_error &) {
			sink += 1;
		}
	}
}

int main(int argc, char **argv) {
	if (argc != 2 || (std::strcmp(argv[1], "return") && std::strcmp(argv[1], "throw")))
		return 2;
	throwing = !std::strcmp(argv[1], "throw");
	rounds();
	std::printf("%s %u\n", argv[1], sink);
	return 0;
}
