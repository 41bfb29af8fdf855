package count

import (
	"fmt"
	"slices"

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

// counterReads hooks the counter reads (rdtsc, rdtscp) of each block
// seen for the first time, before it runs: the block then starts over,
// translated with the hooks, as it does for an instruction site, so that
// every read of the counter, the first too, reads the guest's clock. They
// are found among the block's decoded instructions, wherever the code came
// from (loaded, mapped, or stored by the program itself, as a JIT does):
// a search of the code by its bytes would also hook the pattern where it
// lies in data or inside other instructions (libc alone has dozens), and
// every hook costs the emulator time at every instruction it translates.
type counterReads struct {
	cpu *emu.CPU
	dec *decoder
}

// hook hooks the counter reads of b, a block at addr, that have no hook
// yet, and reports whether it hooked any: the block must start over. Past
// an instruction the decoder could not decode, where the rest of the
// block's instructions are unknown, every byte is taken for a possible
// start.
func (c *counterReads) hook(addr uint64, b *decodedBlock) bool {
	if c.dec.arch != emu.X86_64 || b.code == nil {
		return false
	}
	starts := b.starts
	if b.bad != "" && len(starts) > 0 {
		starts = slices.Clone(starts)
		for off := starts[len(starts)-1] + 1; int(off) < len(b.code); off++ {
			starts = append(starts, off)
		}
	}
	hooked := false
	for _, off := range starts {
		insn, n := emu.CounterInsnAt(b.code[off:])
		if insn == 0 {
			continue
		}
		pc := addr + uint64(off)
		fresh, err := c.cpu.WatchCounterAt(pc, n)
		if err != nil {
			c.dec.failed = append(c.dec.failed, fmt.Sprintf("cannot hook the %s at %#x: %v", insn, pc, err))
			continue
		}
		hooked = hooked || fresh
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
