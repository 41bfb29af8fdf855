package emu

import "testing"

// TestFPFlags runs SSE and x87 arithmetic that raises exceptions on the
// emulated CPU and reads MXCSR and the x87 status word as icount does
// (a signal frame): each names the exceptions raised since it was last
// loaded, as on hardware, and loading clears them.
func TestFPFlags(t *testing.T) {
	if !FPFlagsKept() {
		t.Fatal("the FP exception flags are not found in Unicorn's CPU state")
	}
	// pxor %xmm1,%xmm1; divsd %xmm1,%xmm0 (1/0: ZE); fld1; fldz; fdivp
	// (1/0: ZE); syscall, whose hook stops the run.
	code := []byte{0x66, 0x0f, 0xef, 0xc9, 0xf2, 0x0f, 0x5e, 0xc1, 0xd9, 0xe8, 0xd9, 0xee, 0xde, 0xf9, 0x0f, 0x05}
	var c *CPU
	c = newCodeCPU(t, Hooks{
		NewBlock: func(id uint32, addr uint64, size uint32) BlockInfo { return BlockInfo{Instructions: 6} },
		Syscall:  func() { c.Stop() },
	}, Options{}, code)
	for _, r := range []struct {
		reg Reg
		v   uint64
	}{{X86CR4, c.Reg(X86CR4) | 1<<9 | 1<<10}, {X86MXCSR, 0x1f80}, {X86FPCW, 0x37f}} {
		if err := c.SetReg(r.reg, r.v); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.SetRegBytes(X86XMM(0), []byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f}); err != nil { // 1.0
		t.Fatal(err)
	}
	if err := c.Run(0x10000, nil); err != nil {
		t.Fatal(err)
	}
	if got := c.Reg(X86MXCSR); got != 0x1f84 {
		t.Errorf("MXCSR after 1.0/0.0: %#x, want 0x1f84 (ZE)", got)
	}
	if got := c.Reg(X86FPSW) &^ 0x3800; got != 0x4 {
		t.Errorf("FSW after 1/0 on the x87: %#x, want 0x4 (ZE; TOP aside)", got)
	}
	// Loading MXCSR and FSW forgets what was raised before.
	if err := c.SetReg(X86MXCSR, 0x1f80); err != nil {
		t.Fatal(err)
	}
	if err := c.SetReg(X86FPSW, 0); err != nil {
		t.Fatal(err)
	}
	if got := c.Reg(X86MXCSR); got != 0x1f80 {
		t.Errorf("MXCSR after a load of 0x1f80: %#x", got)
	}
	if got := c.Reg(X86FPSW); got != 0 {
		t.Errorf("FSW after a load of 0: %#x", got)
	}
}
