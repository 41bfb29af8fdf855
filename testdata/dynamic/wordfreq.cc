// wordfreq: a dynamically linked C++ test program for icount (g++, no
// -static): libstdc++'s std::map, std::sort and iostreams, over words it
// makes itself from a fixed pseudo-random sequence (no input, no clock).
//
//   wordfreq [N]     N words (default 20000)
//
// Prints the number of distinct words and the 10 most frequent, with their
// counts; deterministic.
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>
#include <utility>
#include <vector>

static const char *const syllables[] = {"ka", "lo", "mi", "ne", "su", "ta", "ri", "po", "ve", "zu", "an", "or"};

int main(int argc, char **argv) {
	long n = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 20000;
	unsigned long x = 12345;
	std::map<std::string, int> freq;
	for (long i = 0; i < n; i++) {
		std::string w;
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		int parts = 1 + (x >> 60) % 3;
		for (int p = 0; p < parts; p++) {
			x = x * 6364136223846793005UL + 1442695040888963407UL;
			w += syllables[(x >> 59) % 12 % (4 + 4 * p)];
		}
		freq[w]++;
	}
	std::vector<std::pair<std::string, int>> byCount(freq.begin(), freq.end());
	std::sort(byCount.begin(), byCount.end(), [](const auto &a, const auto &b) {
		return a.second != b.second ? a.second > b.second : a.first < b.first;
	});
	std::cout << freq.size() << " distinct words in " << n << "\n";
	for (size_t i = 0; i < byCount.size() && i < 10; i++)
		std::cout << byCount[i].first << " " << byCount[i].second << "\n";
	return 0;
}
