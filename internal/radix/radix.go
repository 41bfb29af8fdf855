// Package radix sorts by an unsigned integer key, a pass over each 11-bit
// digit of it up to the highest bit any key has: time linear in the
// number of items where a comparison sort's grows as n log n, which
// counts for the tens of thousands of symbols of a big program and of
// blocks of a long run.
package radix

import "slices"

// digitBits is the width of a pass's digit: 2,048 counters.
const digitBits = 11

// SortFunc sorts list by key, then each run of items of equal key by cmp;
// with a total order in cmp that tells items of equal key apart, the
// result is what slices.SortFunc with key, then cmp, gives.
func SortFunc[T any](list []T, key func(*T) uint64, cmp func(a, b T) int) {
	var bits uint64
	for i := range list {
		bits |= key(&list[i])
	}
	from, to := list, make([]T, len(list))
	for shift := uint(0); shift < 64 && bits>>shift != 0; shift += digitBits {
		var count [1<<digitBits + 1]int
		for i := range from {
			count[(key(&from[i])>>shift)&(1<<digitBits-1)+1]++
		}
		for d := 1; d < len(count); d++ {
			count[d] += count[d-1]
		}
		for i := range from {
			d := (key(&from[i]) >> shift) & (1<<digitBits - 1)
			to[count[d]] = from[i]
			count[d]++
		}
		from, to = to, from
	}
	if len(from) > 0 && &from[0] != &list[0] {
		copy(list, from)
	}
	for i := 0; i < len(list); {
		j := i + 1
		for k := key(&list[i]); j < len(list) && key(&list[j]) == k; j++ {
		}
		if j-i > 1 {
			slices.SortFunc(list[i:j], cmp)
		}
		i = j
	}
}
