package count

import (
	"fmt"
	"sort"
	"strings"

	"github.com/icount-dev/icount/fixedclock"
	"github.com/icount-dev/icount/kernel"
)

// clockMeta describes the guest's time for the Profile.
func clockMeta(c *fixedclock.Clock, info kernel.ClockInfo) Clock {
	m := Clock{Mode: "host", Reads: info.Reads, CounterHz: info.HostHz}
	if len(info.BySource) > 0 {
		m.ReadsBySource = info.BySource
	}
	if c == nil {
		return m
	}
	m.Mode = "fixed"
	start := c.Start()
	m.StartNs, m.StepNs = &start, c.Step()
	if t := c.Table(); t != nil {
		m.Table, m.TableSHA256, m.TableValues = t.Name, t.SHA256, len(t.Values)
		m.TableRanOut = info.Stats.RanOut
	}
	m.Sleeps, m.SleptNs = info.Stats.Sleeps, info.Stats.SleptNs
	return m
}

// clockWarnings says when the count may depend on timing: the guest read
// the host's clock.
func clockWarnings(m Clock) []string {
	if m.Mode != "host" || m.Reads == 0 {
		return nil
	}
	return []string{fmt.Sprintf("the guest read the host clock %d times (%s): its count may depend on timing; --fixed-clock pins it",
		m.Reads, m.Sources())}
}

// Sources lists the reads by source, most first:
// "clock_gettime(CLOCK_MONOTONIC) 4, rdtsc 2".
func (m Clock) Sources() string {
	keys := make([]string, 0, len(m.ReadsBySource))
	for k := range m.ReadsBySource {
		keys = append(keys, k)
	}
	by := m.ReadsBySource
	sort.Slice(keys, func(i, j int) bool {
		if by[keys[i]] != by[keys[j]] {
			return by[keys[i]] > by[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, by[k])
	}
	return strings.Join(parts, ", ")
}
