package main

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Executables made hostile from real ones: each must cost the host what
// its real content needs, not what its headers claim.

// withLastLoadMemsz copies the executable at src into dir with the
// memory size of its last PT_LOAD set to memsz (its zero part grows).
func withLastLoadMemsz(t *testing.T, src, dir string, memsz uint64) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	phoff, phnum := le.Uint64(b[0x20:]), int(le.Uint16(b[0x38:]))
	last := -1
	for i := 0; i < phnum; i++ {
		if elf.ProgType(le.Uint32(b[phoff+uint64(56*i):])) == elf.PT_LOAD {
			last = i
		}
	}
	if last < 0 {
		t.Fatalf("%s has no PT_LOAD", src)
	}
	le.PutUint64(b[phoff+uint64(56*last)+40:], memsz)
	out := filepath.Join(dir, filepath.Base(src)+"-big")
	if err := os.WriteFile(out, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return out
}

// measured is a command run under GNU time, which forks it afresh: a
// direct child of the test's process reports the test's own size as its
// peak, as Linux keeps a process's peak across exec.
type measured struct {
	*exec.Cmd
	peakFile string
}

// measure makes the command icount args, in its own process group (ctx's
// end kills the group), with its peak resident size measured.
func measure(t *testing.T, ctx context.Context, args ...string) measured {
	t.Helper()
	if _, err := os.Stat("/usr/bin/time"); err != nil {
		t.Fatalf("GNU time is missing: install Debian's time (make deps does)")
	}
	peak := filepath.Join(t.TempDir(), "peak")
	cmd := exec.CommandContext(ctx, "/usr/bin/time", append([]string{"-q", "-f", "%M", "-o", peak, icountBin}, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	return measured{cmd, peak}
}

// peakRSS is the finished command's peak resident size in bytes, -1 if
// GNU time did not say.
func (m measured) peakRSS() int64 {
	b, err := os.ReadFile(m.peakFile)
	var kib int64
	if err != nil || len(bytes.Fields(b)) == 0 {
		return -1
	}
	if _, err := fmt.Sscan(string(bytes.Fields(b)[0]), &kib); err != nil {
		return -1
	}
	return kib << 10
}

// A PT_LOAD of 256 GiB past --max-memory is refused at once, with the
// sizes; one of 1 GiB runs in a few MiB of host memory (its zero part is
// backed when touched); a 256 GiB one without a bound runs and answers
// SIGTERM.
func TestHugeSegment(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	huge := withLastLoadMemsz(t, testProgram(t, "c/empty-musl"), dir, 256<<30)
	start := time.Now()
	r := runIcount(t, nil, []string{"--max-memory", "1G"}, huge)
	want := huge + ": its segments map 256.0 GiB, more than --max-memory allows (1.0 GiB)"
	if r.status != 126 || !strings.Contains(r.stderr, want) || time.Since(start) > 10*time.Second {
		t.Errorf("status %d after %v, stderr %q; want 126 at once with %q", r.status, time.Since(start), r.stderr, want)
	}
	noPanic(t, r.stderr)

	gig := withLastLoadMemsz(t, testProgram(t, "c/empty-musl"), dir, 1<<30)
	m := measure(t, context.Background(), "run", "-q", gig)
	if out, err := m.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", gig, err, out)
	}
	if rss := m.peakRSS(); rss < 0 || rss > 200<<20 {
		t.Errorf("a 1 GiB zero part took %d MiB of host memory, want under 200", rss>>20)
	}

	spin := withLastLoadMemsz(t, testProgram(t, "hostile/amd64/spin"), dir, 256<<30)
	cmd := exec.Command(icountBin, "run", "-q", spin)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("a 256 GiB segment's run did not answer SIGTERM in 20 s")
	}
	if st := cmd.ProcessState.ExitCode(); st != exitSIGTERM {
		t.Errorf("status %d after SIGTERM, want %d; stderr:\n%s", st, exitSIGTERM, errb.String())
	}
	noPanic(t, errb.String())
}

