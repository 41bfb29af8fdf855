package main

// The file-system calls of kernel/sys_fsops.go (rename, link, symlink,
// rmdir, creat, mknod, chmod, chown, the timestamps, close_range), which
// make with gcc, git and Python's subprocess need (issue 14).

import (
	"strings"
	"testing"
)

// TestFsops runs testdata/c/fsops.c (every call of kernel/sys_fsops.go,
// with what succeeds and the errors Linux gives) in a new directory, built
// musl- and glibc-static for amd64 and glibc-static for arm64: under
// icount it prints, line for line, what it prints natively (under
// qemu-aarch64 for arm64), where it runs as uid 1000 as icount's guest
// does, and exits 0.
func TestFsops(t *testing.T) {
	sameAsLinux(t, []string{"c/fsops-musl", "c/fsops-glibc", "arm64/c/fsops-glibc"}, func(out string) bool {
		return strings.HasSuffix(out, "close_range 1st..1st: ok\n  fd 0: EBADF\n") && strings.Count(out, "\n") >= 200
	})
}

// sameAsLinux runs each of progs (builds of a conformance program) as its
// judge runs it, natively as uid 1000 or under qemu-aarch64, which must
// exit 0 with output judged says is whole; then under icount in a new
// directory, which must print exactly that and exit 0.
func sameAsLinux(t *testing.T, progs []string, judged func(out string) bool) {
	for _, prog := range progs {
		t.Run(prog, func(t *testing.T) {
			bin := testProgram(t, prog)
			want, status := runJudge(t, nil, bin)
			if status != 0 || !judged(want) {
				t.Fatalf("judge: exit %d, output:\n%s", status, want)
			}
			r := runIcount(t, nil, nil, bin, t.TempDir())
			if r.status != 0 || r.stdout != want {
				t.Fatalf("under icount: exit %d, output:\n%s\nwant:\n%s\nstderr:\n%s", r.status, r.stdout, want, r.stderr)
			}
		})
	}
}
