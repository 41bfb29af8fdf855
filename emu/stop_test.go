package emu

import (
	"errors"
	"runtime"
	"testing"
	"time"
)

// callSpin is x86-64 code at 0x10000: `call spin` (a block of one
// instruction), then spin: `inc %rax; jmp spin` (a block of two) forever.
var callSpin = []byte{0xe8, 0x0b, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x48, 0xff, 0xc0, 0xeb, 0xfb}

func newSpinCPU(t *testing.T, attribution bool) *CPU {
	t.Helper()
	c, err := New(X86_64, Hooks{NewBlock: func(id uint32, addr uint64, size uint32) BlockInfo {
		if addr == 0x10000 {
			return BlockInfo{Instructions: 1, Func: 0x10000, End: EndCall}
		}
		return BlockInfo{Instructions: 2, Func: 0x10010}
	}}, Options{Attribution: attribution})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Map(0x10000, PageSize, ProtRead|ProtExec); err != nil {
		t.Fatal(err)
	}
	if err := c.Map(0x20000, PageSize, ProtRead|ProtWrite); err != nil {
		t.Fatal(err)
	}
	if err := c.Write(0x10000, callSpin); err != nil {
		t.Fatal(err)
	}
	c.SetReg(X86RSP, 0x20800)
	return c
}

// TestInterruptExact stops a spinning guest from another goroutine at
// random moments: the block table's executions of the loop equal the
// iterations the guest's own register counted, so the stop never falls
// between a block's hook and its instructions. Executed agrees with the
// table during and after the run.
func TestInterruptExact(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	stop := errors.New("stop")
	for i := 0; i < 40; i++ {
		attribution := i%2 == 1
		c := newSpinCPU(t, attribution)
		err := runInterrupted(c, time.Duration(i%7)*time.Millisecond, stop)
		if err != stop {
			t.Fatalf("Run returned %v, want the interrupt's reason", err)
		}
		var loop, insns uint64
		for _, b := range c.Blocks() {
			insns += b.Executions*uint64(b.Instructions) - b.Cut
			if b.Addr == 0x10010 {
				loop = b.Executions - b.Cut/2 // executions that ran
			}
		}
		if rax := c.Reg(X86RAX); loop != rax {
			t.Errorf("run %d: the loop block ran %d times by the table, %d by the guest", i, loop, rax)
		}
		if want := min(insns, 1) + 2*loop; insns != want || c.Executed() != insns {
			t.Errorf("run %d: %d instructions, Executed %d, want %d", i, insns, c.Executed(), want)
		}
		if attribution && loop > 0 {
			s := c.Stack()
			if len(s) != 2 || s[0] != (Frame{Func: 0x10010, Ret: 0x10005, Repeat: 1}) || s[1].Func != 0x10000 {
				t.Errorf("stack %+v", s)
			}
		}
		c.Close()
		c.Interrupt(stop) // after Close: nothing
		if c.Executed() != 0 {
			t.Error("Executed after Close")
		}
	}
}

// TestInterruptBeforeRun: a stop that arrives before the run is not lost.
func TestInterruptBeforeRun(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c := newSpinCPU(t, false)
	defer c.Close()
	stop := errors.New("stop")
	c.Interrupt(stop)
	if err := c.Run(0x10000, nil); err != stop || c.Executed() != 0 {
		t.Fatalf("Run = %v after %d instructions", err, c.Executed())
	}
}

// syscallLoop is x86-64 code at 0x10000: `inc %rax; syscall` (a block of
// two), then `jmp` back (a block of one). A stop that arrives during the
// system call hook is found between blocks, with the PC past the syscall.
var syscallLoop = []byte{0x48, 0xff, 0xc0, 0x0f, 0x05, 0xeb, 0xf9}

// newSyscallLoopCPU makes a CPU to run syscallLoop from 0x10000, with
// hook as its system call hook.
func newSyscallLoopCPU(t *testing.T, hook func(), opts Options) *CPU {
	t.Helper()
	c, err := New(X86_64, Hooks{
		NewBlock: func(id uint32, addr uint64, size uint32) BlockInfo {
			if addr == 0x10000 {
				return BlockInfo{Instructions: 2, Func: 0x10000}
			}
			return BlockInfo{Instructions: 1, Func: 0x10000}
		},
		Syscall: hook,
	}, opts)
	if err != nil {
		t.Fatal(err)
	}
	c.Map(0x10000, PageSize, ProtRead|ProtExec)
	c.Map(0x20000, PageSize, ProtRead|ProtWrite)
	c.Write(0x10000, syscallLoop)
	c.SetReg(X86RSP, 0x20800)
	return c
}

