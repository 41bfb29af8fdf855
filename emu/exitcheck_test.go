package emu

import (
	"errors"
	"strings"
	"testing"
)

// TestExitChecksSkipped checks, on both architectures, that the flag that
// keeps Unicorn from testing for an exit request after a translated load
// or store is found where exitcheck.c reads it from check_exit_request's
// code, and that setting it around the translator's calls removes the
// test: on a bare engine, the instruction after a store that asks the CPU
// to exit runs.
func TestExitChecksSkipped(t *testing.T) {
	for _, arch := range []Arch{X86_64, ARM64} {
		skipped, ok := exitChecksSkipped(arch)
		if !ok {
			t.Fatalf("%v: the bare engine did not stop at the store with UC_ERR_WRITE_UNMAPPED", arch)
		}
		if !skipped {
			t.Errorf("%v: the test of an exit request follows a translated store: check_exit_request's code is not what exitcheck.c reads (has Unicorn changed?)", arch)
		}
	}
}

// TestDroppedStoreStops makes the emulator's store helper drop a store,
// which icount's memory never lets it do, and checks that the run stops
// with icount's error, not with a fault the guest could take: the block
// ran on past the store (its next instruction set RCX), so the guest's
// state is not what a CPU would have.
func TestDroppedStoreStops(t *testing.T) {
	// mov %al, (%rdi); mov $1, %ecx; jmp to the next block; ud2
	c := newCodeCPU(t, Hooks{NewBlock: func(id uint32, addr uint64, size uint32) BlockInfo {
		if addr == 0x10000 {
			return BlockInfo{Instructions: 3}
		}
		return BlockInfo{Instructions: 1}
	}}, Options{}, []byte{0x88, 0x07, 0xb9, 0x01, 0x00, 0x00, 0x00, 0xeb, 0x00, 0x0f, 0x0b})
	const data = 0x7fff_f000_0000
	if err := c.Map(data, PageSize, ProtRead|ProtWrite); err != nil {
		t.Fatal(err)
	}
	if err := c.withholdWrites(data); err != nil {
		t.Fatal(err)
	}
	if err := c.SetReg(X86RDI, data); err != nil {
		t.Fatal(err)
	}
	if err := c.SetReg(X86RAX, 0x5a); err != nil {
		t.Fatal(err)
	}
	err := c.Run(0x10000, nil)
	var f *Fault
	var ue *Error
	if err == nil || errors.As(err, &f) || !errors.As(err, &ue) {
		t.Fatalf("the run ended with %v (%T), want icount's error around Unicorn's", err, err)
	}
	if !strings.Contains(err.Error(), "never gives it") {
		t.Errorf("the error does not say what happened: %v", err)
	}
	b := make([]byte, 1)
	if err := c.Read(data, b); err != nil || b[0] != 0 {
		t.Errorf("the byte stored: %#x (%v), want 0: the store was not dropped, so the test proves nothing", b[0], err)
	}
	if rcx := c.Reg(X86RCX); rcx != 1 {
		t.Errorf("RCX %d: the block stopped at the dropped store, so the exit test is back (exitcheck.c)", rcx)
	}
}
