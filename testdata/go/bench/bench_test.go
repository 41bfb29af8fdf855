package bench

import "testing"

var sink int

// BenchmarkSort sorts 2,000 integers each iteration. Every iteration does
// the same work: icount's tests check that --collect on this function
// counts 100 iterations more when -test.benchtime goes from 100x to 200x.
func BenchmarkSort(b *testing.B) {
	work := make([]int, len(data))
	for i := 0; i < b.N; i++ {
		sink += SortCopy(work)
	}
}

// BenchmarkHash hashes 4 KiB each iteration.
func BenchmarkHash(b *testing.B) {
	b.SetBytes(int64(len(text)))
	for i := 0; i < b.N; i++ {
		sink += int(Hash() & 1)
	}
}

// BenchmarkFib computes Fib(15) each iteration.
func BenchmarkFib(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink += Fib(15)
	}
}

func TestSortCopy(t *testing.T) {
	work := make([]int, len(data))
	m := SortCopy(work)
	for i := 1; i < len(work); i++ {
		if work[i-1] > work[i] {
			t.Fatalf("not sorted at %d", i)
		}
	}
	if m != work[len(work)/2] {
		t.Fatal("median")
	}
}
