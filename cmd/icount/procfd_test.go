package main

// /proc/PID/fd and /proc/PID/task list the guest's descriptors and threads
// (kernel/procfd.go): Python's subprocess reads fd in a child to close
// what it must not pass on.

import "testing"

// TestProcFDSubprocess checks that Python's subprocess, which closes a
// child's descriptors by listing /proc/self/fd, passes on only what it
// means to: the child sees the descriptors it sees natively.
func TestProcFDSubprocess(t *testing.T) {
	t.Parallel()
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
