package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/icount-dev/icount/profile"
	"golang.org/x/sys/unix"
)

// hostile is a guest from testdata/hostile and how its run must end.
type hostile struct {
	name   string
	prog   string // under testdata/build/hostile
	flags  []string
	args   []string
	status int
	stderr []string           // each on stderr
	stdout string             // on stdout
	insns  uint64             // the exact total, when not 0
	reason profile.StopReason // Exit.Reason of a run icount stopped
}

var hostileGuests = []hostile{
	{name: "segfault", prog: "amd64/segv", status: 139, insns: 3, stderr: []string{
		"icount: SIGSEGV: access to unmapped address 0x0 by `movq $0x1,(%rax)` at 0x401016, in crash+0x2 (segv)\n" +
			"icount:   called from main+0x5 (segv)\n" +
			"icount:   called from _start+0x5 (segv)\n"}},
	// The inner call of f left by an indirect jump within f: one frame of f
	// (the call tree's step follows such a jump when the stack pointer rose
	// above where the top frame was entered; without, the inner frame stays).
	{name: "escape from a recursive call", prog: "amd64/escape", status: 139, insns: 13, stderr: []string{
		"icount: SIGSEGV: access to unmapped address 0x0 by `movq $0x1,(%rax)` at 0x401030, in f+0x1d (escape)\n" +
			"icount:   called from _start+0xa (escape)\n"}},
	{name: "write to .text", prog: "amd64/writetext", status: 139, insns: 1, stderr: []string{
		"icount: SIGSEGV: access to 0x401000 violates its protection by `movb $0x90,(%rax)` at 0x401007, in _start+0x7 (writetext)\n"}},
	{name: "jump to data", prog: "amd64/jumpdata", status: 139, insns: 3, stderr: []string{
		"icount: SIGSEGV: jump to 0x402000, which is not mapped executable\n" +
			"icount:   called from main (jumpdata)\n"}},
	{name: "AVX", prog: "amd64/avx", status: 132, stderr: []string{
		"icount: SIGILL: `vpbroadcastb %xmm0,%ymm1` at 0x401000 (AVX family) is not supported by the emulated CPU"}},
	{name: "privileged instruction", prog: "amd64/hlt", status: 139, insns: 2, stderr: []string{
		"icount: SIGSEGV: `hlt` at 0x40100a: a privileged instruction (general protection fault at user level), in _start+0xa (hlt)\n"}},
	{name: "divide by zero", prog: "amd64/divzero", status: 136, insns: 3, stderr: []string{
		"icount: SIGFPE: division error by `div %rcx` at 0x401009, in _start+0x9 (divzero)\n"}},
	{name: "infinite loop, instruction limit", prog: "amd64/spin", flags: []string{"--max-instructions", "5000000"},
		status: exitInstructionLimit, insns: 5000000, reason: "max-instructions", stderr: []string{
			"icount: instruction limit reached: stopped after exactly 5000000 instructions (--max-instructions), in spin",
			"icount:   called from main+0x5 (spin)\n"}},
	{name: "infinite loop, timeout", prog: "amd64/spin", flags: []string{"--timeout", "500ms"},
		status: exitTimeout, reason: "timeout", stderr: []string{
			"icount: stopped by --timeout 500ms (wall clock), in spin",
			"icount:   called from main+0x5 (spin)\n"}},
	{name: "unbounded recursion", prog: "amd64/recurse", status: 139, stderr: []string{
		"icount: SIGSEGV: access to unmapped address 0x7fffff7feff8 by `callq 0x40100e` at 0x401012: stack overflow (the stack is 8 MiB), in recurse+0x4 (recurse)\n" +
			"icount:   called from recurse+0x9 (recurse), 524263 times\n" +
			"icount:   called from _start+0x5 (recurse)\n"}},
	{name: "memory bomb", prog: "c/membomb-musl", flags: []string{"--max-memory", "64M"}, status: 1,
		stdout: " failed after ", stderr: []string{"icount: warning: --max-memory 64 MiB refused the program memory"}},
	// Threads clone threads: past 4096 clone fails with EAGAIN and they
	// loop on, until the instruction limit, exact across thread switches.
	{name: "thread bomb", prog: "amd64/threadbomb", flags: []string{"--max-instructions", "3000000"},
		status: exitInstructionLimit, insns: 3000000, reason: "max-instructions", stderr: []string{
			"icount: instruction limit reached: stopped after exactly 3000000 instructions (--max-instructions), in _start (threadbomb)\n"}},
	{name: "10,000 open files", prog: "c/openfiles-musl", status: 0,
		stdout: "opened 1021 of 10000 files; 8979 failed with EMFILE, 0 otherwise\nafter closing them: open works\n"},
	{name: "1 MiB of arguments", prog: "c/args-musl", args: mebibyteOfArgs(), status: 0, stdout: "1025 arguments, 1048586 bytes\n"}, // and "args-musl"

	{name: "arm64 segfault", prog: "arm64/segv", status: 139, insns: 5, stderr: []string{
		"icount: SIGSEGV: access to unmapped address 0x0 by `str x1, [x0]` at 0x4000fc, in crash+0x8 (segv)\n" +
			"icount:   called from main+0x8 (segv)\n" +
			"icount:   called from _start+0x4 (segv)\n"}},
	{name: "arm64 escape from a recursive call", prog: "arm64/escape", status: 139, insns: 12, stderr: []string{
		"icount: SIGSEGV: access to unmapped address 0x0 by `str x1, [x0]` at 0x400114, in f+0x2c (escape)\n" +
			"icount:   called from _start+0x8 (escape)\n"}},
	{name: "arm64 write to .text", prog: "arm64/writetext", status: 139, insns: 2, stderr: []string{
		"icount: SIGSEGV: access to 0x4000d4 violates its protection by `str w1, [x0]` at 0x4000dc, in _start+0x8 (writetext)\n"}},
	{name: "arm64 jump to data", prog: "arm64/jumpdata", status: 139, stderr: []string{
		"icount: SIGSEGV: jump to 0x410134, which is not mapped executable\n" +
			"icount:   called from main (jumpdata)\n"}},
	{name: "arm64 undefined instruction", prog: "arm64/undefined", status: 132, insns: 0, stderr: []string{
		"icount: SIGILL: `udf #0x0` (bytes 00 00 00 00) at 0x4000d4: permanently undefined, in _start (undefined)\n"}},
	{name: "arm64 system instruction", prog: "arm64/daif", status: 132, insns: 3, stderr: []string{
		"icount: SIGILL: `msr daifset, #0x2` at 0x4000e0: a system instruction a user program may not execute (undefined at EL0), in _start+0xc (daif)\n"}},
	// arm64 defines division by zero (the quotient is 0): no signal.
	{name: "arm64 divide by zero", prog: "arm64/divzero", status: 0, insns: 5},
	{name: "arm64 infinite loop, instruction limit", prog: "arm64/spin", flags: []string{"--max-instructions", "5000001"},
		status: exitInstructionLimit, insns: 5000001, reason: "max-instructions", stderr: []string{
			"icount:   called from main+0x4 (spin)\n"}},
	{name: "threads asleep, timeout", prog: "c/napper-musl", flags: []string{"--timeout", "500ms"},
		status: exitTimeout, reason: "timeout", stderr: []string{
			"icount: stopped by --timeout 500ms (wall clock), in __syscall_cp_c+0x",
			"icount:   called from nap+0x"}},
	{name: "arm64 infinite loop, timeout", prog: "arm64/spin", flags: []string{"--timeout", "500ms", "--count-only"},
		status: exitTimeout, reason: "timeout", stderr: []string{"icount: stopped by --timeout 500ms (wall clock), in spin"}},
	{name: "arm64 unbounded recursion", prog: "arm64/recurse", status: 139, stderr: []string{
		"stack overflow (the stack is 8 MiB), in recurse (recurse)\n" +
			"icount:   called from recurse+0xc (recurse), 524264 times\n"}},
	{name: "arm64 memory bomb", prog: "arm64/c/membomb-glibc", flags: []string{"--max-memory", "64M"}, status: 1,
		stdout: " failed after ", stderr: []string{"icount: warning: --max-memory 64 MiB refused the program memory"}},
	{name: "arm64 thread bomb", prog: "arm64/threadbomb", flags: []string{"--max-instructions", "3000001"},
		status: exitInstructionLimit, insns: 3000001, reason: "max-instructions", stderr: []string{
			"icount: instruction limit reached: stopped after exactly 3000001 instructions (--max-instructions), in _start+0x4 (threadbomb)\n"}},
	{name: "arm64 10,000 open files", prog: "arm64/c/openfiles-glibc", status: 0,
		stdout: "opened 1021 of 10000 files; 8979 failed with EMFILE, 0 otherwise\nafter closing them: open works\n"},
	{name: "arm64 1 MiB of arguments", prog: "arm64/c/args-glibc", args: mebibyteOfArgs(), status: 0, stdout: "1025 arguments, 1048587 bytes\n"},
}

