package main

// Linux's behaviour at the edges (issue 15): numbers with no call,
// standard descriptors closed, EFAULT and short counts, the private /tmp,
// the sysroot looked up first.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icount-dev/icount/profile"
)

// edgesPrograms are the builds of a program of testdata/c for the edge
// tests: amd64 musl- and glibc-static, arm64 glibc-static.
func edgesPrograms(name string) []string {
	return []string{"c/" + name + "-musl", "c/" + name + "-glibc", "arm64/c/" + name + "-glibc"}
}

// runClosed runs argv with standard descriptor fd closed (by a shell's
// exec, as Go's os/exec would open /dev/null there) in a new directory,
// as the test's user, and returns its exit status and stderr.
func runClosed(t *testing.T, fd int, argv ...string) (int, string) {
	t.Helper()
	script := fmt.Sprintf(`exec %d>&-; exec "$@"`, fd)
	cmd := exec.Command("/bin/sh", append([]string{"-c", script, "sh"}, argv...)...)
	cmd.Dir = t.TempDir()
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), errb.String()
	} else if err != nil {
		t.Fatalf("%v: %v", argv, err)
	}
	return 0, errb.String()
}

// TestClosedStdio runs testdata/c/stdfds.c with each of 0, 1, 2 closed,
// natively and under icount: the program finds the same descriptors
// closed (EBADF for fcntl, read and write) and open, and its open, dup and
// next open take the same numbers (the closed one first), in its report
// file. The arm64 build is held to the amd64 glibc build's native report
// (qemu-aarch64 opens files of its own in the free slot). icount itself
// started without stderr still ends as it should: a stop exits 125 and
// writes its Profile.
func TestClosedStdio(t *testing.T) {
	t.Parallel()
	native := testProgram(t, "c/stdfds-glibc")
	for fd := 0; fd < 3; fd++ {
		wantPath := filepath.Join(t.TempDir(), "report")
		if status, stderr := runClosed(t, fd, native, wantPath); status != 0 {
			t.Fatalf("fd %d closed natively: exit %d, stderr:\n%s", fd, status, stderr)
		}
		want, err := os.ReadFile(wantPath)
		if err != nil || !bytes.Contains(want, []byte(fmt.Sprintf("fd %d: F_GETFD EBADF, read 0 bytes EBADF, write 0 bytes EBADF\n", fd))) ||
			!bytes.Contains(want, []byte(fmt.Sprintf("open: %d, dup: 3, open /dev/null: 4\n", fd))) {
			t.Fatalf("fd %d closed natively: %v, report:\n%s", fd, err, want)
		}
		for _, prog := range edgesPrograms("stdfds") {
			if !strings.HasPrefix(prog, "arm64/") {
				p := filepath.Join(t.TempDir(), "report")
				if status, stderr := runClosed(t, fd, testProgram(t, prog), p); status != 0 {
					t.Fatalf("%s, fd %d closed natively: exit %d, stderr:\n%s", prog, fd, status, stderr)
				}
				if got, _ := os.ReadFile(p); !bytes.Equal(got, want) {
					t.Fatalf("%s, fd %d closed natively:\n%s\nwant (glibc):\n%s", prog, fd, got, want)
				}
			}
			p := filepath.Join(t.TempDir(), "report")
			status, stderr := runClosed(t, fd, icountBin, "run", "-q", testProgram(t, prog), p)
			got, _ := os.ReadFile(p)
			if status != 0 || !bytes.Equal(got, want) {
				t.Fatalf("%s, fd %d closed, under icount: exit %d, report:\n%s\nwant:\n%s\nstderr:\n%s", prog, fd, status, got, want, stderr)
			}
		}
	}
	// A run stopped by a form of a call icount does not emulate
	// (amd64/unsupported: openat2 with a scoped lookup of /proc) keeps its
	// Profile with stderr closed too.
	jsonPath := filepath.Join(t.TempDir(), "profile.json")
	status, _ := runClosed(t, 2, icountBin, "run", "--json", jsonPath, testProgram(t, "amd64/unsupported"))
	b, err := os.ReadFile(jsonPath)
	if status != exitUnsupported || err != nil || !bytes.Contains(b, []byte(`"unsupported"`)) {
		t.Fatalf("icount without stderr, stopped by openat2: exit %d, profile %v:\n%.400s", status, err, b)
	}
}

