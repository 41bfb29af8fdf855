package main

import (
	"debug/elf"
	"fmt"
	"strings"
	"testing"
)

// The instruction sites: instructions icount hooks where it first decodes
// them, to refuse, run or fix them as the hardware does (count/sites.go).
// Their exact counts are in testdata/amd64/privileged.S, intfix.S and
// testdata/arm64/privileged.S (TestExactCounts).

// TestSitesMatchNative runs the programs whose every result the hardware
// defines the same way natively and under icount: the integer fixes
// (cmpxchg r32, bsf and bsr r32, lock neg) over 300 inputs each, and every
// privileged instruction under a SIGSEGV handler (SI_KERNEL, trapno 13).
func TestSitesMatchNative(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		prog  string
		lines int
	}{
		{"sites/intfix-musl", 6601},
		{"sites/privileged-musl", 28},
	} {
		prog := testProgram(t, c.prog)
		want, status := runNative(t, t.TempDir(), nil, prog)
		if status != 0 || strings.Count(want, "\n") != c.lines {
			t.Fatalf("%s natively: status %d, %d lines, want 0 and %d", c.prog, status, strings.Count(want, "\n"), c.lines)
		}
		r := runIcount(t, nil, []string{"-q"}, prog)
		if hostVendor() == "AuthenticAMD" {
			// An AMD processor refuses sysexit in 64-bit mode as
			// undefined (#UD: SIGILL), where icount's CPU, as an Intel
			// one, raises a general protection fault (SIGSEGV): the
			// native line is held to what Intel's would be.
			lines := strings.SplitAfter(want, "\n")
			for i, l := range lines {
				if strings.HasPrefix(l, "sysexit  signal 4 ") {
					lines[i] = "sysexit  signal 11 code 0x80 addr 0 trapno 13 err 0 at the instruction: yes\n"
				}
			}
			want = strings.Join(lines, "")
		}
		if r.status != 0 || r.stdout != want {
			t.Errorf("%s: status %d, stdout differs from the native run:\n%s\nstderr:\n%s", c.prog, r.status, firstDiff(want, r.stdout), r.stderr)
		}
	}
}

// firstDiff shows the first line where got differs from want.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range w {
		if i >= len(g) {
			return "missing from line " + w[i]
		}
		if w[i] != g[i] {
			return "native: " + w[i] + "\nicount: " + g[i]
		}
	}
	return "extra lines"
}

// TestSitesAVX checks that no VEX- or EVEX-encoded instruction executes:
// the emulated CPU does not advertise AVX, so each is refused as such a
// CPU refuses it, with SIGILL (ILL_ILLOPN, trapno 6, at the instruction).
// This machine has AVX, so the runs are compared with what they must be.
func TestSitesAVX(t *testing.T) {
	t.Parallel()
	prog := testProgram(t, "sites/avx-glibc")
	r := runIcount(t, nil, []string{"-q"}, prog)
	// main's first instruction is the program's first VEX instruction (it
	// clears the register it converts argc into).
	wantErr := fmt.Sprintf("icount: SIGILL: `vxorps %%xmm0,%%xmm0,%%xmm0` at %#x (AVX family) is not supported by the emulated CPU; "+
		"build for x86-64-v1/v2 (no -mavx, -march=native), in main (avx-glibc)\n", symbolAddr(t, prog, "main"))
	if r.status != 132 || r.stdout != "" || !strings.HasPrefix(r.stderr, wantErr) {
		t.Errorf("avx-glibc: status %d, stdout %q, stderr:\n%s\nwant 132, nothing, and first\n%s", r.status, r.stdout, r.stderr, wantErr)
	}

	r = runIcount(t, nil, []string{"-q"}, testProgram(t, "sites/avxsig-musl"))
	var want strings.Builder
	for _, name := range []string{"vaddsd", "vxorps", "vmovsd", "vzeroupper", "vaddpd256", "vfmadd", "vpbroadcast", "andn", "evex", "segvex"} {
		want.WriteString(padRight(name, 12) + " signal 4 code 2 trapno 6 at the instruction: yes yes\n")
	}
	if r.status != 0 || r.stdout != want.String() {
		t.Errorf("avxsig-musl: status %d, stdout:\n%s\nwant 0 and\n%s\nstderr:\n%s", r.status, r.stdout, want.String(), r.stderr)
	}
	// Every instruction decoded, the count exact: the emulator's block
	// ends in the middle of an EVEX instruction it cannot translate.
	if r.profile == nil || len(r.profile.Warnings) != 0 {
		t.Errorf("avxsig-musl: warnings %q, want none", r.profile.Warnings)
	}
}

// symbolAddr returns the address of a symbol of an executable.
func symbolAddr(t *testing.T, path, name string) uint64 {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range syms {
		if s.Name == name {
			return s.Value
		}
	}
	t.Fatalf("%s has no symbol %s", path, name)
	return 0
}

func padRight(s string, n int) string {
	for len(s) < n {
		s += " "
	}
	return s
}

