package main

import (
	"fmt"
	"time"

	"github.com/icount-dev/icount/fixedclock"
	"github.com/spf13/pflag"
)

// clockFlags are the flags that pin the guest's time and CPU count.
type clockFlags struct {
	fixed bool
	table string
	step  time.Duration
	start string
	cpus  int
	// host: read the host's time where a comparison would pin it
	// (--host-clock).
	host bool
}

func (f *clockFlags) register(fl *pflag.FlagSet) {
	fl.BoolVar(&f.fixed, "fixed-clock", false, "serve every clock read (clock_gettime, gettimeofday, time, rdtsc, ...) from a fixed sequence: read k returns start + k*step; sleeps return at once")
	fl.StringVar(&f.table, "clock-table", "", "fixed clock from a table: read k returns line k of `FILE` (integer nanoseconds, increasing), then goes on by its last step (implies --fixed-clock)")
	fl.DurationVar(&f.step, "clock-step", time.Duration(fixedclock.DefaultStep), "the fixed clock's step between reads, a Go `duration` (1s, 250ms) (implies --fixed-clock)")
	fl.StringVar(&f.start, "clock-start", "0", "the fixed clock's first read: nanoseconds, a duration or an RFC 3339 `time` (implies --fixed-clock)")
	fl.BoolVar(&f.host, "host-clock", false, "with --save or --baseline (and in icount ab), give the guest the host's time instead of the fixed clock a comparison pins it to by default")
	fl.IntVar(&f.cpus, "cpus", 1, "tell the guest it has `N` CPUs (sched_getaffinity, /proc/cpuinfo, /sys/devices/system/cpu)")
}

// asked says whether a flag asks for the fixed clock: --clock-table,
// --clock-step and --clock-start imply --fixed-clock.
func (f *clockFlags) asked(fl *pflag.FlagSet) bool {
	return f.fixed || f.table != "" || fl.Changed("clock-step") || fl.Changed("clock-start")
}

// pinArgs are the flags that give a run of a comparison (pin) the fixed
// clock by default: none when a flag already says which clock, or with
// --host-clock.
func (f *clockFlags) pinArgs(fl *pflag.FlagSet, pin bool) []string {
	if !pin || f.host || f.asked(fl) {
		return nil
	}
	return []string{"--fixed-clock"}
}

// clock builds the fixed clock the flags ask for, nil for the host's time.
// A run that is compared (pin: --save, --baseline) has the fixed clock unless
// --host-clock says otherwise.
func (f *clockFlags) clock(fl *pflag.FlagSet, pin bool) (*fixedclock.Clock, error) {
	if f.cpus < 1 || f.cpus > 1024 {
		return nil, fmt.Errorf("--cpus %d: want 1 to 1024", f.cpus)
	}
	if f.host && f.asked(fl) {
		return nil, fmt.Errorf("--host-clock and a fixed clock's flag (--fixed-clock, --clock-table, --clock-step, --clock-start): choose one")
	}
	if !f.asked(fl) && (!pin || f.host) {
		return nil, nil
	}
	if f.step <= 0 {
		return nil, fmt.Errorf("--clock-step %v: want a positive duration", f.step)
	}
	if f.table != "" {
		if fl.Changed("clock-start") {
			return nil, fmt.Errorf("--clock-start and --clock-table: the table's first value is the start")
		}
		t, err := fixedclock.ReadTable(f.table)
		if err != nil {
			return nil, err
		}
		return fixedclock.NewTable(t, int64(f.step)), nil
	}
	start, err := fixedclock.ParseTime(f.start)
	if err != nil {
		return nil, fmt.Errorf("--clock-start: %v", err)
	}
	return fixedclock.New(start, int64(f.step)), nil
}
