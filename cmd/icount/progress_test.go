package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

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

// screen is what a terminal shows after out: its lines, each as the
// cursor left it ("\r" returns to a line's start, "\033[K" erases to its
// end, "\n" goes to the next line).
func screen(out string) []string {
	lines := []string{""}
	col := 0
	for i := 0; i < len(out); i++ {
		cur := []rune(lines[len(lines)-1])
		switch {
		case out[i] == '\r':
			col = 0
		case out[i] == '\n':
			lines = append(lines, "")
			col = 0
		case strings.HasPrefix(out[i:], "\x1b[K"):
			lines[len(lines)-1] = string(cur[:min(col, len(cur))])
			i += 2
		default:
			for len(cur) <= col {
				cur = append(cur, ' ')
			}
			cur[col] = rune(out[i])
			lines[len(lines)-1] = string(cur)
			col++
		}
	}
	return lines
}

// TestProgressLineStepsAside runs a shell on a terminal that writes a
// line, then part of one, each after the progress line was drawn: the
// progress line is cleared before each of the guest's writes, not drawn
// over an unfinished line, and not left anywhere on the screen.
func TestProgressLineStepsAside(t *testing.T) {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CI=") {
			env = append(env, kv)
		}
	}
	term, termSlave := openPTY(t)
	defer term.Close()
	keys, keysSlave := openPTY(t) // the shell's stdin: a terminal gives it a line at a time
	defer keys.Close()
	cmd := exec.Command(icountBin, "run", "/bin/sh", "-c", `read a; echo "got $a"; read b; printf part; read c; echo " end"`)
	cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr = env, keysSlave, termSlave, termSlave
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	termSlave.Close()
	keysSlave.Close()
	go io.Copy(io.Discard, keys) // the terminal's echo
	var out bytes.Buffer
	done := make(chan struct{})
	go func() { io.Copy(&out, term); close(done) }()
	for _, typed := range []string{"x\n", "y\n", "z\n"} {
		time.Sleep(2 * time.Second) // the progress line is drawn every second
		keys.WriteString(typed)
	}
	cmd.Wait()
	<-done
	s := out.String()
	if !strings.Contains(s, " M/s, ") {
		t.Fatalf("no progress line was drawn:\n%q", s)
	}
	lines := screen(s)
	var guest []string
	for _, l := range lines {
		if strings.Contains(l, " M/s, ") {
			t.Errorf("a progress line is left on the screen: %q\n%q", l, s)
		}
		if !strings.HasPrefix(l, "icount: ") && l != "" {
			guest = append(guest, l)
		}
	}
	if want := []string{"got x", "part end"}; !slices.Equal(guest, want) {
		t.Errorf("the guest's lines on the screen: %q, want %q\n%q", guest, want, s)
	}
}
