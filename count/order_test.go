package count

import (
	"reflect"
	"testing"

	"github.com/icount-dev/icount/profile"
)

// TestSortFunctionsTies: functions equal in cost and name (each object's
// _init) are ordered by module and address, whatever order they come in, so
// that a Profile is the same bytes every run (make soak caught the order
// following map iteration).
func TestSortFunctionsTies(t *testing.T) {
	want := []profile.FunctionCount{
		{Name: "main", Module: "prog", Self: 9},
		{Name: "_init", Module: "libgreet.so", Addr: 0x7000, Self: 8},
		{Name: "_init", Module: "prog", Addr: 0x1000, Self: 8},
		{Name: "_init", Module: "prog", Addr: 0x2000, Self: 8},
	}
	for _, perm := range [][]int{{0, 1, 2, 3}, {3, 2, 1, 0}, {2, 0, 3, 1}, {1, 3, 0, 2}} {
		fs := make([]profile.FunctionCount, len(want))
		for i, j := range perm {
			fs[i] = want[j]
		}
		sortFunctions(fs)
		if !reflect.DeepEqual(fs, want) {
			t.Errorf("from %v: %+v", perm, fs)
		}
	}
}