// mebibyteOfArgs is 1024 arguments of 1023 bytes: 1 MiB with their NULs.
func mebibyteOfArgs() []string {
	args := make([]string, 1024)
	for i := range args {
		args[i] = strings.Repeat("x", 1023)
	}
	return args
}

// TestHostileGuests runs each hostile or broken guest: each ends within
// seconds with its message and exit status, a parseable Profile (marked
// incomplete, with the reason, when icount stopped it), and never a panic.
func TestHostileGuests(t *testing.T) {
	t.Parallel()
	for _, h := range hostileGuests {
		t.Run(h.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			r := runIcount(t, nil, h.flags, testProgram(t, filepath.Join("hostile", h.prog)), h.args...)
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("took %v", took)
			}
			noPanic(t, r.stderr)
			if r.status != h.status {
				t.Errorf("status %d, want %d; stderr:\n%s", r.status, h.status, r.stderr)
			}
			for _, s := range h.stderr {
				if !strings.Contains(r.stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, r.stderr)
				}
			}
			if !strings.Contains(r.stdout, h.stdout) {
				t.Errorf("stdout %q, want %q", r.stdout, h.stdout)
			}
			if r.profile == nil {
				t.Fatal("no profile")
			}
			if h.insns != 0 && r.profile.Totals.Instructions != h.insns {
				t.Errorf("%d instructions, want %d", r.profile.Totals.Instructions, h.insns)
			}
			if e := r.profile.Exit; e.Reason != h.reason || e.Complete != (h.reason == "") {
				t.Errorf("exit %+v, want reason %q", e, h.reason)
			}
		})
	}
}

