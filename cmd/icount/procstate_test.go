package main

// The guest's /proc state and machine files and its /etc/passwd
// (kernel/procstatus.go, procsys.go, idfiles.go): what they say agrees
// with the system calls, as on Linux (testdata/c/procstate.c, in
// TestSyscallConformance); nothing of icount's own process or
// of the host's other processes shows through; and they read the same on
// every run.

import (
	"strings"
	"testing"
)

// TestProcStrangers checks that the guest sees no host process: not the
// host's pid 1, nor icount's own process behind /proc/self, nor the
// host's processes in a listing of /proc (which lists the shell and the
// three of its pipeline), nor the host's inode of a pipe, and that the
// files it is given read the same on every run under --fixed-clock.
func TestProcStrangers(t *testing.T) {
	t.Parallel()
	const script = `cat /proc/1/comm; ls /proc/1 >/dev/null; echo "self: $(readlink /proc/self)";
grep -E '^(Name|Pid|PPid|Uid|Threads):' /proc/self/status; cut -d' ' -f1-6 /proc/self/stat;
cat /proc/self/comm /proc/uptime /proc/loadavg; head -2 /proc/meminfo; cat /proc/self/fdinfo/0; cat /proc/$$/io
readlink /proc/self/fd/1; echo pids: $(ls /proc | grep -E '^[0-9]+$')`
	var first string
	for run := 0; run < 2; run++ {
		r := runIcountIn(t, t.TempDir(), nil, []string{"--fixed-clock"}, "/bin/sh", "-c", script)
		want := "self: 1003\nName:\tgrep\nPid:\t1004\nPPid:\t1000\nUid:\t1000\t1000\t1000\t1000\nThreads:\t1\n" +
			"1005 (cut) R 1000 1000 1000\ncat\n"
		if !strings.HasPrefix(r.stdout, want) || !strings.Contains(r.stderr, "cat: /proc/1/comm: No such file or directory") ||
			!strings.Contains(r.stderr, "ls: cannot access '/proc/1': No such file or directory") ||
			!strings.Contains(r.stderr, "cat: /proc/self/fdinfo/0: No such file or directory") ||
			!strings.Contains(r.stderr, "cat: /proc/1000/io: No such file or directory") ||
			!strings.Contains(r.stdout, "MemTotal:        4194304 kB\nMemFree:         2097152 kB\n") ||
			!strings.HasSuffix(r.stdout, "pipe:[5]\npids: 1000 1011 1012 1013\n") {
			t.Fatalf("exit %d, output:\n%s\nwant it to begin:\n%s\nstderr:\n%s", r.status, r.stdout, want, r.stderr)
		}
		if run == 0 {
			first = r.stdout
		} else if r.stdout != first {
			t.Fatalf("second run read otherwise:\n%s\nfirst:\n%s", r.stdout, first)
		}
	}
}

// TestIdentityNames checks that the host user running icount, whom the
// guest sees as uid 1000, is named as natively: `id -un`, `whoami` and
// the owner `ls -l` shows of a file the user owns.
func TestIdentityNames(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const script = `id -un; id -gn; whoami; touch f; ls -l f | cut -d' ' -f3,4; id -u`
	want, status := runNative(t, dir, nil, "/bin/sh", "-c", script)
	if status != 0 {
		t.Fatalf("native: exit %d, output:\n%s", status, want)
	}
	want = want[:strings.LastIndexByte(strings.TrimSuffix(want, "\n"), '\n')+1] + "1000\n" // the guest's uid
	r := runIcountIn(t, t.TempDir(), nil, nil, "/bin/sh", "-c", script)
	if r.status != 0 || r.stdout != want {
		t.Fatalf("under icount: exit %d, output:\n%s\nwant:\n%s\nstderr:\n%s", r.status, r.stdout, want, r.stderr)
	}
}
