// Package bench holds Go benchmarks that icount's tests run under icount
// from a test binary (go test -c): sorting and hashing, deterministic
// work that allocates nothing inside the timed loop.
package bench

import (
	"hash/fnv"
	"sort"
)

// data is the input every sort starts from: a fixed pseudo-random
// permutation, the same on every run.
var data = func() []int {
	d := make([]int, 2000)
	x := uint32(2463534242)
	for i := range d {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		d[i] = int(x % 100000)
	}
	return d
}()

// SortCopy copies data into work and sorts it; it returns the median.
func SortCopy(work []int) int {
	copy(work, data)
	sort.Ints(work)
	return work[len(work)/2]
}

// text is the input of the hash: 4 KiB of fixed bytes.
var text = func() []byte {
	b := make([]byte, 4096)
	for i := range b {
		b[i] = byte(i*7 + i>>8)
	}
	return b
}()

// Hash returns the 64-bit FNV-1a hash of text.
func Hash() uint64 {
	h := fnv.New64a()
	h.Write(text)
	return h.Sum64()
}

// Fib returns the n-th Fibonacci number, computed by the doubly recursive
// definition: calls and returns, no memory.
func Fib(n int) int {
	if n < 2 {
		return n
	}
	return Fib(n-1) + Fib(n-2)
}
