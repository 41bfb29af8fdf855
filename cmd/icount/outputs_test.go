package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icount-dev/icount/profile"
)

// TestCallgrindParts: of a run of two programs, --callgrind FILE holds
// both parts, and FILE.1 and FILE.2 each one alone.
func TestCallgrindParts(t *testing.T) {
	t.Parallel()
	fns := func(name string, n uint64) []profile.FunctionCount {
		return []profile.FunctionCount{{Name: name, Module: name, Self: n}}
	}
	p := &profile.Profile{Schema: profile.Schema, Meta: profile.Meta{
		Settings: profile.Settings{IcountVersion: "t", Args: []string{"sh", "-c", "true"}},
		Inputs:   profile.Inputs{Stdio: []string{"pipe", "pipe", "pipe"}},
		Record:   profile.Record{}},
		Totals: profile.Totals{Instructions: 30}, Functions: append(fns("sh", 20), fns("true", 10)...),
		Processes: []profile.Process{
			{PID: 1000, Parent: -1, Argv: []string{"sh", "-c", "true"}, Totals: profile.Totals{Instructions: 20}, Functions: fns("sh", 20)},
			{PID: 1000, Parent: 0, Exec: true, Argv: []string{"true"}, Totals: profile.Totals{Instructions: 10}, Functions: fns("true", 10)},
		}}
	file := filepath.Join(t.TempDir(), "cg.out")
	if err := (&outputFlags{callgrind: file}).write(p); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]string{
		file:        {"part: 1\n", "summary: 20\n", "totals: 20\n", "part: 2\n", "summary: 10\n", "totals: 10\n"},
		file + ".1": {"pid: 1000\ncmd: sh -c true\npart: 1\n", "summary: 20\n", "totals: 20\n"},
		file + ".2": {"pid: 1000\ncmd: true\npart: 2\n", "summary: 10\n", "totals: 10\n"},
	} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(string(b), w) {
				t.Errorf("%s lacks %q:\n%s", name, w, b)
			}
		}
		if name != file && strings.Count(string(b), "part: ") != 1 {
			t.Errorf("%s has more than one part:\n%s", name, b)
		}
	}
}

// outputRun is a run of crunch-musl with three outputs: the Profile
// (--json p.json, some 70 KB), a pprof profile and a benchmark result
// (bench.txt, under 1 KB).
var outputRun = []string{"run", "-q", "--json", "p.json", "--pprof", "p.pb.gz", "--bench", "Crunch", "--bench-out", "bench.txt"}

// TestOutputFailureKeepsFile: when the host refuses a write half way
// (EFBIG: a file size limit of 20 KB, which the Profile passes and the
// other two do not), the previous good Profile is left intact,
// the outputs that fit are still written, the failure is one line naming
// the file, and icount exits 74; no temporary file is left behind.
func TestOutputFailureKeepsFile(t *testing.T) {
	t.Parallel()
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Fatal("prlimit (util-linux) is missing")
	}
	dir := t.TempDir()
	args := append(outputRun, testProgram(t, "c/crunch-musl"))
	if status, _, stderr := icountIn(t, dir, args...); status != 0 {
		t.Fatalf("first run: status %d\n%s", status, stderr)
	}
	good, _ := os.ReadFile(filepath.Join(dir, "p.json"))
	for _, f := range []string{"p.pb.gz", "bench.txt"} {
		os.Remove(filepath.Join(dir, f))
	}
	cmd := exec.Command(prlimit, append([]string{"--fsize=20000", icountBin}, args...)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitIOError {
		t.Errorf("status %v, want %d", err, exitIOError)
	}
	if want := "icount: writing the profile: write p.json: file too large\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "p.json")); !bytes.Equal(b, good) {
		t.Errorf("the previous Profile was not kept: %d bytes, were %d", len(b), len(good))
	}
	checkWritten(t, dir)
}

// checkWritten checks that the run wrote the outputs that fit and left
// nothing else in dir but its Profile.
func checkWritten(t *testing.T, dir string) {
	t.Helper()
	if b, err := os.ReadFile(filepath.Join(dir, "bench.txt")); err != nil || !strings.Contains(string(b), "BenchmarkCrunch") {
		t.Errorf("bench.txt: %v %q", err, b)
	}
	if fi, err := os.Stat(filepath.Join(dir, "p.pb.gz")); err != nil || fi.Size() == 0 {
		t.Errorf("p.pb.gz was not written: %v", err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 3 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("the directory holds %v", names)
	}
}

// TestOutputNoSpace: on a full disk (ENOSPC: a 256 KiB tmpfs, in a mount
// namespace of its own, that a file fills but for 3 pages, which the
// Profile needs 18 of) the previous good Profile is left intact, the
// outputs that fit are still written, the failure is one line naming the
// file, and icount exits 74.
func TestOutputNoSpace(t *testing.T) {
	t.Parallel()
	if err := exec.Command("unshare", "-rm", "true").Run(); err != nil {
		t.Skipf("no mount namespace for a small tmpfs (unshare -rm: %v); TestOutputFailureKeepsFile covers EFBIG", err)
	}
	disk, out := t.TempDir(), t.TempDir()
	prog := testProgram(t, "c/crunch-musl")
	script := `set -e
mount -t tmpfs -o size=256k tmpfs "$DISK"
cd "$DISK"
"$ICOUNT" "$@" >/dev/null
cp p.json "$OUT/good.json"
rm p.pb.gz bench.txt
head -c 172k /dev/zero >filler
set +e
"$ICOUNT" "$@" >/dev/null 2>"$OUT/stderr"
echo $? >"$OUT/status"
cp p.json p.pb.gz bench.txt "$OUT/" 2>/dev/null
ls -A >"$OUT/ls"
`
	cmd := exec.Command("unshare", append([]string{"-rm", "sh", "-c", script, "sh"}, append(outputRun, prog)...)...)
	cmd.Env = append(os.Environ(), "DISK="+disk, "OUT="+out, "ICOUNT="+icountBin)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	read := func(name string) string {
		b, _ := os.ReadFile(filepath.Join(out, name))
		return string(b)
	}
	if s := read("status"); s != "74\n" {
		t.Errorf("status %q, want 74", s)
	}
	if want := "icount: writing the profile: write p.json: no space left on device\n"; read("stderr") != want {
		t.Errorf("stderr %q, want %q", read("stderr"), want)
	}
	if read("p.json") != read("good.json") || read("p.json") == "" {
		t.Errorf("the previous Profile was not kept: %d bytes, were %d", len(read("p.json")), len(read("good.json")))
	}
	if ls := read("ls"); ls != "bench.txt\nfiller\np.json\np.pb.gz\n" {
		t.Errorf("the disk holds %q", ls)
	}
	if !strings.Contains(read("bench.txt"), "BenchmarkCrunch") || read("p.pb.gz") == "" {
		t.Errorf("the outputs that fit were not written")
	}
}

// TestPrivateTmpRefused: when the run's own /tmp cannot be made (TMPDIR
// names no directory), the host refused it: status 74, one line, and the
// guest does not start.
func TestPrivateTmpRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmd := exec.Command(icountBin, "run", "-q", busybox(t, "amd64"), "touch", "ran")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TMPDIR=/nonexistent")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if want := "icount: the run's private /tmp: stat /nonexistent: no such file or directory\n"; !errors.As(err, &ee) || ee.ExitCode() != exitIOError || stderr.String() != want {
		t.Errorf("%v, stderr %q; want status 74 and %q", err, stderr.String(), want)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Error("the guest ran")
	}
}
