package main

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestUnixSocketsRefused runs testdata/proc/unixsock.c's "inet" part
// (the families icount refuses on purpose; a native root makes them, so
// Linux is no judge of these; the rest of the program is compared with
// Linux by TestSyscallConformance), amd64 musl- and glibc-static and arm64
// glibc-static: each socket call is refused with EACCES.
func TestUnixSocketsRefused(t *testing.T) {
	t.Parallel()
	for _, prog := range []string{"proc/unixsock-musl", "proc/unixsock-glibc", "proc/arm64/unixsock-glibc"} {
		t.Run(prog, func(t *testing.T) {
			t.Parallel()
			r := runIcount(t, nil, nil, testProgram(t, prog), t.TempDir(), "inet")
			const refused = "socket AF_INET: EACCES\nsocket AF_INET6: EACCES\nsocket AF_NETLINK: EACCES\n"
			if r.status != 0 || r.stdout != refused {
				t.Fatalf("other families under icount: exit %d, output:\n%s\nwant:\n%s", r.status, r.stdout, refused)
			}
		})
	}
}

// TestUnixSocketsPython runs testdata/proc/unixsock.py (socket.socketpair
// between a parent and a forked child, datagrams, MSG_PEEK, MSG_DONTWAIT,
// multiprocessing's Pipe with a descriptor passed over it, send_fds and
// recv_fds, a subprocess given a socket with pass_fds) with Debian's
// python3 natively and under icount.
func TestUnixSocketsPython(t *testing.T) {
	t.Parallel()
	const py = "/usr/bin/python3"
	if _, err := exec.LookPath(py); err != nil {
		t.Fatal("/usr/bin/python3 is missing: make deps installs it")
	}
	script := "../../testdata/proc/unixsock.py"
	out, err := exec.Command(py, script).Output()
	if err != nil {
		t.Fatalf("native: %v", err)
	}
	r := runIcount(t, nil, nil, py, script)
	if r.status != 0 || r.stdout != string(out) {
		t.Fatalf("under icount: exit %d, output:\n%s\nwant:\n%s\nstderr:\n%s", r.status, r.stdout, out, r.stderr)
	}
}

// TestUnixSocketsGo runs testdata/go/unixnet (Go's net package: an
// abstract listener served by a goroutine through epoll, a datagram
// socket at a path) built for amd64 and arm64 under icount, twice, and
// wants the native amd64 build's output and the same counts.
func TestUnixSocketsGo(t *testing.T) {
	t.Parallel()
	native, status := runNative(t, t.TempDir(), nil, buildGo(t, "amd64", "./unixnet", false))
	if status != 0 || !strings.HasPrefix(native, "echo hello ") {
		t.Fatalf("native run: exit %d\n%s", status, native)
	}
	for _, arch := range goArches {
		t.Run(arch, func(t *testing.T) {
			t.Parallel()
			prog := buildGo(t, arch, "./unixnet", false)
			r := runIcountIn(t, t.TempDir(), nil, []string{"--fixed-clock"}, prog)
			if r.status != 0 || r.stdout != native {
				t.Fatalf("under icount: exit %d, output:\n%s\nwant:\n%s\nstderr:\n%s", r.status, r.stdout, native, r.stderr)
			}
			if d := sameRun(r, runIcountIn(t, t.TempDir(), nil, []string{"--fixed-clock"}, prog)); d != "" {
				t.Fatalf("a second run differs: %s", d)
			}
		})
	}
}

// cpythonUnixSocketTests are the classes of CPython's test_socket that test
// Unix sockets: pairs, stream sockets with names, sendmsg and recvmsg,
// SCM_RIGHTS.
var cpythonUnixSocketTests = []string{"BasicSocketPairTest", "RecvmsgIntoSCMRightsStreamTest",
	"RecvmsgIntoUnixStreamTest", "RecvmsgSCMRightsStreamTest", "RecvmsgUnixStreamTest",
	"SendmsgUnixStreamTest", "SocketPairTest", "TestUnixDomain", "UnixStreamBase"}

// TestUnixSocketsCPython runs those classes with Debian's python3 under
// icount and wants every test to pass, as natively.
func TestUnixSocketsCPython(t *testing.T) {
	t.Parallel()
	const py = "/usr/bin/python3"
	if _, err := os.Stat("/usr/lib/python3.11/test/test_socket.py"); err != nil {
		t.Fatal("CPython's tests are missing: install libpython3.11-testsuite (make deps does)")
	}
	args := []string{"-m", "unittest"}
	for _, c := range cpythonUnixSocketTests {
		args = append(args, "test.test_socket."+c)
	}
	native, err := exec.Command(py, args...).CombinedOutput()
	if err != nil || !strings.Contains(string(native), "\nOK") {
		t.Fatalf("native: %v\n%s", err, native)
	}
	r := runIcountIn(t, t.TempDir(), nil, nil, py, args...)
	ran := regexp.MustCompile(`Ran \d+ tests`)
	if r.status != 0 || ran.FindString(r.stderr) != ran.FindString(string(native)) || !strings.Contains(r.stderr, "\nOK") {
		t.Fatalf("under icount: exit %d\n%s\nnatively:\n%s", r.status, r.stderr, native)
	}
}