// A 1 GiB file that is not ELF is refused from its first bytes: it is
// not read whole.
func TestHugeNotELF(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "notelf")
	if err := os.WriteFile(path, []byte("MZ not an ELF file\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 1<<30); err != nil {
		t.Fatal(err)
	}
	m := measure(t, context.Background(), "run", path)
	out, _ := m.CombinedOutput()
	want := path + ": is not an ELF file"
	if m.ProcessState.ExitCode() != 126 || !strings.Contains(string(out), want) {
		t.Errorf("status %d, output %q; want 126 with %q", m.ProcessState.ExitCode(), out, want)
	}
	if rss := m.peakRSS(); rss < 0 || rss > 100<<20 {
		t.Errorf("refusing a 1 GiB file took %d MiB of host memory, want under 100", rss>>20)
	}
}

// withHugeLineCounts copies the -g executable at src into dir with each
// DWARF 5 line table's directory table given one format and a count of
// 2^32-1 entries (debug/dwarf would allocate 64 GiB for it).
func withHugeLineCounts(t *testing.T, src, dir string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	sec := f.Section(".debug_line")
	if sec == nil {
		t.Fatalf("%s has no .debug_line", src)
	}
	le := binary.LittleEndian
	units := 0
	for off := sec.Offset; off+4 <= sec.Offset+sec.Size; {
		length := uint64(le.Uint32(b[off:]))
		if le.Uint16(b[off+4:]) == 5 {
			// After the fixed fields and 12 standard opcode lengths:
			// one format (DW_LNCT_path, DW_FORM_string), then the count.
			copy(b[off+30:], []byte{1, 1, 0x08, 0xff, 0xff, 0xff, 0xff, 0x0f})
			units++
		}
		off += 4 + length
	}
	if units == 0 {
		t.Fatalf("%s has no DWARF 5 line table", src)
	}
	return writeProgram(t, filepath.Join(dir, "bad", filepath.Base(src)), b)
}

// writeProgram writes an executable at path, making its directory.
func writeProgram(t *testing.T, path string, b []byte) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// Line tables whose counts claim more than the file holds are left out,
// with a warning; the run is the same (against the good binary at a path
// of the same length), and icount's memory is not the count's.
func TestCorruptLineTables(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := testProgram(t, "c/callgraph-musl-g")
	prog := withHugeLineCounts(t, src, dir)
	orig, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	good := runIcount(t, nil, []string{"--lines"}, writeProgram(t, filepath.Join(dir, "oks", "callgraph-musl-g"), orig))
	r := runIcount(t, nil, []string{"--lines"}, prog)
	noPanic(t, r.stderr)
	if r.status != good.status || r.profile == nil || r.profile.Totals.Instructions != good.profile.Totals.Instructions {
		t.Fatalf("status %d, profile %v; want the good run's status %d and count", r.status, r.profile != nil, good.status)
	}
	want := "callgraph-musl-g: its DWARF is corrupt (malformed line table header: at 0x0, 4294967295 entries in "
	found := false
	for _, w := range r.profile.Warnings {
		found = found || strings.HasPrefix(w, want)
	}
	if !found || !strings.Contains(r.stderr, want) {
		t.Errorf("warnings %q, stderr %q; want one starting %q", r.profile.Warnings, r.stderr, want)
	}
	withFile := 0
	for _, l := range good.profile.Lines {
		if l.File != "" {
			withFile++
		}
	}
	if withFile == 0 {
		t.Fatalf("the good binary's run has no line with a file")
	}
	for _, l := range r.profile.Lines {
		if l.File != "" {
			t.Errorf("a line from a corrupt table: %+v", l)
			break
		}
	}
}

