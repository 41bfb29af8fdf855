package count

import (
	"fmt"

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
		m.Reads, kernel.DescribeReads(m.ReadsBySource))}
}
