package main

// Self-modifying and generated code: programs that write code into memory
// that is writable and executable at once, patch it while it runs, and run
// code on an executable stack, compared with outside judges. Their exact
// counts (smc_rwx.S of both arches) are checked by TestExactCounts*.

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
)

// judgeRun runs prog natively (amd64) or under qemu-aarch64 -cpu
// cortex-a72 with Debian's arm64 libraries (arm64), with an empty
// environment, and returns its stdout and exit status.
func judgeRun(t *testing.T, prog string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog)
	if strings.Contains(prog, "/arm64/") {
		cmd = exec.CommandContext(ctx, "qemu-aarch64", "-cpu", "cortex-a72", "-L", "/usr/aarch64-linux-gnu", prog)
	}
	cmd.Env = []string{}
	var out bytes.Buffer
	cmd.Stdout = &out
	err := cmd.Run()
	status := 0
	if ee, ok := err.(*exec.ExitError); ok {
		status = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", prog, err)
	}
	return out.String(), status
}

// TestSelfModifyingCode runs each program under icount and natively (or
// under qemu-aarch64): stdout and exit status must be the same. A
// translation that outlived the code it was made from prints other sums
// (jit), exits with another status (smc_rwx), or faults (execstack, whose
// stack must be executable).
func TestSelfModifyingCode(t *testing.T) {
	for _, prog := range []string{
		"amd64/smc_rwx", "amd64/smc_rwx-pie", "c/jit-musl", "c/jit-glibc",
		"c/execstack-musl", "c/execstack-glibc", "c/execstack-dynamic",
		"arm64/smc_rwx", "arm64/smc_rwx-pie", "arm64/c/jit-glibc",
		"arm64/c/execstack-glibc", "arm64/c/execstack-dynamic",
	} {
		t.Run(strings.ReplaceAll(prog, "/", "_"), func(t *testing.T) {
			path := testProgram(t, prog)
			wantOut, wantStatus := judgeRun(t, path)
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
