package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// openPTY returns a pseudo-terminal's two ends.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return m, s
}

// TestProgressLine runs a 1.5 s guest with stderr on a terminal: a
// progress line appears after a second and is cleared at the end; with CI
// set, or stderr not a terminal, there is none.
func TestProgressLine(t *testing.T) {
	t.Parallel()
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CI=") {
			env = append(env, kv)
		}
	}
	for _, c := range []struct {
		name string
		env  []string
		want bool
	}{{"terminal", env, true}, {"terminal under CI", append(env, "CI=true"), false}} {
		t.Run(c.name, func(t *testing.T) {
			master, slave := openPTY(t)
			defer master.Close()
			cmd := exec.Command(icountBin, "run", "--timeout", "1500ms", testProgram(t, "hostile/amd64/spin"))
			cmd.Env, cmd.Stderr = c.env, slave
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			slave.Close()
			var out bytes.Buffer
			io.Copy(&out, master) // until the terminal's last writer is gone
			cmd.Wait()
			s := out.String()
			line := strings.Contains(s, "\r\x1b[Kicount: ") && strings.Contains(s, " instructions, ") && strings.Contains(s, " M/s, 1 s")
			if line != c.want || c.want && !strings.Contains(s, "\r\x1b[Kicount: ") {
				t.Errorf("progress line %v, want %v:\n%q", line, c.want, s)
			}
			if !strings.Contains(s, "stopped by --timeout 1.5s") {
				t.Errorf("no stop message:\n%q", s)
			}
		})
	}
	// Not a terminal: stderr is a pipe in runIcount.
	r := runIcount(t, nil, []string{"--timeout", "1500ms"}, testProgram(t, "hostile/amd64/spin"))
	if strings.Contains(r.stderr, "\r") || strings.Contains(r.stderr, " M/s") {
		t.Errorf("progress line on a pipe:\n%q", r.stderr)
	}
}
