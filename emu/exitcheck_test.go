package emu

import "testing"

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
