package emu

import (
	"errors"
	"testing"
)

// TestEngineRunsAsNew runs a program on a CPU made from a prepared engine,
// on both architectures: its result and its count are a new CPU's, the
// registers it starts with are a new CPU's, and the engine serves one
// CPU only.
func TestEngineRunsAsNew(t *testing.T) {
	for _, p := range []*spareProgram{x86Add(40), arm64Add(40)} {
		e := Prepare(p.arch)
		t.Cleanup(e.Close)
		if e.Fits(p.arch, Options{CodeBuffer: 64 << 20}) {
			t.Errorf("%v: an engine fits another translation buffer than the default", p.arch)
		}
		other := ARM64
		if p.arch == ARM64 {
			other = X86_64
		}
		if e.Fits(other, Options{}) {
			t.Errorf("%v: an engine fits %v", p.arch, other)
		}
		if !e.Fits(p.arch, Options{Attribution: true}) {
			t.Fatalf("%v: an engine does not fit its own architecture", p.arch)
		}
		fresh := newTestCPU(t, p.arch)
		var c *CPU
		c, err := e.CPU(p.hooks(&c), Options{Attribution: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		regs := []Reg{X86RAX, X86RBX, X86RCX, X86RSP, X86RIP, X86EFLAGS, X86FSBase, X86MXCSR, X86FPCW, X86FPSW, X86FPTAG}
		if p.arch == ARM64 {
			regs = []Reg{ARM64X(0), ARM64X(1), ARM64X(30), ARM64SP, ARM64PC, ARM64NZCV, ARM64TPIDR, ARM64CPACR, ARM64FPSR, ARM64FPCR}
		}
		for _, r := range regs {
			if got, want := c.Reg(r), fresh.Reg(r); got != want {
				t.Errorf("%v: register %d at start: %#x, want %#x as on a new CPU", p.arch, r, got, want)
			}
		}
		p.load(t, c)
		if err := c.Run(0x10000, p.locate); err != nil {
			t.Fatal(err)
		}
		result := X86RAX
		if p.arch == ARM64 {
			result = ARM64X(0)
		}
		if got := c.Reg(result); got != 42 {
			t.Errorf("%v: result %d, want 42", p.arch, got)
		}
		if got := executed(c); got != 3 {
			t.Errorf("%v: %d instructions counted, want 3", p.arch, got)
		}
		var again *CPU
		if _, err := e.CPU(p.hooks(&again), Options{}); !errors.Is(err, errUsedUp) {
			t.Errorf("%v: a second CPU from one engine: %v, want %v", p.arch, err, errUsedUp)
		}
	}
}

// TestEngineClosedUnused closes engines never made a CPU, one of them
// before it is ready, and a nil one.
func TestEngineClosedUnused(t *testing.T) {
	Prepare(X86_64).Close()
	e := Prepare(ARM64)
	e.Close()
	e.Close()
	var none *Engine
	none.Close()
	if none.Fits(X86_64, Options{}) {
		t.Error("a nil engine fits")
	}
}
