package main

// Self-modifying and generated code: programs that write code into memory
// that is writable and executable at once, patch it while it runs, and run
// code on an executable stack, compared with outside judges. Their exact
// counts (smc_rwx.S of both arches) are checked by TestExactCounts*.

import (
	"strings"
	"testing"
)

// TestSelfModifyingCode runs each program under icount and natively (or
// under qemu-aarch64): stdout and exit status must be the same. A
// translation that outlived the code it was made from prints other sums
// (jit), exits with another status (smc_rwx), or faults (execstack, whose
// stack must be executable).
func TestSelfModifyingCode(t *testing.T) {
	t.Parallel()
	for _, prog := range []string{
		"amd64/smc_rwx", "amd64/smc_rwx-pie", "c/jit-musl", "c/jit-glibc",
		"c/execstack-musl", "c/execstack-glibc", "c/execstack-dynamic",
		"arm64/smc_rwx", "arm64/smc_rwx-pie", "arm64/c/jit-glibc",
		"arm64/c/execstack-glibc", "arm64/c/execstack-dynamic",
	} {
		t.Run(strings.ReplaceAll(prog, "/", "_"), func(t *testing.T) {
			t.Parallel()
			path := testProgram(t, prog)
			wantOut, wantStatus := runJudge(t, nil, path)
			r := runIcount(t, nil, nil, path)
			if r.stdout != wantOut || r.status != wantStatus {
				t.Errorf("icount: status %d, stdout:\n%s\nwant %d and\n%s\nstderr:\n%s", r.status, r.stdout, wantStatus, wantOut, r.stderr)
			}
		})
	}
}

// TestSelfModifyingCodeDeterministic checks that code patched under
// another thread's feet counts the same twice, per thread too.
func TestSelfModifyingCodeDeterministic(t *testing.T) {
	t.Parallel()
	for _, prog := range []string{"c/jit-glibc", "arm64/c/jit-glibc"} {
		a := runIcount(t, nil, nil, testProgram(t, prog))
		b := runIcount(t, nil, nil, testProgram(t, prog))
		if a.profile == nil || b.profile == nil {
			t.Fatalf("%s: no profile; stderr:\n%s", prog, a.stderr)
		}
		if a.profile.Totals != b.profile.Totals || len(a.profile.Threads) != 2 || len(b.profile.Threads) != 2 ||
			a.profile.Threads[0] != b.profile.Threads[0] || a.profile.Threads[1] != b.profile.Threads[1] {
			t.Errorf("%s: two runs differ: %+v %+v, threads %+v %+v", prog, a.profile.Totals, b.profile.Totals, a.profile.Threads, b.profile.Threads)
		}
	}
}
