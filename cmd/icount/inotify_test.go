package main

// The last calls icount stopped at (issue 15): inotify, openat2,
// sendmmsg, recvmmsg, vmsplice and the old calls Linux keeps for old
// programs (kernel/sys_inotify.go, sys_openat2.go, sys_unixmmsg.go,
// sys_vmsplice.go, sys_legacy.go): file watchers, libuv, systemd's tools,
// Go's os.Root and container runtimes make them.

import (
	"strings"
	"testing"
)

// TestInotify runs testdata/c/inotify.c (instances, watches, the events
// file operations queue, blocking and non-blocking reads, a buffer too
// small, FIONREAD, poll and epoll, the errors Linux gives) in a new
// directory, built musl- and glibc-static for amd64 and glibc-static for
// arm64: under icount it prints, line for line, what it prints natively
// (under qemu-aarch64 for arm64), and exits 0.
func TestInotify(t *testing.T) {
	sameAsLinux(t, []string{"c/inotify-musl", "c/inotify-glibc", "arm64/c/inotify-glibc"}, func(out string) bool {
		return strings.Contains(out, "a blocking read, the child's rename: read 4096: 64 bytes\n") &&
			strings.HasSuffix(out, "delete, blocking again: read 4096: 64 bytes\n  wd 1 DELETE cookie #0 len 16 name \"fourth\"\n  wd 1 DELETE cookie #0 len 16 name \"file\"\n") &&
			strings.Count(out, "\n") >= 80
	})
}

// TestOpenat2 runs testdata/c/openat2.c (open_how's sizes, the flags,
// modes and resolve flags Linux rejects and in what order, lookups with
// each resolve flag, in the working directory and in /tmp) likewise. The
// arm64 build is held to the amd64 glibc build's native output, which it
// prints alike: qemu-aarch64 7.2 has no openat2 (ENOSYS).
func TestOpenat2(t *testing.T) {
	heldToAMD64(t, "openat2", func(out string) bool {
		return strings.HasSuffix(out, "unlink f: ok\n") && strings.Count(out, "\n") >= 54
	}, "")
}

// TestOldCalls runs testdata/c/oldcalls.c (uselib, modify_ldt,
// set_thread_area and get_thread_area on amd64; remap_file_pages and
// restart_syscall on both) likewise. The arm64 build is held to the part
// of the amd64 glibc build's native output it prints (from
// remap_file_pages on): qemu-aarch64 answers ENOSYS to both calls.
func TestOldCalls(t *testing.T) {
	heldToAMD64(t, "oldcalls", func(out string) bool {
		return strings.Contains(out, "modify_ldt read default: 128\n") && strings.HasSuffix(out, "restart_syscall: EINTR\n")
	}, "remap_file_pages private:")
}

// heldToAMD64 runs the builds of the conformance program prog (musl- and
// glibc-static for amd64, glibc-static for arm64) under icount in a new
// directory, each of which must print what the amd64 build prints
// natively (judged says its output is whole) and exit 0: the arm64 build
// what the amd64 glibc build prints from the line starting with from on
// ("" for all of it).
func heldToAMD64(t *testing.T, prog string, judged func(out string) bool, from string) {
	for _, build := range []string{"c/" + prog + "-musl", "c/" + prog + "-glibc", "arm64/c/" + prog + "-glibc"} {
		t.Run(build, func(t *testing.T) {
			bin := testProgram(t, build)
			arm64 := strings.HasPrefix(build, "arm64/")
			judge := bin
			if arm64 {
				judge = testProgram(t, "c/"+prog+"-glibc")
			}
			want, status := runJudge(t, nil, judge)
			if status != 0 || !judged(want) {
				t.Fatalf("judge: exit %d, output:\n%s", status, want)
			}
			if i := strings.Index(want, from); arm64 && i >= 0 {
				want = want[i:]
			}
			r := runIcount(t, nil, nil, bin, t.TempDir())
			if r.status != 0 || r.stdout != want {
				t.Fatalf("under icount: exit %d, output:\n%s\nwant:\n%s\nstderr:\n%s", r.status, r.stdout, want, r.stderr)
			}
		})
	}
}

// TestMmsgVmsplice runs testdata/c/mmsg.c (sendmmsg and recvmmsg on Unix
// datagram and stream sockets: several messages a call, msg_len,
// MSG_WAITFORONE, recvmmsg's timeout (amd64: qemu-aarch64 ignores it), a
// first message that waits for a child's, short counts,
// errors; vmsplice from a pipe and into one with SPLICE_F_GIFT, how its
// buffers fill, its waits and errors) like TestInotify.
func TestMmsgVmsplice(t *testing.T) {
	sameAsLinux(t, []string{"c/mmsg-musl", "c/mmsg-glibc", "arm64/c/mmsg-glibc"}, func(out string) bool {
		return strings.Contains(out, "vmsplice 20 pieces of 10 bytes (GIFT): 160\n") && strings.HasSuffix(out, "done: ok\n") &&
			strings.Count(out, "\n") >= 45
	})
}
