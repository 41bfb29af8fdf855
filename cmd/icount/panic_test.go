package main

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icount-dev/icount/count"
	"github.com/icount-dev/icount/emu"
	"github.com/icount-dev/icount/profile"
)

// captureStderr runs f with os.Stderr going to a pipe, and returns what
// it wrote there.
func captureStderr(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = w
	done := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		done <- string(b)
	}()
	f()
	os.Stderr = saved
	w.Close()
	return <-done
}

// TestPanicReported: a run a Go panic stopped (count.Run gives the
// Profile so far, reason "internal error", and the *emu.PanicError the
// emulator returned) exits 70 with one line naming the file that holds
// the panic's stack, and its Profile is written.
func TestPanicReported(t *testing.T) {
	dir := t.TempDir()
	f := &runFlags{jsonPath: filepath.Join(dir, "p.json"), quiet: true}
	prof := &profile.Profile{Schema: profile.Schema, Meta: profile.Meta{Settings: profile.Settings{IcountVersion: "t", Args: []string{"prog"}}},
		Totals: profile.Totals{Instructions: 10}, Functions: []profile.FunctionCount{{Name: "main", Module: "prog", Self: 10}},
		Exit: profile.Exit{Status: -1, Message: "internal error: panic: boom", Reason: profile.StopInternal}}
	stopped := &count.StoppedError{Err: emu.NewPanicError("boom"), Where: "main+0x3 (prog)"}
	file := panicFile()
	defer os.Remove(file)
	var err error
	stderr := captureStderr(t, func() { err = f.finish(prof, stopped) })
	var ee *exitError
	if !errors.As(err, &ee) || ee.status != exitInternal || ee.err != nil {
		t.Errorf("finish returned %v, want status 70 already reported", err)
	}
	if want := "icount: internal error: panic: boom, in main+0x3 (prog) (a bug in icount; its stack is in " + file + ")\n"; stderr != want {
		t.Errorf("stderr %q, want %q", stderr, want)
	}
	stack, _ := os.ReadFile(file)
	if !strings.Contains(string(stack), "internal error: panic: boom") || !strings.Contains(string(stack), "TestPanicReported") {
		t.Errorf("%s does not hold the panic and its stack:\n%s", file, stack)
	}
	b, _ := os.ReadFile(f.jsonPath)
	var p profile.Profile
	if err := json.Unmarshal(b, &p); err != nil || p.Exit.Reason != "internal error" || p.Exit.Complete || p.Totals.Instructions != 10 {
		t.Errorf("the Profile: %v, exit %+v", err, p.Exit)
	}
}

// TestPanicEscapingRun: a panic raised where count.Run does not catch it
// (here in the Progress callback, as the guest starts) comes back from
// runGuest as an *emu.PanicError with no Profile, and the next run runs.
func TestPanicEscapingRun(t *testing.T) {
	prof, err := runGuest(count.Options{Path: testProgram(t, "amd64/loop"),
		Progress: func(func() uint64) { panic("at progress") }})
	pe := panicOf(err)
	if prof != nil || pe == nil || pe.Value != "at progress" || !strings.Contains(string(pe.Stack), "TestPanicEscapingRun") {
		t.Fatalf("runGuest = %v, %v", prof, err)
	}
	if p, err := runGuest(count.Options{Path: testProgram(t, "amd64/loop")}); err != nil || p.Exit.Status != 20 {
		t.Errorf("the next run: %v, %+v", err, p)
	}
}
