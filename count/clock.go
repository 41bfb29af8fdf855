package count

import (
	"fmt"
	"sort"
	"strings"

	"github.com/icount-dev/icount/emu"
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

// lateCounters hooks the counter reads (rdtsc, rdtscp) of a block seen for
// the first time that have no hook yet. The kernel has the code scanned
// whenever it loads, maps, protects or writes executable memory, so such a
// read lies in code the guest wrote into executable memory with its own
// stores. This first execution of the block reads the host's counter (its
// translation had no hook); later ones read the guest's clock. Each is
// named in a warning.
type lateCounters struct {
	cpu      *emu.CPU
	dec      *decoder
	warnings []string
}

func (l *lateCounters) check(addr uint64, size uint32) {
	if l.dec.arch != emu.X86_64 {
		return
	}
	b := l.dec.blocks[blockKey{addr, size}]
	if b == nil || b.code == nil {
		return
	}
	for _, off := range b.starts {
		insn, n := emu.CounterInsnAt(b.code[off:])
		if insn == 0 {
			continue
		}
		pc := addr + uint64(off)
		if fresh, err := l.cpu.WatchCounterAt(pc, n); err == nil && fresh {
			l.warnings = append(l.warnings, fmt.Sprintf("%s at %#x, in code the program wrote itself, read the host's counter on its first execution", insn, pc))
		}
	}
}

// clockWarnings says when the count may depend on timing: the guest read
// the host's clock, or a counter read the kernel's scans missed did.
func clockWarnings(m Clock, late []string) []string {
	if m.Mode != "host" || m.Reads == 0 {
		return late
	}
	return append(late, fmt.Sprintf("the guest read the host clock %d times (%s): its count may depend on timing; --fixed-clock pins it",
		m.Reads, m.Sources()))
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
