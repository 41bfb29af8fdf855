package fixedclock

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func TestStartStep(t *testing.T) {
	c := New(100, 10)
	for k, want := range []int64{100, 110, 120, 130} {
		if got := c.Read("a"); got != want {
			t.Fatalf("read %d = %d, want %d", k, got, want)
		}
	}
	c.Read("b")
	s := c.Stats()
	if s.Reads != 5 || s.BySource["a"] != 4 || s.BySource["b"] != 1 || s.RanOut {
		t.Errorf("stats %+v", s)
	}
	if got := strings.Join(s.Sources(), ","); got != "a,b" {
		t.Errorf("sources %s", got)
	}
}

func TestDefaults(t *testing.T) {
	c := New(DefaultStart, DefaultStep)
	if a, b := c.Read("x"), c.Read("x"); a != 0 || b-a != int64(time.Second) {
		t.Errorf("default reads %d, %d", a, b)
	}
}

func TestTableRunsOutByLastStep(t *testing.T) {
	tab, err := ParseTable("t", []byte("# header\n1000\n1500 # half a microsecond on\n\n1700\n"))
	if err != nil {
		t.Fatal(err)
	}
	c := NewTable(tab, 1)
	want := []int64{1000, 1500, 1700, 1900, 2100}
	for k, w := range want {
		if got := c.Read("s"); got != w {
			t.Fatalf("read %d = %d, want %d", k, got, w)
		}
		if ranOut := c.Stats().RanOut; ranOut != (k >= 3) {
			t.Fatalf("after read %d ran out = %v", k, ranOut)
		}
	}
	if c.Stats().TableLen != 3 || c.Step() != 200 || c.Start() != 1000 {
		t.Errorf("stats %+v step %d start %d", c.Stats(), c.Step(), c.Start())
	}
}

func TestOneValueTableUsesFallbackStep(t *testing.T) {
	tab, err := ParseTable("t", []byte("5\n"))
	if err != nil {
		t.Fatal(err)
	}
	c := NewTable(tab, 7)
	if a, b, d := c.Read("s"), c.Read("s"), c.Read("s"); a != 5 || b != 12 || d != 19 {
		t.Errorf("reads %d %d %d", a, b, d)
	}
}

func TestSleep(t *testing.T) {
	c := New(0, 100)
	c.Sleep(1000) // before any read
	if v := c.Read("s"); v != 1000 {
		t.Fatalf("first read after sleeping %d", v)
	}
	c.Sleep(10 * int64(time.Second))
	if v := c.Read("s"); v != 100+1000+10*int64(time.Second) {
		t.Fatalf("read after a 10 s sleep %d", v)
	}
	// Sleeping until a time already past does nothing.
	now := c.Now()
	c.SleepUntil(now - 5)
	if c.Now() != now {
		t.Fatalf("SleepUntil the past moved the clock")
	}
	// Sleeping until a future time: the next read is at or after it.
	c.SleepUntil(now + 5000)
	if v := c.Read("s"); v < now+5000 {
		t.Fatalf("read %d before the absolute deadline %d", v, now+5000)
	}
	s := c.Stats()
	if s.Sleeps != 4 || s.SleptNs != 1000+10*int64(time.Second)+5000 {
		t.Errorf("stats %+v", s)
	}
}

func TestSaturates(t *testing.T) {
	c := New(math.MaxInt64-5, 10)
	c.Read("s")
	if v := c.Read("s"); v != math.MaxInt64 {
		t.Errorf("read past the end of int64: %d", v)
	}
	c.Sleep(math.MaxInt64)
	if v := c.Read("s"); v != math.MaxInt64 {
		t.Errorf("read after a huge sleep: %d", v)
	}
}

func TestCounter(t *testing.T) {
	for _, tc := range []struct {
		ns   int64
		hz   uint64
		want uint64
	}{
		{0, TSCHz, 0},
		{-5, TSCHz, 0},
		{1, TSCHz, 2},
		{int64(time.Second), TSCHz, TSCHz},
		{1_500_000_001, TSCHz, 3_000_000_002},
		{1_000, 25_000_000, 25},
		{math.MaxInt64, TSCHz, 18446744073709551614},
	} {
		if got := Counter(tc.ns, tc.hz); got != tc.want {
			t.Errorf("Counter(%d, %d) = %d, want %d", tc.ns, tc.hz, got, tc.want)
		}
	}
}

func TestTableErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "clock table f: no values"},
		{"# only a comment\n\n", "clock table f: no values"},
		{"1\n2\nabc\n", "clock table f, line 3: \"abc\" is not an integer"},
		{"1\n\n5\n3\n", "clock table f, line 4: 3 is not after 5 (line 3)"},
		{"7\n7\n", "clock table f, line 2: 7 is not after 7 (line 1)"},
		{"1.5\n", "clock table f, line 1: \"1.5\" is not an integer"},
		{"99999999999999999999\n", "clock table f, line 1: 99999999999999999999 is out of range"},
		{"1\n" + strings.Repeat("9", MaxTableLine+1) + "\n", "clock table f, line 2: line longer than"},
	} {
		_, err := ParseTable("f", []byte(tc.in))
		var te *TableError
		if !errors.As(err, &te) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("ParseTable(%q) = %v, want %q...", clip(tc.in), err, tc.want)
		}
	}
}

func TestTableAcceptsNegativeAndSpaces(t *testing.T) {
	tab, err := ParseTable("f", []byte("  -10\t\r\n+20\n30#c\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Values) != 3 || tab.Values[0] != -10 || tab.Values[1] != 20 || tab.Values[2] != 30 || len(tab.SHA256) != 64 {
		t.Errorf("table %+v", tab)
	}
}

func TestParseTime(t *testing.T) {
	for in, want := range map[string]int64{
		"0":                    0,
		"123":                  123,
		"-5":                   -5,
		"90s":                  90e9,
		"1h":                   3600e9,
		"1970-01-01T00:00:01Z": 1e9,
		"2024-01-01T00:00:00Z": 1704067200e9,
	} {
		got, err := ParseTime(in)
		if err != nil || got != want {
			t.Errorf("ParseTime(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "soon", "3000-01-01T00:00:00Z", "1s2"} {
		if _, err := ParseTime(in); err == nil {
			t.Errorf("ParseTime(%q) accepted", in)
		}
	}
}
