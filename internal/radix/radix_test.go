package radix

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

type item struct {
	key  uint64
	tie  int32
	name string
}

func compare(a, b item) int {
	return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.tie, b.tie), cmp.Compare(a.name, b.name))
}

// TestSortFunc checks SortFunc against slices.SortFunc of the same total
// order, on lists whose keys take from 0 to 64 bits (an odd and an even
// number of passes, none), many keys shared, ties broken by cmp.
func TestSortFunc(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	names := []string{"a", "b", "ab", "main", "_start"}
	for _, bits := range []uint{0, 1, 11, 12, 22, 23, 33, 48, 63, 64} {
		for _, n := range []int{0, 1, 2, 50, 5000} {
			var list []item
			for range n {
				k := rng.Uint64()
				if bits < 64 {
					k &= 1<<bits - 1
				}
				if rng.IntN(3) == 0 && len(list) > 0 {
					k = list[rng.IntN(len(list))].key // a key shared
				}
				list = append(list, item{k, rng.Int32N(3), names[rng.IntN(len(names))]})
			}
			want := slices.Clone(list)
			slices.SortFunc(want, compare)
			SortFunc(list, func(it *item) uint64 { return it.key }, compare)
			if !slices.Equal(list, want) {
				t.Fatalf("%d bits, %d items: %v, want %v", bits, n, list[:min(n, 8)], want[:min(n, 8)])
			}
		}
	}
}
