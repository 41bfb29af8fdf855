// throw: a test program for icount's call tracking (built g++ -static).
// thrower recurses 20 deep and throws; catcher catches, 50 times. The call
// tree must stay consistent across the unwinding.
#include <cstdio>
#include <stdexcept>

static volatile unsigned sink;

__attribute__((noinline)) static void thrower(int n) {
	sink += n;
	if (n == 0)
		throw std::runtime_error("deep");
	thrower(n - 1);
	sink -= n;
}

__attribute__((noinline)) static unsigned catcher() {
	unsigned caught = 0;
	for (int i = 0; i < 50; i++) {
		try {
			thrower(20);
		} catch (const std::runtime_error &) {
			caught++;
		}
	}
	return caught;
}

int main() {
	std::printf("caught %u\n", catcher());
	return 0;
}
