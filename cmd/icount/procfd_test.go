package main

// /proc/PID/fd and /proc/PID/task list the guest's descriptors and threads
// (kernel/procfd.go): Python's subprocess reads fd in a child to close
// what it must not pass on; /proc/PID/status shows the guest's identity,
// threads and signal state (kernel/procstatus.go).

import (
	"strings"
	"testing"
)

// TestProcFD runs testdata/c/procfd.c (listings of /proc/self/fd by
// readdir and by getdents64 in pieces, after a close and a rewind, lseek
// on the directory, its own link, its errors, a forked child's own; and of
// /proc/self/task with one thread and two), built musl- and glibc-static
// for amd64 and glibc-static for arm64: under icount it prints what it
// prints natively. The arm64 build is held to the amd64 glibc build's
// native output, which it prints alike: qemu-aarch64 lists a thread of its
// own in /proc/self/task.
func TestProcFD(t *testing.T) {
	for _, prog := range []string{"c/procfd-musl", "c/procfd-glibc", "arm64/c/procfd-glibc"} {
		t.Run(prog, func(t *testing.T) {
			bin := testProgram(t, prog)
			judge := bin
			if strings.HasPrefix(prog, "arm64/") {
				judge = testProgram(t, "c/procfd-glibc")
			}
			want, status := runJudge(t, nil, judge)
			if status != 0 || !strings.Contains(want, "opened: 2 dot directories, descriptors 0 1 2 3 4 5 6 9\n") {
				t.Fatalf("judge: exit %d, output:\n%s", status, want)
			}
			r := runIcount(t, nil, nil, bin)
			if r.status != 0 || r.stdout != want {
				t.Fatalf("under icount: exit %d, output:\n%s\nwant:\n%s\nstderr:\n%s", r.status, r.stdout, want, r.stderr)
			}
		})
	}
}

// TestProcStatus runs testdata/c/procstatus.c (/proc/PID/status's identity,
// thread, signal and capability lines as a process starts, after it
// changes its umask, dispositions and mask and makes a thread, and as its
// child sees it waiting), built musl- and glibc-static for amd64, each
// held to its native run as uid 1000, and glibc-static for arm64, held to
// the amd64 glibc build's (qemu-aarch64 catches signals of its own).
func TestProcStatus(t *testing.T) {
	for _, prog := range []string{"c/procstatus-musl", "c/procstatus-glibc", "arm64/c/procstatus-glibc"} {
		t.Run(prog, func(t *testing.T) {
			judge := testProgram(t, strings.TrimPrefix(prog, "arm64/"))
			want, status := runJudge(t, nil, judge)
			if status != 0 || !strings.Contains(want, "  SigIgn:\t0000000000001000\n") {
				t.Fatalf("judge: exit %d, output:\n%s", status, want)
			}
			r := runIcountIn(t, t.TempDir(), nil, []string{"-q"}, testProgram(t, prog))
			if r.status != 0 || r.stdout != want {
				t.Fatalf("under icount: exit %d, output:\n%s\nwant:\n%s\nstderr:\n%s", r.status, r.stdout, want, r.stderr)
			}
		})
	}
}

// TestProcFDSubprocess checks that Python's subprocess, which closes a
// child's descriptors by listing /proc/self/fd, passes on only what it
// means to: the child sees the descriptors it sees natively.
func TestProcFDSubprocess(t *testing.T) {
	const script = `import os, subprocess
os.closerange(3, 1024)  # only the standard descriptors, whatever the judge inherited
r, w = os.pipe()
keep = os.open("/dev/null", os.O_RDONLY)
os.set_inheritable(keep, True)
print(subprocess.run(["/bin/ls", "/proc/self/fd"], capture_output=True, text=True, pass_fds=[keep]).stdout.split())
print(subprocess.run(["/bin/ls", "/proc/self/fd"], capture_output=True, text=True, close_fds=False).stdout.split())
`
	want, status := runNative(t, t.TempDir(), nil, "/usr/bin/python3", "-c", script)
	if status != 0 {
		t.Fatalf("native: exit %d, output:\n%s", status, want)
	}
	r := runIcount(t, nil, nil, "/usr/bin/python3", "-c", script)
	if r.status != 0 || r.stdout != want {
		t.Fatalf("under icount: exit %d, output:\n%s\nwant:\n%s\nstderr:\n%s", r.status, r.stdout, want, r.stderr)
	}
}
