package profile

import (
	"reflect"
	"testing"
)

func TestRuns(t *testing.T) {
	b := BlockRuns{BlockCount: BlockCount{Executions: 10}, Cuts: []Cut{{Index: 1, Executions: 1}, {Index: 3, Executions: 2}}}
	if got := b.Runs(5); !reflect.DeepEqual(got, []uint64{10, 9, 9, 7, 7}) {
		t.Errorf("runs %v", got)
	}
	var sum uint64
	for _, n := range b.Runs(5) {
		sum += n
	}
	if sum != 10*5-8 {
		t.Errorf("runs sum to %d", sum)
	}
}