// TestFidelityWarnings checks that a run that executed an instruction with
// a known, unfixed difference from the hardware says so, naming it and how
// many times it ran: fpwarn reads the x87 status word 7 times.
func TestFidelityWarnings(t *testing.T) {
	t.Parallel()
	r := runIcount(t, nil, nil, testProgram(t, "sites/fpwarn-musl"))
	want := "`fnstsw` ran 7 times and may give another result than on hardware: it reads floating-point exception flags, of which the emulated CPU never sets the denormal-operand flag (DE), nor the x87's C1 for a result rounded up"
	if r.status != 0 || r.profile == nil {
		t.Fatalf("status %d, stderr:\n%s", r.status, r.stderr)
	}
	if w := r.profile.Warnings; len(w) != 1 || w[0] != want {
		t.Errorf("warnings %q, want [%q]", w, want)
	}
	if !strings.Contains(r.stderr, "icount: warning: "+want+"\n") {
		t.Errorf("stderr does not warn:\n%s", r.stderr)
	}
	// Nothing of the kind ran in intfix: no warning.
	if r := runIcount(t, nil, []string{"-q"}, testProgram(t, "sites/intfix-musl")); r.profile == nil || len(r.profile.Warnings) != 0 {
		t.Errorf("intfix-musl warnings %q, want none", r.profile.Warnings)
	}
}

// TestSitesInstructionLimit checks that --max-instructions N stops after
// exactly N instructions for every N through programs whose sites end
// blocks (lock neg, executed by its hook) and refuse instructions (under
// a handler), and where the limit falls in a block a fault cuts short
// (sigsegv: the limit must hold after the handler takes the fault).
func TestSitesInstructionLimit(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		prog  string
		total uint64
	}{
		{"amd64/intfix", 21}, {"amd64/privileged", 108}, {"amd64/sigsegv", 40}, {"arm64/privileged", 104},
	} {
		t.Run(c.prog, func(t *testing.T) {
			t.Parallel()
			prog := testProgram(t, c.prog)
			for n := uint64(1); n <= c.total; n++ {
				r := runIcount(t, nil, []string{"-q", "--max-instructions", fmt.Sprint(n)}, prog)
				if r.profile == nil || r.profile.Totals.Instructions != n {
					t.Errorf("%s --max-instructions %d: status %d, profile %v; stderr:\n%s", c.prog, n, r.status, r.profile != nil, r.stderr)
					if r.profile != nil {
						t.Errorf("counted %d", r.profile.Totals.Instructions)
					}
				}
			}
		})
	}
}

// TestSitesARM64SystemInstructions runs arm64 system instructions at EL0
// under a SIGILL handler, under icount and under qemu-aarch64 -cpu
// cortex-a72 (whose user mode runs at EL0): wfi and wfe return, the cache
// maintenance EL0 may do runs, and every other one is undefined there,
// with si_addr and the saved pc at the instruction. One difference is
// known: qemu's user mode sends si_code ILL_ILLOPN (2) for an undefined
// instruction, Linux ILL_ILLOPC (1) (arch/arm64/kernel/traps.c
// do_undefinstr), as icount does.
func TestSitesARM64SystemInstructions(t *testing.T) {
	t.Parallel()
	prog := testProgram(t, "sites/arm64/sysinsn-glibc")
	out, status := runJudge(t, nil, prog)
	if status != 0 {
		t.Fatalf("qemu-aarch64: status %d", status)
	}
	want := strings.ReplaceAll(string(out), " signal 4 code 2 ", " signal 4 code 1 ")
	if n := strings.Count(want, " signal 4 code 1 at the instruction: yes yes\n"); n != 17 || strings.Count(want, " ran\n") != 7 {
		t.Fatalf("qemu-aarch64: %d refused, want 17 of 24:\n%s", n, out)
	}
	r := runIcount(t, nil, []string{"-q"}, prog)
	if r.status != 0 || r.stdout != want {
		t.Errorf("status %d, stdout differs from qemu-aarch64's:\n%s\nstderr:\n%s", r.status, firstDiff(want, r.stdout), r.stderr)
	}
}

// TestFPModeWarnings checks that a run whose program sets MXCSR.DAZ, or
// unmasks FP exceptions, which the emulated CPU does not honour, says how
// many times: the CPU suite's SSE program loads DAZ in three of its eight
// MXCSR modes, and its trap program unmasks a zero divide and an invalid
// operation on the x87 and SSE (twice each).
func TestFPModeWarnings(t *testing.T) {
	t.Parallel()
	sse := runIcount(t, nil, []string{"-q"}, testProgram(t, "cpu/x86_sse-musl"))
	trap := runIcount(t, nil, []string{"-q"}, testProgram(t, "cpu/x86_trap-musl"))
	for _, c := range []struct {
		r    result
		want string
	}{
		{sse, "the program set MXCSR.DAZ (denormals are zero) "},
		{trap, "the program unmasked floating-point exceptions (in MXCSR 2 times, in the x87 control word 2 times): "},
	} {
		if c.r.profile == nil {
			t.Fatalf("no Profile; stderr:\n%s", c.r.stderr)
		}
		found := false
		for _, w := range c.r.profile.Warnings {
			found = found || strings.HasPrefix(w, c.want)
		}
		if !found {
			t.Errorf("no warning %q in %q", c.want, c.r.profile.Warnings)
		}
	}
}
