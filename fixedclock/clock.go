// Package fixedclock is the one sequence of timestamps every time source of
// a guest reads under --fixed-clock: clock_gettime of any clock id,
// gettimeofday, time, times, getrusage, sysinfo's uptime, and the CPU's
// counters (rdtsc/rdtscp, CNTVCT_EL0) at a fixed nominal frequency.
//
// Read k (counting from 0) returns start + k*step, or the k-th value of a
// table, continuing by the table's last step once it runs out. Each read
// consumes one entry whatever the source, so the number of reads indexes
// the sequence, as a fixed table indexed by a call counter does. Sleeps
// advance virtual time without consuming an entry and return at once.
//
// The package knows nothing of guests, system calls or CPUs: sources are
// names the caller chooses.
package fixedclock

import (
	"math"
	"sort"
	"time"
)

// Defaults for --clock-start and --clock-step. With a one-second step, a
// self-calibration that grows its work until it measures a second (the
// CoreMark style) measures a second on its first try, between two reads,
// and settles on its smallest amount of work.
const (
	DefaultStart int64 = 0
	DefaultStep        = int64(time.Second)
)

// Nominal counter frequencies: the x86-64 time-stamp counter (rdtsc,
// rdtscp; also what CPUID leaves 0x15 and 0x16 report) and the arm64
// generic timer (CNTVCT_EL0; what CNTFRQ_EL0 reads).
const (
	TSCHz    uint64 = 2_000_000_000
	CNTFRQHz uint64 = 1_000_000_000
)

// Clock is the sequence a run reads from. It is not safe for concurrent
// use: a guest's reads are ordered by the emulator.
type Clock struct {
	start, step int64
	table       *Table

	reads    uint64            // entries consumed
	bySource map[string]uint64 // reads by source
	offset   int64             // virtual time slept, added to every entry
	now      int64             // the last value read, plus sleeps since
	slept    int64             // total virtual time slept
	sleeps   uint64
}

// New returns a clock whose read k is start + k*step; step must be positive.
func New(start, step int64) *Clock {
	if step <= 0 {
		panic("fixedclock: step must be positive")
	}
	return &Clock{start: start, step: step, now: start, bySource: map[string]uint64{}}
}

// NewTable returns a clock reading the values of t in order, then going on
// by t's last step (by fallbackStep for a table of one value).
func NewTable(t *Table, fallbackStep int64) *Clock {
	c := New(t.Values[0], fallbackStep)
	c.table = t
	if n := len(t.Values); n >= 2 {
		c.step = t.Values[n-1] - t.Values[n-2]
	}
	return c
}

// entry is the k-th value of the sequence, before sleeps.
func (c *Clock) entry(k uint64) int64 {
	if c.table != nil {
		v := c.table.Values
		if k < uint64(len(v)) {
			return v[k]
		}
		return addSat(v[len(v)-1], mulSat(c.step, k-uint64(len(v)-1)))
	}
	return addSat(c.start, mulSat(c.step, k))
}

// Read consumes the next entry for source and returns it in nanoseconds.
func (c *Clock) Read(source string) int64 {
	v := addSat(c.entry(c.reads), c.offset)
	c.reads++
	c.bySource[source]++
	c.now = v
	return v
}

// Now is the current virtual time without consuming an entry: the last
// value read plus what was slept since (the start before any read).
func (c *Clock) Now() int64 { return c.now }

// Sleep advances virtual time by d nanoseconds (nothing for d <= 0).
func (c *Clock) Sleep(d int64) {
	c.sleeps++
	if d <= 0 {
		return
	}
	c.offset = addSat(c.offset, d)
	c.slept = addSat(c.slept, d)
	c.now = addSat(c.now, d)
}

// SleepUntil advances virtual time to t if it is not there yet.
func (c *Clock) SleepUntil(t int64) {
	if t > c.now {
		c.Sleep(t - c.now)
		return
	}
	c.sleeps++
}

// Counter converts nanoseconds to ticks of a counter of hz, as the counter
// would read at that time (wrapping as a hardware counter does).
func Counter(ns int64, hz uint64) uint64 {
	if ns <= 0 {
		return 0 // a counter starts at zero
	}
	// ns*hz/1e9 without overflowing: whole seconds and the rest apart.
	sec, rem := uint64(ns)/1e9, uint64(ns)%1e9
	return sec*hz + rem*hz/1e9
}

// Stats says how the run used the clock.
type Stats struct {
	Reads    uint64
	BySource map[string]uint64
	// RanOut is set when a table clock was read past its last value.
	RanOut   bool
	Sleeps   uint64
	SleptNs  int64
	TableLen int
}

// Stats returns the clock's use so far.
func (c *Clock) Stats() Stats {
	by := make(map[string]uint64, len(c.bySource))
	for k, v := range c.bySource {
		by[k] = v
	}
	s := Stats{Reads: c.reads, BySource: by, Sleeps: c.sleeps, SleptNs: c.slept}
	if c.table != nil {
		s.TableLen = len(c.table.Values)
		s.RanOut = c.reads > uint64(len(c.table.Values))
	}
	return s
}

// Start is the first value of the sequence; Step the step it goes on by.
func (c *Clock) Start() int64 { return c.entry(0) }

// Step is the step between entries (for a table, its last step).
func (c *Clock) Step() int64 { return c.step }

// Table is the table the clock reads, nil for start + k*step.
func (c *Clock) Table() *Table { return c.table }

// Sources lists the sources read, sorted.
func (s Stats) Sources() []string {
	out := make([]string, 0, len(s.BySource))
	for k := range s.BySource {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func addSat(a, b int64) int64 {
	s := a + b
	if (b > 0 && s < a) || (b < 0 && s > a) {
		if b > 0 {
			return math.MaxInt64
		}
		return math.MinInt64
	}
	return s
}

// mulSat is step*k for a positive step, saturating.
func mulSat(step int64, k uint64) int64 {
	if k == 0 {
		return 0
	}
	if k > math.MaxInt64/uint64(step) {
		return math.MaxInt64
	}
	return step * int64(k)
}
