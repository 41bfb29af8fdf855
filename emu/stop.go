package emu

// #include "hotpath.h"
import "C"

import (
	"fmt"
	"runtime/debug"
	"sync"
)

// control is what other goroutines may do to a running CPU: stop it
// (Interrupt) and read how far it got (Executed). mu orders them against
// Close, so that neither touches a closed emulator.
type control struct {
	mu     sync.Mutex
	reason error // why Interrupt stopped the guest; the first reason wins
	// hold is set while the last block an instruction limit allows runs:
	// a stop then would end it between instructions, and the count of the
	// block cut short would be wrong. That block is short; the stop is
	// sent again by Interrupt's caller until Run returns.
	hold bool
}

// Interrupt stops the guest from any goroutine: the next block's hook
// stops the emulator before the block's first instruction, and Run returns
// reason. That block counts as one execution cut short with nothing run,
// as a block faulting at its first instruction does. A guest inside a
// system call stops when the call returns. The request can be lost to a
// race with the hook: call Interrupt again, with any reason, until Run
// returns.
//
// It does not use uc_emu_stop, which leaves it unknown whether the block
// whose hook ran last ran too: the emulator takes the stop at the start of
// the next block after its hook when blocks are chained, and before the
// hook when it returns to its loop between them.
func (c *CPU) Interrupt(reason error) {
	c.ctl.mu.Lock()
	defer c.ctl.mu.Unlock()
	if c.ctl.reason == nil {
		c.ctl.reason = reason
	}
	if c.st != nil && !c.ctl.hold {
		C.ic_ask_stop(c.st)
	}
}

// Interrupted returns the reason Interrupt gave, if any: the next Run
// returns it at once.
func (c *CPU) Interrupted() error { return c.interrupted() }

// interrupted returns the reason Interrupt gave, if any.
func (c *CPU) interrupted() error {
	c.ctl.mu.Lock()
	defer c.ctl.mu.Unlock()
	return c.ctl.reason
}

// stopped returns the reason Interrupt gave, if any, once the emulator
// stopped with no other cause. The stop is taken by a block's hook, which
// counts its block before the emulator stops ahead of the block's first
// instruction: that execution is taken back as cut short with nothing run.
func (c *CPU) stopped() error {
	if c.st.stop_hit == 0 {
		return nil
	}
	c.st.stop_hit = 0
	if c.st.cur != nil {
		C.ic_cut(c.st, c.st.cur.ninsn)
	}
	return c.interrupted()
}

// holdStops turns stops from other goroutines off (on) or back on (off);
// it reports whether one is pending.
func (c *CPU) holdStops(on bool) error {
	c.ctl.mu.Lock()
	defer c.ctl.mu.Unlock()
	c.ctl.hold = on
	return c.ctl.reason
}

// Executed returns the instructions executed so far, summed from the
// block table; any goroutine may call it while Run runs. The C side keeps
// the tables it outgrows until the CPU is closed, so the table read here
// stays valid memory even while the emulator grows it; the counters read
// may be a block behind.
func (c *CPU) Executed() uint64 {
	c.ctl.mu.Lock()
	defer c.ctl.mu.Unlock()
	if c.st == nil {
		return 0
	}
	var total uint64
	for b := range entries(c.st) {
		total += uint64(b.execs)*uint64(b.ninsn) - uint64(b.cut)
	}
	return total + uint64(c.st.outside_insns)
}

// PanicError is a Go panic raised inside icount while the guest ran (in a
// hook, or in what the caller runs between runs), caught so that the
// run's counts can still be reported: Run returns it, and the caller knows
// it for a bug in icount, not in the guest.
type PanicError struct {
	Value any    // what was passed to panic
	Stack []byte // the panicking goroutine's stack, from the panic on
}

func (e *PanicError) Error() string { return fmt.Sprintf("internal error: panic: %v", e.Value) }

// NewPanicError records a panic recovered in a deferred function, with
// the stack from where it was raised.
func NewPanicError(value any) *PanicError {
	return &PanicError{Value: value, Stack: debug.Stack()}
}

// takePanic returns, and forgets, the panic a hook raised during the run.
func (c *CPU) takePanic() error {
	p := c.panicked
	if p == nil {
		return nil
	}
	c.panicked = nil
	return p
}