// TestInterruptAtSyscall stops a guest at random moments, often inside a
// system call hook: the first block's executions equal the guest's own
// count and the instructions add up.
func TestInterruptAtSyscall(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	stop := errors.New("stop")
	for i := 0; i < 40; i++ {
		var calls int
		c := newSyscallLoopCPU(t, func() {
			if calls++; calls%50 == 0 {
				time.Sleep(100 * time.Microsecond)
			}
		}, Options{Attribution: i%2 == 1})
		if err := runInterrupted(c, time.Duration(i%5)*time.Millisecond, stop); err != stop {
			t.Fatalf("Run returned %v", err)
		}
		var insns, first uint64
		for _, b := range c.Blocks() {
			insns += b.Executions*uint64(b.Instructions) - b.Cut
			if b.Addr == 0x10000 {
				first = b.Executions - b.Cut/2
			}
		}
		rax := c.Reg(X86RAX)
		if first != rax || insns < 2*rax || insns > 3*rax || uint64(calls) != rax {
			t.Errorf("run %d: %d instructions, first block %d times, %d system calls, guest counted %d", i, insns, first, calls, rax)
		}
		if insns != c.Executed() {
			t.Errorf("run %d: Executed %d, table %d", i, c.Executed(), insns)
		}
		c.Close()
	}
}

// runInterrupted runs c from 0x10000 and, from another goroutine after
// delay, reads Executed and asks it to stop every millisecond until Run
// returns; it returns Run's error.
func runInterrupted(c *CPU, delay time.Duration, stop error) error {
	return runInterruptedAt(c, 0x10000, delay, stop)
}

// runInterruptedAt is runInterrupted from pc.
func runInterruptedAt(c *CPU, pc uint64, delay time.Duration, stop error) error {
	done := make(chan struct{})
	go func() {
		time.Sleep(delay)
		for {
			c.Executed()
			c.Interrupt(stop)
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	defer close(done)
	return c.Run(pc, nil)
}

// TestSliceReplacesTranslatedCode: a counting loop runs to its end (a
// ud2) translated with the block hook that limits nothing; then SetSlice
// replaces the hook and the loop runs again, from a count that does not
// end. The code translated with the old hook must go with it (Unicorn is
// not told which blocks those are, hotpath.c: ic_set_block_hook): every
// later Run ends with ErrSliceEnd within the slice.
func TestSliceReplacesTranslatedCode(t *testing.T) {
	// loop: inc %rax; dec %rcx; jnz loop; ud2
	code := []byte{0x48, 0xff, 0xc0, 0x48, 0xff, 0xc9, 0x75, 0xf8, 0x0f, 0x0b}
	c := newCodeCPU(t, Hooks{NewBlock: func(id uint32, addr uint64, size uint32) BlockInfo {
		if addr == 0x10000 {
			return BlockInfo{Instructions: 3}
		}
		return BlockInfo{Instructions: 1}
	}}, Options{}, code)
	c.SetReg(X86RCX, 100)
	var f *Fault
	if err := c.Run(0x10000, nil); !errors.As(err, &f) {
		t.Fatalf("the loop of 100 ended with %v, want its ud2's fault", err)
	}
	if err := c.SetSlice(1000); err != nil {
		t.Fatal(err)
	}
	c.SetReg(X86RCX, 1<<40)
	pc := uint64(0x10000)
	for i := 0; i < 3; i++ {
		before := c.Executed()
		// Code the slice does not stop would run until this stops it.
		if err := runInterruptedAt(c, pc, 10*time.Second, errors.New("still running after 10 s")); err != ErrSliceEnd {
			t.Fatalf("run %d in slices returned %v, want ErrSliceEnd", i, err)
		}
		// 333 iterations of the loop's block of 3.
		if ran := c.Executed() - before; ran != 999 || c.Ran() != ran {
			t.Errorf("run %d in slices ran %d instructions (Ran %d), want 999", i, ran, c.Ran())
		}
		pc = c.PC()
	}
	if rax := c.Reg(X86RAX); rax != 100+3*333 {
		t.Errorf("the guest counted %d iterations, want %d", rax, 100+3*333)
	}
}
