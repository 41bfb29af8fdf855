package main

// Limits and stops of icount run: --timeout, --max-memory, SIGINT and
// SIGTERM, and the progress line.

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/icount-dev/icount/count"
	"github.com/icount-dev/icount/profile"
	"github.com/icount-dev/icount/report"
	"github.com/spf13/pflag"
	"golang.org/x/sys/unix"
)

// Exit statuses of runs icount stopped from outside.
const (
	exitTimeout = 124 // --timeout, as timeout(1)
	exitSIGINT  = 130 // 128+SIGINT
	exitSIGTERM = 143 // 128+SIGTERM
)

// stopGrace is how long a guest may take to stop once asked: one inside a
// system call that blocks (a read of a terminal) stops only when the call
// returns, and icount then exits without a profile.
const stopGrace = 5 * time.Second

type limitFlags struct {
	timeout   time.Duration
	maxMemory sizeFlag
}

func (l *limitFlags) register(fl *pflag.FlagSet) {
	fl.DurationVar(&l.timeout, "timeout", 0, "stop the program after `DURATION` of wall-clock time, such as 30s or 5m (exit 124, the Profile marked incomplete)")
	fl.Var(&l.maxMemory, "max-memory", "bound the program's mappings (the executable, stack, heap and what it maps) to `SIZE` bytes, such as 512M or 2G, as ulimit -v does: past it the program sees ENOMEM")
}

// check refuses limits no run could meet: a negative --timeout. (A
// --max-memory smaller than the program's segments is the kernel's to
// refuse as the program loads, before it runs: status 126.)
func (l *limitFlags) check() error {
	if l.timeout < 0 {
		return fmt.Errorf("--timeout %v: want a positive duration (0 for none)", l.timeout)
	}
	return nil
}

// sizeFlag is a byte count with an optional binary unit: K, M, G or T
// (also KiB or KB, ...: each 1024 times the one before).
type sizeFlag uint64

func (s *sizeFlag) String() string {
	if *s == 0 {
		return ""
	}
	return strconv.FormatUint(uint64(*s), 10)
}

func (s *sizeFlag) Type() string { return "SIZE" }

func (s *sizeFlag) Set(v string) error {
	n, err := parseSize(v)
	if err != nil {
		return err
	}
	*s = sizeFlag(n)
	return nil
}

func parseSize(v string) (uint64, error) {
	num := strings.TrimRight(v, "KMGTkmgtiIbB")
	unit := strings.ToUpper(v[len(num):])
	shift := map[string]uint{"": 0, "B": 0, "K": 10, "KB": 10, "KIB": 10, "M": 20, "MB": 20, "MIB": 20,
		"G": 30, "GB": 30, "GIB": 30, "T": 40, "TB": 40, "TIB": 40}
	sh, ok := shift[unit]
	n, err := strconv.ParseUint(num, 10, 64)
	if !ok || err != nil || n == 0 || n > ^uint64(0)>>sh {
		return 0, fmt.Errorf("want a positive number of bytes, optionally with K, M, G or T (binary units), such as 512M")
	}
	return n << sh, nil
}

// runControl watches one run: its timeout, signals to icount, and the
// progress line.
type runControl struct {
	interrupt chan *count.Interruption
	done      chan struct{} // closed when the run returns
	finished  chan struct{} // closed when the progress line is cleared
}

// start prepares opts for the limits and starts watching; finish must be
// called when count.Run returns. SIGINT and SIGTERM stay caught after it,
// so that icount writes what it counted: a second one exits at once.
func (l *limitFlags) start(opts *count.Options, quiet bool) (finish func()) {
	opts.MaxMemory = uint64(l.maxMemory)
	c := &runControl{interrupt: make(chan *count.Interruption, 1), done: make(chan struct{}), finished: make(chan struct{})}
	opts.Interrupt = c.interrupt
	started := make(chan func() uint64, 1)
	opts.Progress = func(executed func() uint64) { started <- executed }

	catchStopSignals()
	go c.watch(l.timeout, stopSignals)
	var line *progress
	if !quiet && os.Getenv("CI") == "" {
		if line = newProgress(os.Stderr); line != nil {
			opts.StreamWrite = line.streamWrite
		}
	}
	go c.progress(started, line)
	return func() {
		close(c.done)
		<-c.finished
	}
}

