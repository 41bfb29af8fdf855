package emu

import (
	"runtime"
	"testing"
)

// TestTLBFloor checks, on both architectures, that the emulator's TLB is
// found where tlbsize.c looks for it in Unicorn's CPU object, and that
// flushes grow it to the floor and keep it there, although the program
// uses one page: each flush after the TLB was filled doubles it, from
// QEMU's 256 entries to 1,024 on x86-64 and 4,096 on arm64, where QEMU's
// own sizing would shrink it to 64 once 100 ms have passed.
func TestTLBFloor(t *testing.T) {
	runtime.LockOSThread() // the flushes and the view are this thread's
	defer runtime.UnlockOSThread()
	for _, tc := range []struct {
		p     *spareProgram
		floor int
	}{{x86Add(40), 1024}, {arm64Add(40), 4096}} {
		c, err := spareRun(t, tc.p, nil, 0x10000, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for round := 0; round < 6; round++ {
			// Taking execution away flushes the TLB; giving it back does not.
			if err := c.Protect(0x10000, PageSize, ProtRead); err != nil {
				t.Fatal(err)
			}
			if got := tlbEntries(); got == 0 {
				t.Fatalf("%v: the TLB's layout was not found in the CPU object (tlbsize.c): has Unicorn changed?", tc.p.arch)
			}
			if err := c.Protect(0x10000, PageSize, ProtRead|ProtExec); err != nil {
				t.Fatal(err)
			}
			if err := c.Run(0x10000, tc.p.locate); err != nil {
				t.Fatal(err)
			}
		}
		if got := tlbEntries(); got != tc.floor {
			t.Errorf("%v: the TLB has %d entries after 6 flushes, want the floor, %d", tc.p.arch, got, tc.floor)
		}
	}
}
