package main

import (
	"bytes"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// jitteryWriter takes what a command writes to its stdout pipe (exec
// copies the pipe into it up to 32 KiB at a time) in pieces of a random
// size up to 8 KiB, each after a random pause of up to pause, or at once
// when pause is 0, so that the pipe is full or empty as the host happens
// to schedule the copy.
type jitteryWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	rng   *rand.Rand
	pause time.Duration
}

func (w *jitteryWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.pause == 0 {
		return w.buf.Write(b)
	}
	for rest := b; len(rest) > 0; {
		n := min(len(rest), 1+w.rng.Intn(8<<10))
		time.Sleep(time.Duration(w.rng.Int63n(int64(w.pause))))
		w.buf.Write(rest[:n])
		rest = rest[n:]
	}
	return len(b), nil
}

// xzInput writes dir/text.txt: 3 MiB of text from a fixed seed, which xz
// compresses about fourfold.
func xzInput(t *testing.T, dir string) string {
	t.Helper()
	words := strings.Fields("alpha beta gamma delta pipe count block thread host guest reader writer")
	rng := rand.New(rand.NewSource(1))
	var b bytes.Buffer
	for b.Len() < 3<<20 {
		for i := 0; i < 12; i++ {
			fmt.Fprintf(&b, "%s%d ", words[rng.Intn(len(words))], rng.Intn(1000))
		}
		b.WriteByte('\n')
	}
	path := filepath.Join(dir, "text.txt")
	if err := os.WriteFile(path, b.Bytes()[:3<<20], 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestXzHostPipe runs Debian's xz compressing and decompressing 3 MiB
// with one and two threads into a host pipe (icount's stdout, which xz
// makes non-blocking and polls), drained by a reader that pauses at random
// and by one that does not, twice each: every run writes what the native
// run writes and exits 0, and all runs of one command count the same
// instructions, system calls and per-thread totals, however fast the
// reader was.
func TestXzHostPipe(t *testing.T) {
	t.Parallel()
	xz := hostProgram(t, "xz")
	dir := t.TempDir()
	input := xzInput(t, dir)
	packed, status := runNative(t, dir, nil, xz, "-1", "-T2", "--block-size=512KiB", "-c", input)
	if status != 0 {
		t.Fatalf("native xz: status %d", status)
	}
	if err := os.WriteFile(filepath.Join(dir, "text.xz"), []byte(packed), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, args string }{
		{"compress-T1", "-1 -T1 --block-size=512KiB -c text.txt"},
		{"compress-T2", "-1 -T2 --block-size=512KiB -c text.txt"},
		{"decompress-T1", "-T1 -dc text.xz"},
		{"decompress-T2", "-T2 -dc text.xz"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			args := strings.Fields(c.args)
			want, status := runNative(t, dir, nil, xz, args...)
			if status != 0 {
				t.Fatalf("native run: status %d", status)
			}
			var first result
			for i, pause := range []time.Duration{2 * time.Millisecond, 0, 2 * time.Millisecond, 0} {
				out := &jitteryWriter{rng: rand.New(rand.NewSource(time.Now().UnixNano())), pause: pause}
				r := runIcountWith(t, func(cmd *exec.Cmd) {
					cmd.Dir, cmd.Env, cmd.Stdin, cmd.Stdout = dir, []string{}, bytes.NewReader(nil), out
				}, []string{"-q", "--fixed-clock"}, xz, args...)
				got := out.buf.String()
				if r.status != 0 || got != want || r.profile == nil {
					t.Fatalf("run %d (reader pausing up to %v): exit %d, %d bytes written, equal to the native run's: %v; stderr:\n%s",
						i, pause, r.status, len(got), got == want, r.stderr)
				}
				if i == 0 {
					first = r
					continue
				}
				if r.profile.Totals != first.profile.Totals || !reflect.DeepEqual(r.profile.Syscalls, first.profile.Syscalls) ||
					!reflect.DeepEqual(r.profile.Threads, first.profile.Threads) {
					t.Fatalf("run %d (reader pausing up to %v) counted %+v, the first %+v", i, pause, r.profile.Totals, first.profile.Totals)
				}
			}
			t.Logf("xz %s: %d instructions, %d threads", c.args, first.profile.Totals.Instructions, len(first.profile.Threads))
		})
	}
}

// jitteryReader gives a command's stdin pipe (exec copies it in) data in
// pieces of a random size up to 8 KiB, each after a random pause of up to
// pause, so that a read of the pipe finds as much as the host happened to
// copy by then.
type jitteryReader struct {
	data  []byte
	rng   *rand.Rand
	pause time.Duration
}

func (r *jitteryReader) Read(b []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	time.Sleep(time.Duration(r.rng.Int63n(int64(r.pause))))
	n := copy(b, r.data[:min(len(r.data), 1+r.rng.Intn(8<<10))])
	r.data = r.data[n:]
	return n, nil
}

// TestHostPipeReads runs Debian's wc and md5sum, which read stdin in
// pieces and count the reads' work, on 512 KiB written into a host pipe
// (icount's stdin) in pieces of random size after random pauses, three
// times each: every run prints what the native run prints, and all count
// the same.
func TestHostPipeReads(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	input, err := os.ReadFile(xzInput(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	input = input[:512<<10]
	for _, name := range []string{"wc", "md5sum"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			prog := hostProgram(t, name)
			want, status := runNative(t, dir, input, prog)
			if status != 0 {
				t.Fatalf("native run: status %d", status)
			}
			var first result
			for i := range 3 {
				in := &jitteryReader{data: input, rng: rand.New(rand.NewSource(time.Now().UnixNano())), pause: time.Millisecond}
				r := runIcountWith(t, func(cmd *exec.Cmd) { cmd.Dir, cmd.Env, cmd.Stdin = dir, []string{}, in },
					[]string{"-q", "--fixed-clock"}, prog)
				if r.status != 0 || r.stdout != want || r.profile == nil {
					t.Fatalf("run %d: exit %d, output %q, want %q; stderr:\n%s", i, r.status, r.stdout, want, r.stderr)
				}
				if i == 0 {
					first = r
				} else if diff := sameRun(first, r); diff != "" {
					t.Fatalf("run %d differs from the first: %s", i, diff)
				}
			}
		})
	}
}

// TestSIGPIPEHostReader runs `icount run yes | head -1`: the reader of
// icount's stdout, a host pipe, exits after its line, and yes's next write
// raises SIGPIPE, which kills it as natively (`yes | head -1`: yes's
// status 141).
func TestSIGPIPEHostReader(t *testing.T) {
	t.Parallel()
	const script = `"$@" | head -1; echo "status ${PIPESTATUS[0]}"`
	native, err := exec.Command("/bin/bash", "-c", script, "sh", "/usr/bin/yes").Output()
	if err != nil || string(native) != "y\nstatus 141\n" {
		t.Fatalf("natively: %v, output:\n%s", err, native)
	}
	cmd := exec.Command("/bin/bash", "-c", script, "sh", icountBin, "run", "-q", "/usr/bin/yes")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || string(out) != string(native) || stderr.String() != "icount: SIGPIPE: the program was sent SIGPIPE and has no handler for it\n" {
		t.Fatalf("under icount: %v, output:\n%s\nwant:\n%s\nstderr:\n%s", err, out, native, stderr.String())
	}
}
