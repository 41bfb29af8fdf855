package emu

import "testing"

// TestRegs checks that Regs reads what Reg reads, register by register,
// on both arches, the values written with SetReg.
func TestRegs(t *testing.T) {
	for arch, regs := range map[Arch][]Reg{
		X86_64: {X86RAX, X86RDI, X86RSI, X86RDX, X86R10, X86R8, X86R9, X86MXCSR},
		ARM64:  {ARM64X(8), ARM64X(0), ARM64X(1), ARM64X(2), ARM64X(3), ARM64X(4), ARM64X(5), ARM64SP},
	} {
		c := newTestCPU(t, arch)
		for i, r := range regs {
			v := uint64(0x1111111111111111) * uint64(i+1)
			if r == X86MXCSR {
				v = 0x1f80
			}
			if err := c.SetReg(r, v); err != nil {
				t.Fatal(err)
			}
		}
		vals := make([]uint64, len(regs)+1)
		vals[len(regs)] = 42
		c.Regs(regs, vals)
		for i, r := range regs {
			if want := c.Reg(r); vals[i] != want {
				t.Errorf("%v register %d: Regs read %#x, Reg %#x", arch, r, vals[i], want)
			}
		}
		if vals[len(regs)] != 42 {
			t.Errorf("%v: Regs wrote past its registers", arch)
		}
	}
}