func noPanic(t *testing.T, stderr string) {
	t.Helper()
	if strings.Contains(stderr, "panic:") || strings.Contains(stderr, "goroutine ") {
		t.Errorf("icount panicked:\n%s", stderr)
	}
}

// TestSignalStops sends SIGINT or SIGTERM to icount during a long run: the
// guest stops at the next block, and the Profile written is parseable,
// marked incomplete with the signal, and exact (the loop's two-instruction
// blocks and two calls make an even total); the status is 128+signal.
func TestSignalStops(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		sig    syscall.Signal
		name   string
		status int
		prog   string
	}{
		{syscall.SIGINT, "SIGINT", exitSIGINT, "amd64/spin"},
		{syscall.SIGTERM, "SIGTERM", exitSIGTERM, "amd64/spin"},
		{syscall.SIGINT, "SIGINT", exitSIGINT, "arm64/spin"},
	} {
		t.Run(c.name+" "+c.prog, func(t *testing.T) {
			jsonPath := filepath.Join(t.TempDir(), "profile.json")
			cmd := exec.Command(icountBin, "run", "--json", jsonPath, testProgram(t, filepath.Join("hostile", c.prog)))
			var errb bytes.Buffer
			cmd.Stderr = &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(500 * time.Millisecond)
			cmd.Process.Signal(c.sig)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("icount did not stop after %s", c.name)
			}
			noPanic(t, errb.String())
			if got := cmd.ProcessState.ExitCode(); got != c.status {
				t.Errorf("status %d, want %d; stderr:\n%s", got, c.status, errb.String())
			}
			if !strings.Contains(errb.String(), "icount: stopped by "+c.name+", in spin") {
				t.Errorf("stderr:\n%s", errb.String())
			}
			b, err := os.ReadFile(jsonPath)
			if err != nil {
				t.Fatal(err)
			}
			p, err := profile.Parse(jsonPath, b)
			if err != nil {
				t.Fatal(err)
			}
			if p.Exit.Complete || string(p.Exit.Reason) != c.name || p.Totals.Instructions == 0 || p.Totals.Instructions%2 != 0 {
				t.Errorf("profile: exit %+v, %d instructions", p.Exit, p.Totals.Instructions)
			}
		})
	}
}

