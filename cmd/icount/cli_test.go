package main

// The command line's edges as a new user meets them (issue 19).

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/icount-dev/icount/profile"
)

// icountEnv runs icount in dir with env added to icount's environment.
func icountEnv(t *testing.T, dir string, env []string, args ...string) (status int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(icountBin, args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		status = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running icount: %v", err)
	}
	return status, out.String(), errb.String()
}

// TestPathSearch: a BINARY named without a slash is looked for in PATH,
// as execvp does, and the Profile records the path found; one with a
// slash is not; a name PATH does not have exits 127, saying so.
func TestPathSearch(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	os.Mkdir(bin, 0o755)
	prog, err := os.ReadFile(testProgram(t, "amd64/loop"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "mybench"), prog, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(bin, "notexec"), prog, 0o644)
	os.WriteFile(filepath.Join(dir, "notexec"), prog, 0o755)
	path := "PATH=" + filepath.Join(dir, "empty") + ":" + bin

	status, _, stderr := icountEnv(t, dir, []string{path}, "run", "-q", "--json", "p.json", "mybench")
	if status != 20 {
		t.Fatalf("mybench from PATH: status %d, want 20 (loop's status)\n%s", status, stderr)
	}
	p, err := profile.Read(filepath.Join(dir, "p.json"))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(bin, "mybench"); p.Meta.Binary.Path != want {
		t.Errorf("the Profile records %q, want the path found, %q", p.Meta.Binary.Path, want)
	}
	// A file of that name that is not executable is passed over, as
	// execvp does; one in the current directory is not looked for.
	status, _, stderr = icountEnv(t, dir, []string{path}, "run", "notexec")
	if status != exitNotFound || !strings.Contains(stderr, "icount: notexec: not found in PATH (to run the file in this directory: ./notexec)") {
		t.Errorf("notexec: status %d\n%s", status, stderr)
	}
	if status, _, stderr = icountEnv(t, dir, []string{path}, "run", "./notexec"); status != 20 {
		t.Errorf("./notexec: status %d, want 20 (loop's status)\n%s", status, stderr)
	}
	// A system program, as valgrind and env find it.
	echo, err := exec.LookPath("echo")
	if err != nil {
		t.Skip("no echo in PATH")
	}
	status, stdout, stderr := icountEnv(t, dir, nil, "run", "-q", "--json", "e.json", "echo", "hi")
	if status != 0 || stdout != "hi\n" {
		t.Fatalf("icount run echo hi: status %d, stdout %q\n%s", status, stdout, stderr)
	}
	if p, err := profile.Read(filepath.Join(dir, "e.json")); err != nil || p.Meta.Binary.Path != echo {
		t.Errorf("echo: the Profile records %v, want %s (%v)", p.Meta.Binary.Path, echo, err)
	}
}

// TestOwnFlagAfterBinary: one of icount's flags after BINARY goes to the
// program, unchanged, and icount says so on stderr.
func TestOwnFlagAfterBinary(t *testing.T) {
	echo, err := exec.LookPath("echo")
	if err != nil {
		t.Skip("no echo in PATH")
	}
	status, stdout, stderr := icountIn(t, t.TempDir(), "run", echo, "--json", "x.json", "--iterations=5", "--seed=3")
	if status != 0 || stdout != "--json x.json --iterations=5 --seed=3\n" {
		t.Fatalf("status %d, the program got %q\n%s", status, stdout, stderr)
	}
	note := "icount: note: --json, --seed after " + echo + " are passed to the program, not to icount; put icount's flags before " + echo + "\n"
	if !strings.HasPrefix(stderr, note) {
		t.Errorf("stderr does not start with the note %q:\n%s", note, stderr)
	}
	if _, _, stderr := icountIn(t, t.TempDir(), "run", echo, "--iterations", "5"); strings.Contains(stderr, "note:") {
		t.Errorf("a note for the program's own flag:\n%s", stderr)
	}
}

