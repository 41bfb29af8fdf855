package main

// Integration tests: they run the icount binary on the programs `make
// testprogs` builds into testdata/build, as a user would.

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/icount-dev/icount/profile"
)

var (
	icountBin string // built once by TestMain
	repoRoot  string
	buildDir  string // testdata/build
)

func TestMain(m *testing.M) {
	wd, _ := os.Getwd()
	repoRoot = filepath.Join(wd, "..", "..")
	buildDir = filepath.Join(repoRoot, "testdata", "build")
	tmp, err := os.MkdirTemp("", "icount-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	icountBin = filepath.Join(tmp, "icount")
	if out, err := exec.Command("go", "build", "-o", icountBin, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building icount: %v\n%s", err, out)
		os.Exit(1)
	}
	if err := closeInheritedOnExec(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// The native judges start with the mask icount's first process has,
	// whatever the test's own was: set once here, for every test (the
	// mask is the process's, shared by the tests that run in parallel).
	syscall.Umask(0o022)
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}

// closeInheritedOnExec marks close-on-exec every descriptor past the
// standard three that the test binary inherited (GNU time's -o file, a
// CI runner's pipe), so that a native judge starts with the standard
// descriptors alone, as a guest under icount does: an inherited one would
// take the lowest free number and shift every number the judge opens.
func closeInheritedOnExec() error {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return fmt.Errorf("listing the inherited descriptors: %w", err)
	}
	for _, e := range ents {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
	return nil
}

// testProgram returns the path of a program built by `make testprogs`.
func testProgram(t *testing.T, rel string) string {
	t.Helper()
	p := filepath.Join(buildDir, rel)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s is missing: run `make testprogs` (make test does)", p)
	}
	return p
}

// result is one icount run.
type result struct {
	status  int
	stdout  string
	stderr  string
	profile *profile.Profile
}

// runIcount runs `icount run --json ... prog args...` with stdin.
func runIcount(t *testing.T, stdin []byte, flags []string, prog string, args ...string) result {
	t.Helper()
	return runIcountWith(t, func(cmd *exec.Cmd) { cmd.Stdin = bytes.NewReader(stdin) }, flags, prog, args...)
}

// runLimit bounds one icount run in the tests.
const runLimit = 3 * time.Minute

// runIcountWith runs `icount run --json ... prog args...` as setup
// prepares the command (its stdin, directory, environment; its stdout,
// which then takes the output in the result's place).
func runIcountWith(t *testing.T, setup func(*exec.Cmd), flags []string, prog string, args ...string) result {
	t.Helper()
	jsonPath := filepath.Join(t.TempDir(), "profile.json")
	argv := append([]string{"run", "--json", jsonPath}, flags...)
	argv = append(append(argv, prog), args...)
	// A run that hangs is killed, and fails its test, long before the
	// test binary's own timeout.
	ctx, cancel := context.WithTimeout(context.Background(), runLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, icountBin, argv...)
	setup(cmd)
	var out, errb bytes.Buffer
	if cmd.Stdout == nil {
		cmd.Stdout = &out
	}
	cmd.Stderr = &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("icount did not end within %v; stderr:\n%s", runLimit, errb.String())
	}
	r := result{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.status = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running icount: %v", err)
	}
	if b, err := os.ReadFile(jsonPath); err == nil {
		r.profile = &profile.Profile{}
		if err := json.Unmarshal(b, r.profile); err != nil {
			t.Fatalf("profile JSON: %v", err)
		}
	}
	return r
}

// expectation is what a hand-written program's header says it does.
type expectation struct {
	instructions, blocks uint64
	exit                 int
}

var expectLine = regexp.MustCompile(`(?m)^# icount: instructions=(\d+) blocks=(\d+) exit=(\d+)$`)

// checkExpectation fails the test unless run r counted what want says.
func checkExpectation(t *testing.T, r result, want expectation) {
	t.Helper()
	if r.profile == nil {
		t.Fatalf("no profile; stderr:\n%s", r.stderr)
	}
	got := r.profile.Totals
	if got.Instructions != want.instructions || got.Blocks != want.blocks || r.status != want.exit {
		t.Errorf("instructions %d, blocks %d, exit %d; want %d, %d, %d\nstderr:\n%s",
			got.Instructions, got.Blocks, r.status, want.instructions, want.blocks, want.exit, r.stderr)
	}
}

func readExpectation(t *testing.T, src string) expectation {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	m := expectLine.FindSubmatch(b)
	if m == nil {
		t.Fatalf("%s has no `# icount: instructions=N blocks=N exit=N` line", src)
	}
	var e expectation
	e.instructions, _ = strconv.ParseUint(string(m[1]), 10, 64)
	e.blocks, _ = strconv.ParseUint(string(m[2]), 10, 64)
	e.exit, _ = strconv.Atoi(string(m[3]))
	return e
}

// checkExactCounts runs every hand-written program of an arch, static and
// static-PIE, and asserts the counts worked out in its header.
func checkExactCounts(t *testing.T, arch string) {
	srcs, _ := filepath.Glob(filepath.Join(repoRoot, "testdata", arch, "*.S"))
	if len(srcs) == 0 {
		t.Fatalf("no testdata/%s/*.S", arch)
	}
	for _, src := range srcs {
		name := strings.TrimSuffix(filepath.Base(src), ".S")
		want := readExpectation(t, src)
		for _, variant := range []string{name, name + "-pie"} {
			t.Run(variant, func(t *testing.T) {
				t.Parallel()
				checkExpectation(t, runIcount(t, nil, nil, testProgram(t, filepath.Join(arch, variant))), want)
			})
		}
	}
}