// blocked is an icount run of busybox cat reading a pipe nobody writes.
type blocked struct {
	cmd  *exec.Cmd
	errb bytes.Buffer
	done chan error // Wait's result
}

// startBlocked starts `icount run flags... busybox cat` on such a pipe,
// which stays open until the test ends.
func startBlocked(t *testing.T, flags ...string) *blocked {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	bb := filepath.Join(repoRoot, ".deps", "busybox", "amd64", "busybox")
	b := &blocked{cmd: exec.Command(icountBin, append(append([]string{"run"}, flags...), bb, "cat")...), done: make(chan error, 1)}
	b.cmd.Stdin, b.cmd.Stderr = r, &b.errb
	if err := b.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	go func() { b.done <- b.cmd.Wait() }()
	return b
}

// waitReading waits until a thread of the run is blocked in read(2) on
// its standard input, as the guest's read of the pipe leaves it: before
// then the guest is still starting, for longer than any fixed pause on a
// loaded machine.
func (b *blocked) waitReading(t *testing.T) {
	t.Helper()
	tasks := fmt.Sprintf("/proc/%d/task", b.cmd.Process.Pid)
	reading := fmt.Sprintf("%d 0x0 ", unix.SYS_READ) // the call's number and its first argument, fd 0
	waitFor(t, func() bool {
		ents, _ := os.ReadDir(tasks)
		for _, e := range ents {
			if call, err := os.ReadFile(filepath.Join(tasks, e.Name(), "syscall")); err == nil && strings.HasPrefix(string(call), reading) {
				return true
			}
		}
		return false
	}, "the guest to block reading its stdin")
}

// wait waits up to limit for the run to end.
func (b *blocked) wait(t *testing.T, limit time.Duration) {
	t.Helper()
	select {
	case <-b.done:
	case <-time.After(limit):
		b.cmd.Process.Kill()
		t.Fatalf("icount did not exit within %v; stderr:\n%s", limit, b.errb.String())
	}
	noPanic(t, b.errb.String())
}

// TestTimeoutBlocked: a guest blocked reading a pipe nobody writes does not
// stop at --timeout; icount exits 124 after its grace period, saying so.
// The timeout leaves the guest time to reach its read on a loaded machine
// (at 200 ms it was sometimes still starting, and stopped there).
func TestTimeoutBlocked(t *testing.T) {
	t.Parallel()
	start := time.Now()
	b := startBlocked(t, "-q", "--timeout", "2s")
	b.wait(t, stopGrace+10*time.Second)
	if took := time.Since(start); b.cmd.ProcessState.ExitCode() != exitTimeout || took < stopGrace ||
		!strings.Contains(b.errb.String(), "icount: the program did not stop within 5s of being asked (it is blocked in a system call): exiting, nothing written\n") {
		t.Errorf("status %d after %v, stderr:\n%s", b.cmd.ProcessState.ExitCode(), took, b.errb.String())
	}
}

// TestSecondSignal: a guest blocked reading a pipe does not stop at the
// first SIGINT (or SIGTERM), nor at a second one within a second of it,
// the same request; one later than that makes icount exit at once, 130
// (143), writing nothing.
func TestSecondSignal(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		sig    syscall.Signal
		status int
	}{{syscall.SIGINT, exitSIGINT}, {syscall.SIGTERM, exitSIGTERM}} {
		name := unix.SignalName(c.sig)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			jsonPath := filepath.Join(t.TempDir(), "p.json")
			b := startBlocked(t, "-q", "--json", jsonPath)
			b.waitReading(t)
			b.cmd.Process.Signal(c.sig)
			time.Sleep(300 * time.Millisecond)
			b.cmd.Process.Signal(c.sig) // the same request
			select {
			case <-b.done:
				t.Fatalf("icount ended at the first %s, sent twice; stderr:\n%s", name, b.errb.String())
			case <-time.After(sameRequest):
			}
			b.cmd.Process.Signal(c.sig)
			b.wait(t, 5*time.Second)
			if _, err := os.Stat(jsonPath); b.cmd.ProcessState.ExitCode() != c.status || err == nil ||
				b.errb.String() != "icount: "+name+" again: exiting at once, nothing written\n" {
				t.Errorf("status %d, profile written %v, stderr:\n%s", b.cmd.ProcessState.ExitCode(), err == nil, b.errb.String())
			}
		})
	}
}
