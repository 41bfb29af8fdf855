package count

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/icount-dev/icount/emu"
	"github.com/icount-dev/icount/kernel"
	"github.com/icount-dev/icount/loader"
)

// Interruption is why icount stopped a running guest from outside the
// emulator: a timeout or a signal to icount. Sent on Options.Interrupt, it
// ends the run at the next block with a Profile marked incomplete.
type Interruption struct {
	Reason string // the Profile's Exit.Reason: "timeout", "SIGINT", "SIGTERM"
	Msg    string // what happened, in words
}

func (i *Interruption) Error() string { return i.Msg }

// Reasons a Profile is incomplete (Exit.Reason) besides an Interruption's.
const (
	ReasonInstructionLimit = "max-instructions"
	ReasonUnsupported      = "unsupported"
	ReasonError            = "error"
	ReasonDeadlock         = "deadlock"
	// ReasonInternal: a Go panic in icount stopped the run (a bug).
	ReasonInternal = "internal error"
)

// watch relays a reason from interrupt to the CPU, asking again every few
// milliseconds, since a request can be lost to a race with the hook, until
// the returned function is called (before the CPU is closed).
func watch(interrupt <-chan *Interruption, running func() *emu.CPU) (stop func()) {
	if interrupt == nil {
		return func() {}
	}
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		var reason *Interruption
		select {
		case reason = <-interrupt:
		case <-done:
			return
		}
		for {
			if cpu := running(); cpu != nil {
				cpu.Interrupt(reason)
			}
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

// maxDeadlockCallers bounds the callers listed for each thread of a
// deadlock.
const maxDeadlockCallers = 6

// deadlockMessage lists the threads of a deadlocked guest and where each
// waits: "thread 1001 waits for futex 0x4c6f0 in pthread_join+0x8c (prog)".
func deadlockMessage(e *kernel.DeadlockError, whereIn func(pid int, addr uint64) string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "deadlock: every thread waits and none can wake another (%d waiting)", len(e.Threads))
	procs := map[int]bool{}
	for _, t := range e.Threads {
		procs[t.PID] = true
	}
	for _, t := range e.Threads {
		where := func(addr uint64) string { return whereIn(t.PID, addr) }
		if len(procs) > 1 {
			fmt.Fprintf(&b, "\n  pid %d thread %d waits for %s, in %s", t.PID, t.TID, t.What, where(t.PC))
		} else {
			fmt.Fprintf(&b, "\n  thread %d waits for %s, in %s", t.TID, t.What, where(t.PC))
		}
		// Its callers, as many as tell where in the program it waits.
		calls := backtrace(t.Stack, t.PC, where)
		for _, c := range calls[:min(len(calls), maxDeadlockCallers)] {
			fmt.Fprintf(&b, "\n    called from %s", c)
		}
	}
	return b.String()
}

// describedError is err told in other words.
type describedError struct {
	msg string
	err error
}

func (e *describedError) Error() string { return e.msg }
func (e *describedError) Unwrap() error { return e.err }

// maxBacktrace bounds the lines of a backtrace.
const maxBacktrace = 12

// backtrace names the callers on the shadow call stack, innermost first,
// from the return address each call left: "main+0x2b (prog)", with ", N
// times" for N identical frames in a row (recursion). at is the location
// the guest stopped at, 0 for none (a jump into data); where names an
// address.
func backtrace(frames []emu.Frame, at uint64, where func(uint64) string) []string {
	if len(frames) == 0 {
		return nil
	}
	var out []string
	add := func(s string, repeat int) {
		if repeat > 1 {
			s += fmt.Sprintf(", %d times", repeat)
		}
		out = append(out, s)
	}
	// A guest stopped outside the innermost frame's function (a jump or
	// call into data, whose block never ran) was last in that function.
	if fn := where(frames[0].Func); at == 0 || funcOf(fn) != funcOf(where(at)) {
		add(fn, 1)
	}
	more := 0
	for i, f := range frames[:len(frames)-1] {
		if len(out) == maxBacktrace {
			for _, g := range frames[i : len(frames)-1] {
				more += g.Repeat
			}
			break
		}
		if f.Ret == 0 {
			// Entered by a jump (a tail call): the caller's function.
			add(where(frames[i+1].Func)+", by a jump", f.Repeat)
			continue
		}
		add(callSite(f.Ret, where), f.Repeat)
	}
	if more > 0 {
		out = append(out, fmt.Sprintf("... %d frames more", more))
	}
	return out
}

// funcOf is the function of a location where names: "main+0x2b (prog)"
// gives "main (prog)".
func funcOf(loc string) string {
	name, module, _ := strings.Cut(loc, " ")
	if i := strings.LastIndex(name, "+0x"); i > 0 {
		name = name[:i]
	}
	return name + " " + module
}

// failureReason is the Exit.Reason of a run a system call stopped.
func failureReason(err error) string {
	var u *kernel.UnsupportedError
	if errors.As(err, &u) {
		return ReasonUnsupported
	}
	return ReasonError
}

// sizeString writes a byte count in the largest binary unit dividing it.
func sizeString(n uint64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{40, "TiB"}, {30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// stackOverflow says "(stack overflow ...)" for an address in the 64 KiB
// below the initial stack, which has a fixed size and does not grow.
func stackOverflow(arch emu.Arch, addr uint64) string {
	bottom := loader.StackTop[arch] - loader.StackSize
	if addr < bottom && addr >= bottom-64<<10 {
		return fmt.Sprintf(": stack overflow (the stack is %s)", sizeString(loader.StackSize))
	}
	return ""
}

// callSite names the return address ret as "f+0xoff (module)" with f the
// function holding the call before it, as debuggers do: a call that ends
// a function returns to the start of the next.
func callSite(ret uint64, where func(uint64) string) string {
	loc := where(ret - 1)
	name, module, _ := strings.Cut(loc, " ")
	fn, off, ok := strings.Cut(name, "+0x")
	if strings.HasPrefix(name, "0x") {
		return where(ret)
	}
	n, err := strconv.ParseUint(off, 16, 64)
	if ok && err != nil {
		return where(ret)
	}
	return fmt.Sprintf("%s+%#x %s", fn, n+1, module)
}
