package count

import (
	"fmt"

	"github.com/icount-dev/icount/emu"
	"github.com/icount-dev/icount/fixedclock"
	"github.com/icount-dev/icount/kernel"
	"github.com/icount-dev/icount/profile"
)

// clockSettings says where the guest's time came from.
func clockSettings(c *fixedclock.Clock, info kernel.ClockInfo) profile.Clock {
	m := profile.Clock{Mode: "host", CounterHz: info.HostHz}
	if c == nil {
		return m
	}
	m.Mode = "fixed"
	start := c.Start()
	m.StartNs, m.StepNs = &start, c.Step()
	if t := c.Table(); t != nil {
		m.Table, m.TableSHA256, m.TableValues = t.Name, t.SHA256, len(t.Values)
	}
	return m
}

// clockUse says how the guest used its clock.
func clockUse(info kernel.ClockInfo) profile.ClockUse {
	u := profile.ClockUse{Reads: info.Reads, TableRanOut: info.Stats.RanOut, Sleeps: info.Stats.Sleeps, SleptNs: info.Stats.SleptNs}
	if len(info.BySource) > 0 {
		u.ReadsBySource = info.BySource
	}
	return u
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

func (l *lateCounters) check(addr uint64, b *decodedBlock) {
	if l.dec.arch != emu.X86_64 || b.code == nil {
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
func clockWarnings(m profile.Meta, late []string) []string {
	if m.Clock.Mode != "host" || m.ClockUse.Reads == 0 {
		return late
	}
	return append(late, fmt.Sprintf("the guest read the host clock %d times (%s): its count may depend on timing; --fixed-clock pins it",
		m.ClockUse.Reads, m.ClockUse.Sources()))
}
