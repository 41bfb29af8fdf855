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

// hookCounters hooks the counter reads (rdtsc, rdtscp) of b, a new block
// at addr, that have no hook yet, and reports whether it hooked any: the
// block then starts over, translated with the hooks, as it does for an
// instruction site (hookSites), so that every read of the counter, the
// first too, reads the guest's clock. They are found among the block's
// decoded instructions, wherever the code came from (loaded, mapped, or
// stored by the program itself, as a JIT does): a search of the code by
// its bytes would also hook the pattern where it lies in data or inside
// other instructions (libc alone has dozens), and every hook costs the
// emulator time at every instruction it translates. Past an instruction
// the decoder could not decode, where the rest of the block's
// instructions are unknown, every byte is taken for a possible start.
func (d *decoder) hookCounters(b *decodedBlock, addr uint64) bool {
	if d.cpu == nil || d.arch != emu.X86_64 || b.code == nil {
		return false
	}
	hooked := false
	hook := func(off uint32) {
		insn, n := emu.CounterInsnAt(b.code[off:])
		if insn == 0 {
			return
		}
		pc := addr + uint64(off)
		fresh, err := d.cpu.WatchCounterAt(pc, n)
		if err != nil {
			d.failed = append(d.failed, fmt.Sprintf("cannot hook the %s at %#x: %v", insn, pc, err))
			return
		}
		hooked = hooked || fresh
	}
	for _, off := range b.starts {
		hook(off)
	}
	if b.bad != "" && len(b.starts) > 0 {
		for off := b.starts[len(b.starts)-1] + 1; int(off) < len(b.code); off++ {
			hook(off)
		}
	}
	return hooked
}

// clockWarnings says when the count may depend on timing: the guest read
// the host's clock.
func clockWarnings(m profile.Meta) []string {
	if m.Clock.Mode != "host" || m.ClockUse.Reads == 0 {
		return nil
	}
	return []string{fmt.Sprintf("the guest read the host clock %d times (%s): its count may depend on timing; --fixed-clock pins it",
		m.ClockUse.Reads, m.ClockUse.Sources())}
}
