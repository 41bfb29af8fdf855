package count

import (
	"reflect"
	"testing"

	"github.com/icount-dev/icount/profile"
)

// TestCuts checks where cut executions are taken from: the decoder's record,
// and what the C table counted beyond it as few executions as can lose that
// many, each to the block's end; only that when the record has more.
func TestCuts(t *testing.T) {
	dec := &decodedBlock{cuts: map[int]uint64{3: 2, 1: 1}} // 2 x 2 + 1 x 4 = 8
	for _, c := range []struct {
		cut  uint64
		want []profile.Cut
	}{
		{8, []profile.Cut{{Index: 1, Executions: 1}, {Index: 3, Executions: 2}}},
		{0, nil},
		{3, []profile.Cut{{Index: 2, Executions: 1}}},                                                                                   // outside a --collect region: one execution lost its last 3
		{10, []profile.Cut{{Index: 1, Executions: 1}, {Index: 3, Executions: 3}}},                                                       // and one cut the decoder did not see: the last 2
		{19, []profile.Cut{{Index: 0, Executions: 2}, {Index: 1, Executions: 1}, {Index: 3, Executions: 2}, {Index: 4, Executions: 1}}}, // and two whole executions and the last 1 of another
		{20, []profile.Cut{{Index: 0, Executions: 2}, {Index: 1, Executions: 1}, {Index: 3, Executions: 3}}},
	} {
		var got []profile.Cut
		if c.cut > 0 {
			got = cutsOf(dec, 5, c.cut)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("cut %d: %v, want %v", c.cut, got, c.want)
		}
	}
	if got := cutsOf(nil, 5, 8); !reflect.DeepEqual(got, []profile.Cut{{Index: 0, Executions: 1}, {Index: 2, Executions: 1}}) {
		t.Errorf("without a record: %v", got)
	}
}
