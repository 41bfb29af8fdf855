package fixedclock

import (
	"errors"
	"testing"
)

// FuzzParseTable checks that no table file makes the parser panic, that
// every refusal is a TableError, and that an accepted table is non-empty
// and strictly increasing, and reads back in order.
func FuzzParseTable(f *testing.F) {
	f.Add([]byte("1000\n2000\n"))
	f.Add([]byte("# comment\n-5\n\n7 # trailing\n"))
	f.Add([]byte("3\n2\n"))
	f.Add([]byte("x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tab, err := ParseTable("fuzz", data)
		if err != nil {
			var te *TableError
			if !errors.As(err, &te) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if len(tab.Values) == 0 {
			t.Fatal("accepted an empty table")
		}
		for i := 1; i < len(tab.Values); i++ {
			if tab.Values[i] <= tab.Values[i-1] {
				t.Fatalf("accepted a table not increasing at %d: %v", i, tab.Values)
			}
		}
		c := NewTable(tab, 1)
		prev := c.Read("f")
		if prev != tab.Values[0] {
			t.Fatalf("first read %d, table starts %d", prev, tab.Values[0])
		}
		for i := 1; i < len(tab.Values)+3; i++ {
			v := c.Read("f")
			if i < len(tab.Values) && v != tab.Values[i] {
				t.Fatalf("read %d = %d, table has %d", i, v, tab.Values[i])
			}
			if v < prev {
				t.Fatalf("read %d = %d went back from %d", i, v, prev)
			}
			prev = v
		}
	})
}