// TestSuggestions: a mistyped flag or command is answered with what it
// may have meant, status 2.
func TestSuggestions(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--jsn", "x.json", "./bench"}, "icount: unknown flag: --jsn; did you mean --json? (see 'icount run --help')\n"},
		{[]string{"run", "-json", "x.json", "./bench"}, "icount: unknown shorthand flag: 'j' in -json; did you mean --json? (see 'icount run --help')\n"},
		{[]string{"run", "--fixed-clok", "./bench"}, "did you mean --fixed-clock?"},
		{[]string{"diff", "--formt", "markdown", "a", "b"}, "icount: unknown flag: --formt; did you mean --format? (see 'icount diff --help')\n"},
		{[]string{"rnu", "./bench"}, "icount: unknown command \"rnu\"; did you mean run?\n"},
		{[]string{"anotate", "p.json"}, "icount: unknown command \"anotate\"; did you mean annotate?\n"},
		{[]string{"./bench"}, "icount: unknown command \"./bench\" (to count a program: icount run ./bench)\n"},
	} {
		status, _, stderr := icountIn(t, t.TempDir(), c.args...)
		if status != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("icount %s: status %d, stderr %q, want %d and %q", strings.Join(c.args, " "), status, stderr, exitUsage, c.want)
		}
	}
}

// TestRunWithoutBinary: 'icount run' alone prints its usage line and an
// example, status 2.
func TestRunWithoutBinary(t *testing.T) {
	status, stdout, stderr := icountIn(t, t.TempDir(), "run")
	want := "icount: no program to run\nicount: usage: icount run [flags] BINARY [ARGS...]\nicount: example: icount run ./bench --iterations 5   (see 'icount run --help')\n"
	if status != exitUsage || stderr != want || stdout != "" {
		t.Errorf("status %d, stdout %q, stderr %q; want %d and %q", status, stdout, stderr, exitUsage, want)
	}
}

// complete asks icount for the completions of args (cobra's __complete)
// and returns them without the directive line.
func complete(t *testing.T, dir string, args ...string) []string {
	t.Helper()
	_, out, _ := icountIn(t, dir, append([]string{"__complete"}, args...)...)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return lines[:len(lines)-1] // the last is the directive, ":4"
}

// TestCompletion: flag values complete from what they name: --format's
// formats, the baselines under .icount/, annotate's functions from the
// Profile.
func TestCompletion(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".icount", "suite-before"), 0o755)
	os.WriteFile(filepath.Join(dir, ".icount", "main.json"), []byte("{}"), 0o644)
	os.WriteFile(filepath.Join(dir, ".icount", "notes.txt"), []byte("x"), 0o644)
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"diff", "--format", ""}, []string{"text", "markdown", "json", "html"}},
		{[]string{"ab", "--format", ""}, []string{"text", "markdown", "json", "html"}},
		{[]string{"run", "--baseline", ""}, []string{"main", "suite-before"}},
		{[]string{"run", "--save", "s"}, []string{"suite-before"}},
	} {
		if got := complete(t, dir, c.args...); !slices.Equal(got, c.want) {
			t.Errorf("icount %s: %q, want %q", strings.Join(c.args, " "), got, c.want)
		}
	}
	r := runIcountWith(t, func(cmd *exec.Cmd) { cmd.Dir = dir }, nil, testProgram(t, "c/callgraph-musl"))
	json := filepath.Join(dir, "p.json")
	writeProfile(json, r.profile)
	got := complete(t, dir, "annotate", json, "ma")
	if !slices.Contains(got, "main") || slices.ContainsFunc(got, func(s string) bool { return !strings.HasPrefix(s, "ma") }) {
		t.Errorf("annotate's functions starting ma: %q", got)
	}
}

// TestAnnotateRefuses: annotate exits 2 for a function the Profile does
// not have and for a Profile saved without --lines.
func TestAnnotateRefuses(t *testing.T) {
	dir := t.TempDir()
	prog := testProgram(t, "c/callgraph-musl-g")
	lines := filepath.Join(dir, "lines.json")
	plain := filepath.Join(dir, "plain.json")
	if status, _, stderr := icountIn(t, dir, "run", "-q", "--lines", "--json", lines, prog); status != 0 {
		t.Fatalf("run --lines: %d\n%s", status, stderr)
	}
	if status, _, stderr := icountIn(t, dir, "run", "-q", "--json", plain, prog); status != 0 {
		t.Fatalf("run: %d\n%s", status, stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"annotate", lines, "no_such_function"}, "icount: " + lines + ": no function \"no_such_function\" ran\n"},
		{[]string{"annotate", plain}, "icount: " + plain + " has no per-line counts: save the run with icount run --lines --json\n"},
		{[]string{"annotate", plain, "main"}, "has no per-line counts"},
	} {
		status, _, stderr := icountIn(t, dir, c.args...)
		if status != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("icount %s: status %d, stderr %q; want %d and %q", strings.Join(c.args, " "), status, stderr, exitUsage, c.want)
		}
	}
	if status, _, stderr := icountIn(t, dir, "annotate", lines, "main"); status != 0 {
		t.Errorf("annotate main: status %d\n%s", status, stderr)
	}
}