// privtmpWant is what testdata/c/privtmp.c prints in a run's own /tmp.
const privtmpWant = `create /tmp/NAME: ok
create /var/tmp/NAME: ok
getcwd: /tmp
readlink /proc/self/cwd: /tmp
readlink /proc/self/fd/N: /tmp/privtmp-rel
stat /tmp: directory 1, mode 1777
stat /var/tmp: directory 1, mode 1777
access NAME by a relative path: ok
unlink /tmp/privtmp-abs: ok
access /tmp/privtmp-abs after: No such file or directory
`

// startPrivtmp starts `icount run --json PROFILE flags... privtmp NAME
// args...` with a pipe on its stdin, and returns it once the program has
// made its two files (its first two lines), with all it printed so far.
func startPrivtmp(t *testing.T, bin, profilePath string, flags []string, args ...string) (*exec.Cmd, io.WriteCloser, *bufio.Reader, string) {
	t.Helper()
	argv := append(append([]string{"run", "-q", "--json", profilePath}, flags...), bin)
	cmd := exec.Command(icountBin, append(argv, args...)...)
	cmd.Dir = t.TempDir()
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(stdout)
	var head string
	for range 2 {
		line, err := r.ReadString('\n')
		head += line
		if err != nil {
			break
		}
	}
	return cmd, stdin, r, head
}

// finishPrivtmp ends a run startPrivtmp started: stdin closed, the rest of
// its output read, its exit status and Profile.
func finishPrivtmp(t *testing.T, cmd *exec.Cmd, stdin io.WriteCloser, r *bufio.Reader, head, profilePath string) (string, *profile.Profile) {
	t.Helper()
	stdin.Close()
	rest, _ := io.ReadAll(r)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("icount: %v; output:\n%s%s", err, head, rest)
	}
	b, err := os.ReadFile(profilePath)
	if err != nil {
		t.Fatal(err)
	}
	var prof profile.Profile
	if err := json.Unmarshal(b, &prof); err != nil {
		t.Fatal(err)
	}
	return head + string(rest), &prof
}

// TestPrivateTmp runs testdata/c/privtmp.c, which makes a file of one
// name in /tmp and in /var/tmp with O_EXCL: two runs at once, on each
// arch and libc, both succeed, and while they run the file is in neither
// the host's /tmp nor its temporary directory; in /tmp getcwd and
// readlink of /proc/self/cwd and /proc/self/fd/N name /tmp, and both
// directories are world-writable and sticky. The Profile names the run's
// directory, which is gone afterwards. With --host-tmp the program's
// files are the host's.
func TestPrivateTmp(t *testing.T) {
	t.Parallel()
	name := fmt.Sprintf("icount-privtmp-%d", os.Getpid())
	hostPaths := []string{"/tmp/" + name, "/var/tmp/" + name, filepath.Join(os.TempDir(), name)}
	for _, prog := range edgesPrograms("privtmp") {
		t.Run(prog, func(t *testing.T) {
			bin := testProgram(t, prog)
			type run struct {
				cmd           *exec.Cmd
				stdin         io.WriteCloser
				r             *bufio.Reader
				head, profile string
			}
			var runs []run
			for i := range 2 {
				profile := filepath.Join(t.TempDir(), fmt.Sprintf("profile%d.json", i))
				cmd, stdin, r, head := startPrivtmp(t, bin, profile, nil, name)
				runs = append(runs, run{cmd, stdin, r, head, profile})
			}
			for _, p := range hostPaths {
				if _, err := os.Lstat(p); err == nil {
					t.Errorf("%s exists on the host while the runs hold their own", p)
				}
			}
			dirs := map[string]bool{}
			for _, ru := range runs {
				out, prof := finishPrivtmp(t, ru.cmd, ru.stdin, ru.r, ru.head, ru.profile)
				if out != privtmpWant {
					t.Errorf("under icount:\n%s\nwant:\n%s", out, privtmpWant)
				}
				tmp := prof.Meta.Tmp
				if !strings.HasPrefix(tmp, os.TempDir()+"/") || dirs[tmp] {
					t.Errorf("the Profile's tmp %q: want a directory of the run's own under %s", tmp, os.TempDir())
				}
				dirs[tmp] = true
				if _, err := os.Lstat(tmp); err == nil {
					t.Errorf("the run's directory %s is still there", tmp)
				}
			}
		})
	}
	t.Run("host-tmp", func(t *testing.T) {
		profile := filepath.Join(t.TempDir(), "profile.json")
		cmd, stdin, r, head := startPrivtmp(t, testProgram(t, "c/privtmp-musl"), profile, []string{"--host-tmp"}, name, "keep")
		defer os.Remove(hostPaths[0])
		defer os.Remove(hostPaths[1])
		_, prof := finishPrivtmp(t, cmd, stdin, r, head, profile)
		if prof.Meta.Tmp != "" || !strings.HasPrefix(head, "create /tmp/NAME: ok\n") {
			t.Errorf("--host-tmp: the Profile's tmp %q, output:\n%s", prof.Meta.Tmp, head)
		}
		if _, err := os.Lstat(hostPaths[0]); err != nil {
			t.Errorf("--host-tmp: the file is not in the host's /tmp: %v", err)
		}
	})
}

