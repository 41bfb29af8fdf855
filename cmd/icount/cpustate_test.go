package main

// The CPU state a program starts with, and what the kernel's side of the
// CPU does (issue 13): the FPU control word, MXCSR and RFLAGS at entry,
// fxsave and fxrstor of the SSE state, RCX and R11 after a syscall,
// repeated divide errors (each one a SIGFPE), and on arm64 AT_HWCAP and
// the ID registers Linux lets a program read. Each build prints what it
// sees; icount's output must be the native run's (x86-64) or
// qemu-aarch64's (arm64), an outside judge of both.

import (
	"os/exec"
	"testing"
)

// arm64Sysroot is where Debian's cross packages put the arm64 libraries,
// for qemu-aarch64 -L (icount's own default --sysroot for arm64).
const arm64Sysroot = "/usr/aarch64-linux-gnu"

// runQemu runs an arm64 program under qemu-aarch64 as a Cortex-A72, with
// an empty environment, and returns its stdout and exit status.
func runQemu(t *testing.T, dir string, prog string, args ...string) (string, int) {
	t.Helper()
	qemu, err := exec.LookPath("qemu-aarch64")
	if err != nil {
		t.Fatal("qemu-aarch64 is missing: make deps installs qemu-user")
	}
	cmd := exec.Command(qemu, append([]string{"-cpu", "cortex-a72", "-L", arm64Sysroot, prog}, args...)...)
	cmd.Dir, cmd.Env = dir, []string{}
	out, err := cmd.Output()
	status := 0
	if ee, ok := err.(*exec.ExitError); ok {
		status = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("qemu-aarch64 %s: %v", prog, err)
	}
	return string(out), status
}

func TestCPUState(t *testing.T) {
	for _, build := range []string{"c/cpustate-musl", "c/cpustate-glibc", "c/cpustate-dynamic",
		"arm64/c/cpustate-glibc", "arm64/c/cpustate-dynamic"} {
		t.Run(build, func(t *testing.T) {
			prog := testProgram(t, build)
			var want string
			var status int
			if build[:5] == "arm64" {
				want, status = runQemu(t, t.TempDir(), prog)
			} else {
				want, status = runNative(t, t.TempDir(), nil, prog)
			}
			if status != 0 {
				t.Fatalf("outside run: status %d", status)
			}
			got := runIcount(t, nil, nil, prog)
			if got.status != 0 || got.stdout != want {
				t.Errorf("icount: status %d, stdout\n%s\nwant\n%s\nstderr: %s", got.status, got.stdout, want, got.stderr)
			}
		})
	}
}