func TestExactCountsAMD64(t *testing.T) {
	t.Parallel()
	checkExactCounts(t, "amd64")
}

// TestGuestOwnsStdout checks that icount adds nothing to the guest's
// stdout and prefixes all it says on stderr.
func TestGuestOwnsStdout(t *testing.T) {
	t.Parallel()
	r := runIcount(t, nil, nil, testProgram(t, "amd64/write"))
	if r.stdout != "hello, icount\n" {
		t.Errorf("stdout %q", r.stdout)
	}
	for _, line := range strings.Split(strings.TrimSpace(r.stderr), "\n") {
		if !strings.HasPrefix(line, "icount: ") {
			t.Errorf("stderr line without the prefix: %q", line)
		}
	}
	q := exec.Command(icountBin, "run", "-q", testProgram(t, "amd64/write"))
	var errb bytes.Buffer
	q.Stderr = &errb
	q.Run()
	if errb.Len() != 0 {
		t.Errorf("-q printed %q", errb.String())
	}
}

// TestGuestArguments checks that flags after the binary belong to the guest.
func TestGuestArguments(t *testing.T) {
	t.Parallel()
	r := runIcount(t, nil, nil, testProgram(t, "amd64/write"), "--json", "x", "-q")
	if r.profile == nil || strings.Join(r.profile.Meta.Args, " ") != "write --json x -q" {
		t.Fatalf("guest argv %v, stderr %s", r.profile.Meta.Args, r.stderr)
	}
}

// cProgram is a C test program and how to feed it.
type cProgram struct {
	name  string
	stdin string // file under testdata/c given on stdin
}

var cPrograms = []cProgram{{"textstat", "textstat.c"}, {"crunch", "crunch.c"}}

// runNative runs prog natively in dir with an empty environment.
func runNative(t *testing.T, dir string, stdin []byte, prog string, args ...string) (string, int) {
	t.Helper()
	return runNativeWith(t, dir, stdin, nil, prog, args...)
}

// runNativeWith is runNative as the user cred (nil: icount's own).
func runNativeWith(t *testing.T, dir string, stdin []byte, cred *syscall.Credential, prog string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, []string{}, bytes.NewReader(stdin)
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	out, err := cmd.Output()
	status := 0
	if ee, ok := err.(*exec.ExitError); ok {
		status = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), status
}

// TestCProgramsMatchNative runs musl- and glibc-static C programs that read
// stdin and a file and write stdout and a file, natively and under icount,
// and compares everything they produce byte for byte.
func TestCProgramsMatchNative(t *testing.T) {
	t.Parallel()
	for _, p := range cPrograms {
		for _, libc := range []string{"musl", "glibc"} {
			t.Run(p.name+"-"+libc, func(t *testing.T) {
				t.Parallel()
				prog := testProgram(t, filepath.Join("c", p.name+"-"+libc))
				matchNative(t, p, prog, prog)
			})
		}
	}
}

// matchNative runs the C program p built as native natively and built as
// guest under icount, on the same stdin, arguments and input file, and
// compares their stdout, exit status and output file byte for byte.
func matchNative(t *testing.T, p cProgram, native, guest string) result {
	t.Helper()
	stdin, err := os.ReadFile(filepath.Join(repoRoot, "testdata", "c", p.stdin))
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(repoRoot, "testdata", "c", "crunch.c")
	nd, gd := t.TempDir(), t.TempDir()
	wantOut, wantStatus := runNative(t, nd, stdin, native, in, filepath.Join(nd, "out"))
	r := runIcount(t, stdin, nil, guest, in, filepath.Join(gd, "out"))
	if r.stdout != wantOut || r.status != wantStatus {
		t.Errorf("stdout or status differ: native %d, icount %d\nicount stderr:\n%s", wantStatus, r.status, r.stderr)
	}
	a, _ := os.ReadFile(filepath.Join(nd, "out"))
	b, _ := os.ReadFile(filepath.Join(gd, "out"))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("output files differ (%d native bytes, %d under icount)", len(a), len(b))
	}
	return r
}

// arm64Sysroot is where Debian's cross packages put the arm64 libraries,
// for qemu-aarch64 -L (icount's own default --sysroot for arm64).
const arm64Sysroot = "/usr/aarch64-linux-gnu"

// runJudge runs prog with args outside icount, as the judge of its
// output: natively for an x86-64 program, under qemu-aarch64 as a
// Cortex-A72 (its libraries from arm64Sysroot) for an arm64 one, in a new
// directory with environment env (nil: empty). It returns stdout and the
// exit status.
func runJudge(t *testing.T, env []string, prog string, args ...string) (string, int) {
	t.Helper()
	f, err := elf.Open(prog)
	if err != nil {
		t.Fatal(err)
	}
	arm64 := f.Machine == elf.EM_AARCH64
	f.Close()
	ctx, cancel := context.WithTimeout(context.Background(), runLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, args...)
	if arm64 {
		qemu, err := exec.LookPath("qemu-aarch64")
		if err != nil {
			t.Fatal("qemu-aarch64 is missing: make deps installs qemu-user")
		}
		cmd = exec.CommandContext(ctx, qemu, append([]string{"-cpu", "cortex-a72", "-L", arm64Sysroot, prog}, args...)...)
	}
	cmd.Dir, cmd.Env = t.TempDir(), append([]string{}, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	status := 0
	if ee, ok := err.(*exec.ExitError); ok {
		status = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, errb.String())
	}
	return out.String(), status
}
