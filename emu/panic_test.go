package emu

import (
	"errors"
	"runtime"
	"strings"
	"testing"
)

// panickingSyscall panics in the 100th system call hook, as a bug in the
// kernel's emulation of a call would.
func panickingSyscall(calls *int) {
	if *calls++; *calls == 100 {
		var m map[string]int
		m["bug"]++ // a nil map: a runtime panic, not a deliberate one
	}
}

// TestHookPanic: a Go panic in a hook does not unwind through the
// emulator's C frames nor escape Run: Run returns an *PanicError holding
// the panic's value and the stack from the panicking hook on, the counts
// up to the hook stay readable, and the CPU runs again.
func TestHookPanic(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var calls int
	c := newSyscallLoopCPU(t, func() { panickingSyscall(&calls) }, Options{})
	defer c.Close()
	err := c.Run(0x10000, nil)
	var pe *PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("Run returned %v, want a *PanicError", err)
	}
	if msg := err.Error(); msg != "internal error: panic: assignment to entry in nil map" {
		t.Errorf("message %q", msg)
	}
	if s := string(pe.Stack); !strings.Contains(s, "emu.panickingSyscall(") || !strings.Contains(s, "panic(") {
		t.Errorf("the stack does not show the panicking hook:\n%s", s)
	}
	// 100 loops of `inc; syscall` (the 100th's hook panicked) and 99 jmps.
	if got := c.Executed(); got != 299 || c.Reg(X86RAX) != 100 {
		t.Errorf("%d instructions, rax %d; want 299 and 100", got, c.Reg(X86RAX))
	}
	// The panic was taken, not left to be raised again: the next run goes
	// on until it is interrupted.
	calls = -1 << 30
	stop := errors.New("stop")
	if err := runInterrupted(c, 0, stop); err != stop {
		t.Errorf("the next Run returned %v", err)
	}
}
