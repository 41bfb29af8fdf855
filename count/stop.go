package count

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/icount-dev/icount/emu"
	"github.com/icount-dev/icount/kernel"
	"github.com/icount-dev/icount/loader"
	"github.com/icount-dev/icount/profile"
)

// Interruption is why icount stopped a running guest from outside the
// emulator: a timeout or a signal to icount. Sent on Options.Interrupt, it
// ends the run at the next block with a Profile marked incomplete.
type Interruption struct {
	Reason profile.StopReason // the Profile's Exit.Reason: StopTimeout, StopSIGINT, StopSIGTERM
	Msg    string             // what happened, in words
}

func (i *Interruption) Error() string { return i.Msg }

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
func deadlockMessage(e *kernel.DeadlockError, whereIn func(pid int, addr uint64) profile.Location) string {
	var b strings.Builder
	fmt.Fprintf(&b, "deadlock: every thread waits and none can wake another (%d waiting)", len(e.Threads))
	procs := map[int]bool{}
	for _, t := range e.Threads {
		procs[t.PID] = true
	}
	for _, t := range e.Threads {
		where := func(addr uint64) profile.Location { return whereIn(t.PID, addr) }
		if len(procs) > 1 {
			fmt.Fprintf(&b, "\n  pid %d thread %d waits for %s, in %s", t.PID, t.TID, t.What, where(t.PC))
		} else {
			fmt.Fprintf(&b, "\n  thread %d waits for %s, in %s", t.TID, t.What, where(t.PC))
		}
		// Its callers, as many as tell where in the program it waits.
		calls, _ := backtrace(t.Stack, t.PC, where)
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
// by the call before the return address each call left, with identical
// frames in a row (recursion) as one, up to maxBacktrace; more counts the
// frames left out. at is the location the guest stopped at, 0 for none (a
// jump into data); where names an address.
func backtrace(frames []emu.Frame, at uint64, where func(uint64) profile.Location) (out []profile.Frame, more int) {
	if len(frames) == 0 {
		return nil, 0
	}
	// A guest stopped outside the innermost frame's function (a jump or
	// call into data, whose block never ran) was last in that function.
	if fn := where(frames[0].Func); at == 0 || !sameFunction(fn, where(at)) {
		out = append(out, profile.Frame{Location: fn})
	}
	for i, f := range frames[:len(frames)-1] {
		if len(out) == maxBacktrace {
			for _, g := range frames[i : len(frames)-1] {
				more += g.Repeat
			}
			break
		}
		if f.Ret == 0 {
			// Entered by a jump (a tail call): the caller's function.
			out = append(out, profile.Frame{Location: where(frames[i+1].Func), Jump: true, Repeat: f.Repeat})
			continue
		}
		out = append(out, profile.Frame{Location: callSite(f.Ret, where), Repeat: f.Repeat})
	}
	return out, more
}

// sameFunction says whether two locations lie in one function.
func sameFunction(a, b profile.Location) bool {
	if a.Function == "" || b.Function == "" {
		return a.Function == b.Function && a.Module == b.Module && a.Addr == b.Addr
	}
	return a.Function == b.Function && a.Module == b.Module
}

// failureReason is the Exit.Reason of a run a system call stopped.
func failureReason(err error) profile.StopReason {
	var u *kernel.UnsupportedError
	if errors.As(err, &u) {
		return profile.StopUnsupported
	}
	return profile.StopError
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

// callSite names the return address ret by the function holding the call
// before it, as debuggers do (a call that ends a function returns to the
// start of the next), at the return address's offset.
func callSite(ret uint64, where func(uint64) profile.Location) profile.Location {
	loc := where(ret - 1)
	if loc.Function == "" {
		return where(ret)
	}
	loc.Addr, loc.Offset = ret, loc.Offset+1
	return loc
}
