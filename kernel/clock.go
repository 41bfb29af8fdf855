package kernel

import (
	"time"

	"github.com/icount-dev/icount/emu"
	"github.com/icount-dev/icount/fixedclock"
	"golang.org/x/sys/unix"
)

// Where the guest's time comes from. Under --fixed-clock every read, of any
// clock by any means (system call or counter instruction), consumes the
// next entry of the fixed clock; otherwise it is the host's, and every
// read is counted so that the summary can say the count may depend on
// timing. Reads are counted by source either way.

// clockState is the guest's time.
type clockState struct {
	fixed     *fixedclock.Clock // nil: the host's time
	hostReads map[string]uint64 // host time: reads by source
	hostTotal uint64
}

// readClock returns the time in nanoseconds for one read by source, of the
// host clock hostID when the time is the host's.
func (p *Process) readClock(source string, hostID int32) (int64, error) {
	if c := p.k.clk.fixed; c != nil {
		return c.Read(source), nil
	}
	var ts unix.Timespec
	if err := unix.ClockGettime(hostID, &ts); err != nil {
		return 0, errnoOf(err)
	}
	if p.k.clk.hostReads == nil {
		p.k.clk.hostReads = map[string]uint64{}
	}
	p.k.clk.hostReads[source]++
	p.k.clk.hostTotal++
	return ts.Nano(), nil
}

// counterHz is the nominal frequency of the guest's counter instructions.
func (p *Process) counterHz() uint64 {
	if p.exe.Arch == emu.ARM64 {
		return fixedclock.CNTFRQHz
	}
	return fixedclock.TSCHz
}

// readCounter serves one execution of a counter-reading instruction
// (rdtsc, rdtscp, mrs CNTVCT_EL0): the clock's time as a counter ticking
// at the nominal frequency.
func (p *Process) readCounter(insn emu.CounterInsn) uint64 {
	if insn == emu.CNTFRQ {
		return p.counterHz() // a constant: not a read of the clock
	}
	ns, err := p.readClock(insn.String(), unix.CLOCK_MONOTONIC)
	if err != nil {
		return 0
	}
	return fixedclock.Counter(ns, p.counterHz())
}

// ClockReads is how many times the guest read a clock, by any means.
func (p *Process) ClockReads() uint64 {
	if p.k.clk.fixed != nil {
		return p.k.clk.fixed.Stats().Reads
	}
	return p.k.clk.hostTotal
}

// ClockInfo describes the guest's use of time.
type ClockInfo struct {
	Fixed    bool
	Reads    uint64
	BySource map[string]uint64
	Stats    fixedclock.Stats // under a fixed clock
	HostHz   uint64           // the counter's nominal frequency
}

// ClockInfo returns the guest's use of time so far, by every process.
func (k *Kernel) ClockInfo() ClockInfo {
	p := k.first
	info := ClockInfo{Fixed: p.k.clk.fixed != nil, Reads: p.ClockReads(), HostHz: p.counterHz()}
	if p.k.clk.fixed != nil {
		info.Stats = p.k.clk.fixed.Stats()
		info.BySource = info.Stats.BySource
	} else {
		info.BySource = map[string]uint64{}
		for k, v := range p.k.clk.hostReads {
			info.BySource[k] = v
		}
	}
	return info
}

// sleep waits d nanoseconds of the guest's time: under a fixed clock it
// advances the clock and returns at once.
func (p *Process) sleep(d int64) {
	if c := p.k.clk.fixed; c != nil {
		c.Sleep(d)
		return
	}
	if d > 0 {
		time.Sleep(time.Duration(d))
	}
}

// sleepUntil waits until clock id reads t.
func (p *Process) sleepUntil(id int32, t int64) error {
	if c := p.k.clk.fixed; c != nil {
		c.SleepUntil(t)
		return nil
	}
	d, err := p.untilTime(id, t)
	if err != nil {
		return err
	}
	p.sleep(d)
	return nil
}

// untilTime is how long it is until clock id reads t.
func (p *Process) untilTime(id int32, t int64) (int64, error) {
	if c := p.k.clk.fixed; c != nil {
		return t - c.Now(), nil
	}
	var ts unix.Timespec
	if err := unix.ClockGettime(id, &ts); err != nil {
		return 0, errnoOf(err)
	}
	return t - ts.Nano(), nil
}
