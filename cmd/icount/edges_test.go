package main

// Linux's behaviour at the edges (issue 15): numbers with no call,
// standard descriptors closed, EFAULT and short counts, the private /tmp.

import (
	"fmt"
	"strings"
	"testing"

	"github.com/icount-dev/icount/emu"
	"github.com/icount-dev/icount/kernel"
)

// edgesPrograms are the builds of a program of testdata/c for the edge
// tests: amd64 musl- and glibc-static, arm64 glibc-static.
func edgesPrograms(name string) []string {
	return []string{"c/" + name + "-musl", "c/" + name + "-glibc", "arm64/c/" + name + "-glibc"}
}

// TestUnknownSyscallENOSYS runs testdata/c/enosys.c: numbers Linux has no
// call for (999, -1, a gap, nfsservctl, 1<<31, the upper half of the
// register set) are answered ENOSYS under icount as natively (under
// qemu-aarch64 for arm64); and a call Linux has but icount does not
// emulate (the first such row of the arch's table) still stops the run
// with status 125, naming it.
func TestUnknownSyscallENOSYS(t *testing.T) {
	for _, prog := range edgesPrograms("enosys") {
		t.Run(prog, func(t *testing.T) {
			bin := testProgram(t, prog)
			want, status := runJudge(t, nil, bin)
			if status != 0 || strings.Count(want, "Function not implemented") != 7 {
				t.Fatalf("judge: exit %d, output:\n%s", status, want)
			}
			r := runIcount(t, nil, nil, bin)
			if r.status != 0 || r.stdout != want {
				t.Fatalf("under icount: exit %d, output:\n%s\nwant:\n%s\nstderr:\n%s", r.status, r.stdout, want, r.stderr)
			}
			arch := emu.X86_64
			if strings.HasPrefix(prog, "arm64/") {
				arch = emu.ARM64
			}
			var missing *kernel.Syscall
			for _, sc := range kernel.SupportMatrix(arch) {
				if sc.Support == kernel.None {
					missing = &sc
					break
				}
			}
			if missing == nil {
				t.Skip("every call of the table is emulated")
			}
			r = runIcount(t, nil, nil, bin, fmt.Sprint(missing.Nr))
			named := fmt.Sprintf("system call %s (%d)", missing.Name, missing.Nr)
			if r.status != 125 || r.stdout != "" || !strings.Contains(r.stderr, named) {
				t.Fatalf("%s under icount: exit %d, stdout %q, stderr:\n%s", named, r.status, r.stdout, r.stderr)
			}
		})
	}
}