// stopSignals receives the SIGINT and SIGTERM sent to icount while it
// runs a program: caught from the start of main for `icount run`, so that
// one sent while icount starts asks the run to stop (at its first block,
// with the Profile written) instead of ending icount with nothing written.
var stopSignals = make(chan os.Signal, 2)

// catchStopSignals sends SIGINT and SIGTERM to stopSignals.
func catchStopSignals() { signal.Notify(stopSignals, os.Interrupt, syscall.SIGTERM) }

// sameRequest is how long after a first SIGINT or SIGTERM another one is
// the same request: coreutils' timeout sends SIGTERM to its child and then
// to the child's process group, so icount gets two at once. Only a signal
// later than this asks icount to exit at once.
const sameRequest = time.Second

// watch turns the first of the timeout or a signal into an interruption,
// and exits at once at a later second signal or when the guest does not
// stop.
func (c *runControl) watch(timeout time.Duration, sigs chan os.Signal) {
	var timer <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		timer = t.C
	}
	var grace <-chan time.Time
	stopping := 0           // the exit status of the stop asked for
	var signalled time.Time // when the first signal came
	for {
		select {
		case <-timer:
			timer = nil
			if stopping == 0 {
				stopping = exitTimeout
				c.interrupt <- &count.Interruption{Reason: profile.StopTimeout, Msg: fmt.Sprintf("stopped by --timeout %v (wall clock)", timeout)}
				grace = time.After(stopGrace)
			}
		case sig := <-sigs:
			status, name := exitSIGINT, "SIGINT"
			if sig == syscall.SIGTERM {
				status, name = exitSIGTERM, "SIGTERM"
			}
			if !signalled.IsZero() && time.Since(signalled) < sameRequest {
				continue // the same request, sent twice
			}
			if signalled.IsZero() {
				signalled = time.Now()
			}
			select {
			case <-c.done:
				if stopping != 0 {
					// The run stopped and its profile is being written.
					exitNow(status, fmt.Sprintf("%s again: exiting at once", name))
				}
				stopping = status
				continue
			default:
			}
			if stopping != 0 {
				exitNow(status, fmt.Sprintf("%s again: exiting at once, nothing written", name))
			}
			stopping = status
			c.interrupt <- &count.Interruption{Reason: profile.StopReason(name), Msg: fmt.Sprintf("stopped by %s", name)}
			grace = time.After(stopGrace)
		case <-grace:
			select {
			case <-c.done:
			default:
				exitNow(stopping, fmt.Sprintf("the program did not stop within %v of being asked (it is blocked in a system call): exiting, nothing written", stopGrace))
			}
			grace = nil
		}
	}
}

// exitNow exits at once with status, saying why on a line of its own
// (over the progress line on a terminal).
func exitNow(status int, msg string) {
	clear := ""
	if isTerminal(os.Stderr) {
		clear = "\r\033[K"
	}
	fmt.Fprintf(os.Stderr, "%s%s%s\n", clear, report.Prefix, msg)
	os.Exit(status)
}

// isTerminal reports whether f is a terminal.
func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// limitStatus is the exit status of a run icount stopped from outside.
func limitStatus(err error) (int, bool) {
	var intr *count.Interruption
	if !errors.As(err, &intr) {
		return 0, false
	}
	switch intr.Reason {
	case profile.StopTimeout:
		return exitTimeout, true
	case profile.StopSIGINT:
		return exitSIGINT, true
	case profile.StopSIGTERM:
		return exitSIGTERM, true
	}
	return exitInternal, true
}

// printBacktrace writes the callers where the guest faulted or stopped.
func printBacktrace(p *profile.Profile) {
	for _, f := range p.Exit.Backtrace {
		fmt.Fprintf(os.Stderr, "%s  called from %s\n", report.Prefix, f)
	}
	if n := p.Exit.FramesMore; n > 0 {
		fmt.Fprintf(os.Stderr, "%s  ... %d frames more\n", report.Prefix, n)
	}
}