// annotate of a Profile naming /dev/zero, a FIFO and a directory as its
// sources (and /dev/zero as its binary) says, for each, that it is not a
// regular file, and ends at once: it neither waits for the FIFO's writer
// nor reads the device without end.
func TestAnnotateNonRegularSources(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	r := runIcount(t, nil, []string{"--lines"}, testProgram(t, "c/callgraph-musl-g"))
	if r.status != 0 || r.profile == nil || len(r.profile.Lines) < 3 {
		t.Fatalf("status %d, profile %v", r.status, r.profile != nil)
	}
	p := r.profile
	names := []string{"/dev/zero", fifo, dir}
	for i := range p.Lines {
		p.Lines[i].File = names[i%len(names)]
	}
	p.Meta.Binary.Path = "/dev/zero"
	for i := range p.Mappings {
		p.Mappings[i].File = "/dev/zero"
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "hostile.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	m := measure(t, ctx, "annotate", path)
	out, err := m.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("annotate did not end in 20 s")
	}
	if err != nil {
		t.Fatalf("annotate: %v\n%s", err, out)
	}
	for _, want := range []string{
		"-- not shown: /dev/zero is not a regular file (a character device); the counts by line:",
		"-- not shown: " + fifo + " is not a regular file (a FIFO); the counts by line:",
		"-- not shown: " + dir + " is not a regular file (a directory); the counts by line:",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("annotate's output lacks %q:\n%s", want, out)
		}
	}
	if rss := m.peakRSS(); rss < 0 || rss > 200<<20 {
		t.Errorf("annotate took %d MiB of host memory, want under 200", rss>>20)
	}
}

// Sixteen threads blocked in 16 MiB writes to a full pipe hold none of
// those bytes in icount: the writes take the guest's bytes as the pipe has
// room (a piece the size of that room), so icount's memory stays far below
// the 256 MiB the writes ask for (522 MiB when each blocked write held a
// copy of its buffer), and every byte arrives.
func TestBlockedWritesHoldNothing(t *testing.T) {
	t.Parallel()
	for _, prog := range []string{"hostile/c/pipehog-musl", "hostile/arm64/c/pipehog-glibc"} {
		t.Run(prog, func(t *testing.T) {
			t.Parallel()
			m := measure(t, context.Background(), "run", "-q", testProgram(t, prog))
			var errb bytes.Buffer
			m.Stderr = &errb
			out, err := m.Output()
			if err != nil {
				t.Fatalf("%v\n%s", err, errb.String())
			}
			if want := "read 268435456 bytes, 268435456 of them x\n"; string(out) != want {
				t.Errorf("stdout %q, want %q", out, want)
			}
			if rss := m.peakRSS(); rss < 0 || rss > 160<<20 {
				t.Errorf("icount took %d MiB of host memory, want under 160", rss>>20)
			}
		})
	}
}

// A guest's execve of a program whose segments exceed --max-memory fails
// past the point of no return, as Linux's under ulimit -v: the child dies
// of SIGSEGV (the native run under the same limit is the judge).
func TestExecPastMaxMemory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct{ prog, target string }{
		{"hostile/c/execbig-musl", "c/empty-musl"},
		{"hostile/arm64/c/execbig-glibc", "hostile/arm64/c/args-glibc"},
	} {
		t.Run(c.prog, func(t *testing.T) {
			t.Parallel()
			big := withLastLoadMemsz(t, testProgram(t, c.target), dir, 256<<30)
			want := "the child was killed by signal 11\n"
			if !strings.Contains(c.prog, "arm64") {
				out, err := exec.Command("sh", "-c", `ulimit -v 1048576 && exec "$0" "$1"`, testProgram(t, c.prog), big).Output()
				if err != nil || string(out) != want {
					t.Fatalf("natively: %q, %v; want %q", out, err, want)
				}
			}
			r := runIcount(t, nil, []string{"--max-memory", "1G"}, testProgram(t, c.prog), big)
			noPanic(t, r.stderr)
			if r.status != 0 || r.stdout != want {
				t.Errorf("status %d, stdout %q; want 0 and %q; stderr:\n%s", r.status, r.stdout, want, r.stderr)
			}
		})
	}
}
