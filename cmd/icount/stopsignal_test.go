package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/icount-dev/icount/profile"
)

// stoppedRun checks a run stopped by SIGTERM: status 143 and the Profile
// written, marked incomplete with reason SIGTERM.
func stoppedRun(t *testing.T, run int, err error, jsonPath, stderr string) {
	t.Helper()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitSIGTERM {
		t.Errorf("run %d: %v, want status 143; stderr:\n%s", run, err, stderr)
		return
	}
	b, err := os.ReadFile(jsonPath)
	var p profile.Profile
	if err != nil || json.Unmarshal(b, &p) != nil || p.Exit.Reason != "SIGTERM" || p.Exit.Complete || p.Totals.Instructions == 0 {
		t.Errorf("run %d: Profile %v, exit %+v; stderr:\n%s", run, err, p.Exit, stderr)
	}
	if !strings.Contains(stderr, "icount: stopped by SIGTERM, in ") {
		t.Errorf("run %d: stderr:\n%s", run, stderr)
	}
}

// TestSIGTERMTwiceIsOneRequest: coreutils' timeout sends SIGTERM to its
// child and then to the child's process group, so that icount gets two
// at once; both are one request to stop. Every run under timeout, and
// every run sent SIGTERM to its pid and then to its group back to back,
// writes the Profile and exits 143 (before, about one in ten exited at
// once with nothing written). timeout waits 0.5 s: icount catches SIGTERM
// from the start of main (before, only once it had read its flags and
// settings and opened the program, which a machine at load 10 took longer
// than that to reach).
func TestSIGTERMTwiceIsOneRequest(t *testing.T) {
	t.Parallel()
	timeout, err := exec.LookPath("timeout")
	if err != nil {
		t.Fatal("timeout (coreutils) is missing")
	}
	spin := testProgram(t, "hostile/amd64/spin")
	for i := range 25 {
		jsonPath := filepath.Join(t.TempDir(), "p.json")
		cmd := exec.Command(timeout, "--preserve-status", "-s", "TERM", "0.5", icountBin, "run", "-q", "--json", jsonPath, spin)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		stoppedRun(t, i, cmd.Run(), jsonPath, stderr.String())
	}
	// By hand, once the guest has started: a shell that says so, then
	// loops.
	sh := []string{busybox(t, "amd64"), "sh", "-c", "echo started; while :; do :; done"}
	for i := range 25 {
		jsonPath := filepath.Join(t.TempDir(), "p.json")
		cmd := exec.Command(icountBin, append([]string{"run", "-q", "--json", jsonPath}, sh...)...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if line != "started\n" {
			cmd.Process.Kill()
			t.Fatalf("run %d: the guest printed %q (%v); stderr:\n%s", i, line, err, stderr.String())
		}
		syscall.Kill(cmd.Process.Pid, syscall.SIGTERM)
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		stoppedRun(t, i, cmd.Wait(), jsonPath, stderr.String())
	}
}