// TestSysrootFirst runs testdata/c/headline.c, arm64 glibc-dynamic, with
// a sysroot holding Debian's cross libraries and an etc/passwd of its
// own: the guest reads the sysroot's /etc/passwd, not the host's, a file
// only the host has from the host, and gets ENOENT for one neither has,
// as under qemu-aarch64 -L with the same sysroot.
func TestSysrootFirst(t *testing.T) {
	t.Parallel()
	bin := testProgram(t, "arm64/c/headline-dynamic")
	sysroot := t.TempDir()
	if err := os.Symlink(filepath.Join(arm64Sysroot, "lib"), filepath.Join(sysroot, "lib")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(sysroot, "etc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sysroot, "etc", "passwd"), []byte("from the sysroot\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hostOnly := filepath.Join(t.TempDir(), "host-only")
	if err := os.WriteFile(hostOnly, []byte("from the host\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"/etc/passwd", hostOnly, "/nonexistent/file"}
	want := "/etc/passwd: from the sysroot\n" + hostOnly + ": from the host\n/nonexistent/file: ENOENT\n"
	qemu := exec.Command("qemu-aarch64", append([]string{"-L", sysroot, bin}, args...)...)
	if out, err := qemu.Output(); err != nil || string(out) != want {
		t.Fatalf("qemu-aarch64 -L: %v, output:\n%s\nwant:\n%s", err, out, want)
	}
	r := runIcount(t, nil, []string{"-q", "--sysroot", sysroot}, bin, args...)
	if r.status != 0 || r.stdout != want {
		t.Fatalf("under icount: exit %d, output:\n%s\nwant:\n%s\nstderr:\n%s", r.status, r.stdout, want, r.stderr)
	}
}

// TestSysrootPython would run Debian's arm64 python3 from its sysroot
// (issue 15: with the host looked up first it found the host's amd64
// /usr/lib/python3.11 and could not import _decimal); it needs the arm64
// interpreter and standard library installed under the sysroot.
func TestSysrootPython(t *testing.T) {
	t.Parallel()
	python := filepath.Join(arm64Sysroot, "usr", "bin", "python3")
	if _, err := os.Stat(python); err != nil {
		t.Skipf("%s is not installed (Debian installs python3:arm64 only into / with dpkg multiarch; the cross packages hold libraries alone)", python)
	}
	r := runIcount(t, nil, []string{"-q"}, python, "-c", "import _decimal, _sqlite3, _contextvars, hashlib; print(hashlib.sha256(b'').hexdigest()[:8])")
	if r.status != 0 || r.stdout != "e3b0c442\n" {
		t.Fatalf("under icount: exit %d, output:\n%s\nstderr:\n%s", r.status, r.stdout, r.stderr)
	}
}

// TestInheritedIgnored checks that a guest starts with the signals icount
// was started ignoring ignored, as a program exec'd does (nohup's SIGHUP,
// a background job's SIGINT and SIGQUIT): a shell that ignores SIGHUP and
// SIGQUIT runs grep on its /proc/self/status natively and under icount.
func TestInheritedIgnored(t *testing.T) {
	t.Parallel()
	const script = `trap "" HUP QUIT; exec "$@" SigIgn /proc/self/status`
	native, err := exec.Command("/bin/bash", "-c", script, "sh", "/bin/grep").Output()
	if err != nil || !strings.HasPrefix(string(native), "SigIgn:\t") || !strings.HasSuffix(string(native), "5\n") {
		t.Fatalf("natively: %v, output %q", err, native)
	}
	out, err := exec.Command("/bin/bash", "-c", script, "sh", icountBin, "run", "-q", "/bin/grep").Output()
	if err != nil || string(out) != string(native) {
		t.Fatalf("under icount: %v, output %q, want %q", err, out, native)
	}
}
