package main

// Tests of the fixed clock and the determinism contract (issue 4): a
// self-calibrating benchmark does the same work on every run, counter reads
// mid-block count exactly and return the table's values, sleeps return at
// once, and counts do not depend on the binary's directory, the host's
// environment or the load on the machine.

import (
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// runIcountIn runs `icount run --json ... flags prog args` in dir with the
// environment env (nil: none at all, as `env -i` gives).
func runIcountIn(t *testing.T, dir string, env []string, flags []string, prog string, args ...string) result {
	t.Helper()
	if env == nil {
		env = []string{}
	}
	return runIcountWith(t, func(cmd *exec.Cmd) { cmd.Dir, cmd.Env = dir, env }, flags, prog, args...)
}

// sameRun reports how two runs of one program differ in what must not
// differ: output, exit status, totals, system calls, clock reads and the
// hottest blocks.
func sameRun(a, b result) string {
	switch {
	case a.profile == nil || b.profile == nil:
		return "a run has no profile"
	case a.stdout != b.stdout:
		return fmt.Sprintf("stdout %q vs %q", a.stdout, b.stdout)
	case a.status != b.status:
		return fmt.Sprintf("exit %d vs %d", a.status, b.status)
	case a.profile.Totals != b.profile.Totals:
		return fmt.Sprintf("totals %+v vs %+v", a.profile.Totals, b.profile.Totals)
	case !reflect.DeepEqual(a.profile.Syscalls, b.profile.Syscalls):
		return fmt.Sprintf("system calls %v vs %v", a.profile.Syscalls, b.profile.Syscalls)
	case !reflect.DeepEqual(a.profile.Meta.Clock, b.profile.Meta.Clock):
		return fmt.Sprintf("clock %+v vs %+v", a.profile.Meta.Clock, b.profile.Meta.Clock)
	case !reflect.DeepEqual(a.profile.HotBlocks, b.profile.HotBlocks):
		return "hot blocks differ"
	}
	return ""
}

// calibratePrograms are the builds of testdata/c/calibrate.c, by arch.
var calibratePrograms = []struct{ arch, path string }{
	{"amd64", "c/calibrate-musl"},
	{"amd64", "c/calibrate-glibc"},
	{"arm64", "arm64/c/calibrate-glibc"},
}

// TestFixedClockCalibration runs the self-calibrating benchmark five times
// under --fixed-clock, on both arches: every run settles on the same
// amount of work, prints the same iterations and score, and counts the
// same. With the default clock (read k returns k seconds) the first
// calibration run measures one second.
func TestFixedClockCalibration(t *testing.T) {
	t.Parallel()
	for _, p := range calibratePrograms {
		t.Run(strings.ReplaceAll(p.path, "/", "_"), func(t *testing.T) {
			t.Parallel()
			prog := testProgram(t, p.path)
			var first result
			for i := 0; i < 5; i++ {
				r := runIcount(t, nil, []string{"--fixed-clock"}, prog)
				if r.status != 0 || r.profile == nil {
					t.Fatalf("run %d: exit %d\n%s", i+1, r.status, r.stderr)
				}
				if i == 0 {
					first = r
					continue
				}
				if d := sameRun(first, r); d != "" {
					t.Fatalf("run %d differs from run 1: %s", i+1, d)
				}
			}
			for _, want := range []string{"calibration: 10 iterations in 1.000000 s\n", "iterations: 110\n",
				"time: 1.000000 s (gettimeofday 5.000000 s, ", "score: 110.00 iterations/s\n"} {
				if !strings.Contains(first.stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, first.stdout)
				}
			}
			c, u := first.profile.Meta.Clock, first.profile.Meta.ClockUse
			counter := map[string]string{"amd64": "rdtsc", "arm64": "CNTVCT_EL0"}[p.arch]
			if c.Mode != "fixed" || u.Reads != 8 || u.ReadsBySource[counter] != 2 ||
				u.ReadsBySource["clock_gettime(CLOCK_MONOTONIC)"] != 4 || c.StepNs != int64(time.Second) ||
				c.StartNs == nil || *c.StartNs != 0 {
				t.Errorf("clock metadata %+v %+v", c, u)
			}
			for _, w := range first.profile.Warnings {
				if strings.Contains(w, "clock") {
					t.Errorf("warning under --fixed-clock: %s", w)
				}
			}
			if !strings.Contains(first.stderr, "icount: fixed clock: 8 reads (") {
				t.Errorf("summary does not describe the clock:\n%s", first.stderr)
			}
		})
	}
}

// TestHostClockWarns: without --fixed-clock the time is the host's, and
// the summary says how often the guest read it and that the count may
// depend on timing.
func TestHostClockWarns(t *testing.T) {
	t.Parallel()
	for _, p := range calibratePrograms {
		t.Run(strings.ReplaceAll(p.path, "/", "_"), func(t *testing.T) {
			t.Parallel()
			// Calibrate to a millisecond: quick under emulation.
			r := runIcount(t, nil, nil, testProgram(t, p.path), "0.001", "0.001")
			if r.status != 0 || r.profile == nil {
				t.Fatalf("exit %d\n%s", r.status, r.stderr)
			}
			c, u := r.profile.Meta.Clock, r.profile.Meta.ClockUse
			counter := map[string]string{"amd64": "rdtsc", "arm64": "CNTVCT_EL0"}[p.arch]
			if c.Mode != "host" || u.Reads < 6 || u.ReadsBySource[counter] != 2 {
				t.Errorf("clock metadata %+v %+v", c, u)
			}
			want := fmt.Sprintf("icount: warning: the guest read the host clock %d times (", u.Reads)
			if !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "its count may depend on timing") {
				t.Errorf("no warning %q in:\n%s", want, r.stderr)
			}
		})
	}
}

// TestCounterReadsFromTable runs the hand-written counter readers with a
// three-value table: the reads return its values in order and then go on
// by its last step; the counts are those worked out in their headers.
func TestCounterReadsFromTable(t *testing.T) {
	t.Parallel()
	table := filepath.Join(t.TempDir(), "clock.table")
	if err := os.WriteFile(table, []byte("# three reads, then by the last step (100 ns)\n1000\n2500\n2600\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		prog string
		want []uint64 // the words of stdout
	}{
		// rdtsc x3, rdtscp at 2 GHz; TSC_AUX 0 (4 bytes, padded here).
		{"amd64/rdtsc", []uint64{2000, 5000, 5200, 5400, 0}},
		// CNTVCT_EL0 x3, CNTFRQ_EL0, CNTVCTSS_EL0 at 1 GHz.
		{"arm64/cntvct", []uint64{1000, 2500, 2600, 1_000_000_000, 2700}},
	} {
		for _, variant := range []string{tc.prog, tc.prog + "-pie"} {
			t.Run(strings.ReplaceAll(variant, "/", "_"), func(t *testing.T) {
				t.Parallel()
				arch := strings.Split(tc.prog, "/")[0]
				src := filepath.Join(repoRoot, "testdata", arch, filepath.Base(tc.prog)+".S")
				exp := readExpectation(t, src)
				r := runIcount(t, nil, []string{"--clock-table", table}, testProgram(t, variant))
				if r.profile == nil {
					t.Fatalf("no profile\n%s", r.stderr)
				}
				if got := r.profile.Totals; got.Instructions != exp.instructions || got.Blocks != exp.blocks || r.status != exp.exit {
					t.Errorf("instructions %d, blocks %d, exit %d; want %d, %d, %d", got.Instructions, got.Blocks, r.status,
						exp.instructions, exp.blocks, exp.exit)
				}
				out := []byte(r.stdout)
				for len(out)%8 != 0 {
					out = append(out, 0)
				}
				var got []uint64
				for i := 0; i < len(out); i += 8 {
					got = append(got, binary.LittleEndian.Uint64(out[i:]))
				}
				if !reflect.DeepEqual(got, tc.want) {
					t.Errorf("values %v, want %v", got, tc.want)
				}
				c, u := r.profile.Meta.Clock, r.profile.Meta.ClockUse
				if c.Mode != "fixed" || c.Table != table || c.TableValues != 3 || !u.TableRanOut || u.Reads != 4 ||
					c.StepNs != 100 || len(c.TableSHA256) != 64 {
					t.Errorf("clock metadata %+v %+v", c, u)
				}
				if !strings.Contains(r.stderr, "3 values, ran out: went on by its last step, 100ns") {
					t.Errorf("summary does not say the table ran out:\n%s", r.stderr)
				}
			})
		}
	}
}

// TestClockTableCalibration: a table decides what the calibration settles
// on. The first run measures 0.1 s, so the benchmark tries 100 iterations,
// which measure 1.5 s: it settles there, and the window of 100 * (1 +
// 10/1.5) = 700 iterations measures the table's last step, 0.5 s.
func TestClockTableCalibration(t *testing.T) {
	t.Parallel()
	table := filepath.Join(t.TempDir(), "clock.table")
	if err := os.WriteFile(table, []byte("0\n100000000\n1000000000\n2500000000\n3000000000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runIcount(t, nil, []string{"--clock-table", table}, testProgram(t, "c/calibrate-musl"))
	if r.status != 0 {
		t.Fatalf("exit %d\n%s", r.status, r.stderr)
	}
	for _, want := range []string{"calibration: 100 iterations in 1.500000 s\n", "iterations: 700\n",
		"time: 0.500000 s", "score: 1400.00 iterations/s\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
}

// TestClockFlagErrors: a malformed table is refused with the line it is
// wrong on, and so are bad clock flags, with the usage status.
func TestClockFlagErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	prog := testProgram(t, "amd64/rdtsc")
	for _, tc := range []struct {
		flags []string
		want  string
	}{
		{[]string{"--clock-table", write("word", "1000\n2000\nsoon\n")}, `line 3: "soon" is not an integer number of nanoseconds`},
		{[]string{"--clock-table", write("down", "# header\n1000\n\n5000\n3000\n")}, "line 5: 3000 is not after 5000 (line 4): values must increase strictly"},
		{[]string{"--clock-table", write("same", "7\n7\n")}, "line 2: 7 is not after 7 (line 1)"},
		{[]string{"--clock-table", write("empty", "# nothing\n")}, "no values"},
		{[]string{"--clock-table", filepath.Join(dir, "missing")}, "no such file"},
		{[]string{"--clock-step", "0s"}, "--clock-step 0s: want a positive duration"},
		{[]string{"--clock-step", "fast"}, "invalid argument"},
		{[]string{"--clock-start", "yesterday"}, "--clock-start"},
		{[]string{"--clock-start", "5", "--clock-table", write("ok", "1\n")}, "the table's first value is the start"},
		{[]string{"--cpus", "0"}, "--cpus 0: want 1 to 1024"},
	} {
		r := runIcount(t, nil, tc.flags, prog)
		if r.status != exitUsage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.flags, r.status, r.stderr, exitUsage, tc.want)
		}
		if r.stdout != "" {
			t.Errorf("%v: the guest ran: %q", tc.flags, r.stdout)
		}
	}
}

// TestPinnedFromAnywhere: the same binary run from two directories (given
// by paths of different lengths, icount started in each), with no host
// environment at all and with a large one (the guest's stays empty
// without --inherit-env), and with every core of the machine busy, counts
// the same, down to the hottest blocks.
func TestPinnedFromAnywhere(t *testing.T) {
	t.Parallel()
	for _, p := range calibratePrograms {
		t.Run(strings.ReplaceAll(p.path, "/", "_"), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(testProgram(t, p.path))
			if err != nil {
				t.Fatal(err)
			}
			name := filepath.Base(p.path)
			near := filepath.Join(t.TempDir(), "a")
			far := filepath.Join(t.TempDir(), "a", "directory", "whose", "path", "is", "much", "longer", "than", "the", "other")
			for _, d := range []string{near, far} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(d, name), data, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			big := os.Environ()
			for i := 0; i < 300; i++ {
				big = append(big, fmt.Sprintf("ICOUNT_TEST_PADDING_%d=%s", i, strings.Repeat("x", 200+i)))
			}
			flags := []string{"--fixed-clock"}
			base := runIcountIn(t, near, nil, flags, "./"+name)
			if base.status != 0 {
				t.Fatalf("exit %d\n%s", base.status, base.stderr)
			}
			runs := map[string]result{
				"from a longer path":       runIcountIn(t, far, nil, flags, filepath.Join(far, name)),
				"given by a relative path": runIcountIn(t, filepath.Dir(far), nil, flags, filepath.Join(filepath.Base(far), name)),
				"with a large environment": runIcountIn(t, near, big, flags, "./"+name),
			}
			busy := loadEveryCore(t)
			runs["with every core busy"] = runIcountIn(t, far, big, flags, filepath.Join(far, name))
			runs["with every core busy, again"] = runIcountIn(t, near, nil, flags, "./"+name)
			if n := busy(); n == 0 {
				t.Errorf("the busy loops did not run")
			}
			for what, r := range runs {
				if d := sameRun(base, r); d != "" {
					t.Errorf("%s: %s", what, d)
				}
			}
		})
	}
}

// spinSink keeps the busy loops' work from being optimised away.
var spinSink atomic.Uint64

// loadEveryCore keeps every CPU of the machine busy with a spinning
// goroutine until the returned function is called (or 60 s pass); it
// returns how many rounds the loops made.
func loadEveryCore(t *testing.T) func() uint64 {
	var stop atomic.Bool
	var spins atomic.Uint64
	deadline := time.Now().Add(60 * time.Second)
	done := make(chan struct{})
	n := runtime.NumCPU()
	for i := 0; i < n; i++ {
		go func() {
			defer func() { done <- struct{}{} }()
			x := uint64(1)
			for !stop.Load() && time.Now().Before(deadline) {
				for j := 0; j < 1<<16; j++ {
					x = x*6364136223846793005 + 1442695040888963407
				}
				spins.Add(1)
				spinSink.Store(x)
			}
		}()
	}
	time.Sleep(50 * time.Millisecond) // let the loops take the cores
	return func() uint64 {
		stop.Store(true)
		for i := 0; i < n; i++ {
			<-done
		}
		return spins.Load()
	}
}

// TestSleepReturnsAtOnce: a program that sleeps 10 s (nanosleep, sleep and
// an absolute clock_nanosleep) finishes in well under a second under
// --fixed-clock, measures the virtual time it slept, and counts the same on
// every run.
func TestSleepReturnsAtOnce(t *testing.T) {
	t.Parallel()
	for _, prog := range []string{"c/sleeper-musl", "c/sleeper-glibc", "arm64/c/sleeper-glibc"} {
		t.Run(strings.ReplaceAll(prog, "/", "_"), func(t *testing.T) {
			var first result
			for i := 0; i < 3; i++ {
				start := time.Now()
				r := runIcount(t, nil, []string{"--fixed-clock"}, testProgram(t, prog))
				wall := time.Since(start)
				if r.status != 0 || r.stdout != "slept 12.000000 s\n" {
					t.Fatalf("exit %d, stdout %q\n%s", r.status, r.stdout, r.stderr)
				}
				// A real sleep would take 10 s; the bound leaves room for a
				// loaded machine (a run takes well under a second when idle).
				if wall > 5*time.Second {
					t.Errorf("run %d took %v of wall time for 10 s of sleep", i+1, wall)
				}
				c := r.profile.Meta.ClockUse
				if c.Sleeps != 3 || c.SleptNs != 10e9 || c.Reads != 3 {
					t.Errorf("clock metadata %+v", c)
				}
				if i == 0 {
					first = r
				} else if d := sameRun(first, r); d != "" {
					t.Errorf("run %d differs: %s", i+1, d)
				}
			}
		})
	}
}

// TestPinnedHostFiles: /dev/urandom reads the seeded generator, and the CPU
// description and count come from the emulated CPU and --cpus (busybox's
// head, cat and nproc, both arches).
func TestPinnedHostFiles(t *testing.T) {
	t.Parallel()
	for _, arch := range []string{"amd64", "arm64"} {
		t.Run(arch, func(t *testing.T) {
			t.Parallel()
			bb := busybox(t, arch)
			run := func(flags []string, args ...string) string {
				t.Helper()
				r := runIcount(t, nil, append([]string{"-q"}, flags...), bb, args...)
				if r.status != 0 {
					t.Fatalf("%v: exit %d\n%s", args, r.status, r.stderr)
				}
				return r.stdout
			}
			a := run(nil, "head", "-c", "32", "/dev/urandom")
			b := run(nil, "head", "-c", "32", "/dev/random")
			c := run([]string{"--seed", "7"}, "head", "-c", "32", "/dev/urandom")
			if len(a) != 32 || a != run(nil, "head", "-c", "32", "/dev/urandom") || a != b || a == c {
				t.Errorf("/dev/urandom: %x, again the same, /dev/random %x, seed 7 %x", a, b, c)
			}
			if got := run(nil, "nproc"); got != "1\n" {
				t.Errorf("nproc %q", got)
			}
			if got := run([]string{"--cpus", "4"}, "nproc"); got != "4\n" {
				t.Errorf("nproc with --cpus 4: %q", got)
			}
			if got := run([]string{"--cpus", "4"}, "cat", "/sys/devices/system/cpu/online"); got != "0-3\n" {
				t.Errorf("online with --cpus 4: %q", got)
			}
			info := run([]string{"--cpus", "2"}, "cat", "/proc/cpuinfo")
			want := map[string][]string{
				"amd64": {"processor\t: 1\n", "vendor_id\t: AuthenticAMD\n", "model name\t: QEMU Virtual CPU version 2.5+\n", " rdtscp ", " constant_tsc "},
				"arm64": {"processor\t: 1\n", "Features\t: fp asimd aes pmull sha1 sha2 crc32 cpuid\n", "CPU part\t: 0xd08\n"},
			}[arch]
			for _, w := range want {
				if !strings.Contains(info, w) {
					t.Errorf("/proc/cpuinfo lacks %q:\n%s", w, info)
				}
			}
			if strings.Contains(info, "rdrand") || strings.Contains(info, "svm") {
				t.Errorf("/proc/cpuinfo advertises what icount hides:\n%s", info)
			}
			// The memory of sysinfo (free) and /proc/meminfo, not the host's.
			mem := run(nil, "cat", "/proc/meminfo")
			if !strings.HasPrefix(mem, "MemTotal:        4194304 kB\nMemFree:         2097152 kB\nMemAvailable:    2097152 kB\n") ||
				!strings.Contains(mem, "\nSwapTotal:             0 kB\n") || !strings.HasSuffix(mem, "\nHugetlb:               0 kB\n") {
				t.Errorf("/proc/meminfo:\n%s", mem)
			}
			if free := strings.Fields(run(nil, "free")); len(free) < 10 || free[7] != "4194304" {
				t.Errorf("free (sysinfo) says %v, want a total of 4194304 kB", free)
			}
		})
	}
}

// TestCounterReadInWrittenCode: an rdtsc in code the program stores into
// executable memory itself is hooked when its block is first seen, before
// it runs, as one in code loaded from a file is: both reads, the first
// too, read the guest's clock, and nothing is warned of.
func TestCounterReadInWrittenCode(t *testing.T) {
	t.Parallel()
	prog := testProgram(t, "c/jitclock-musl")
	var first result
	for i := 0; i < 2; i++ {
		r := runIcount(t, nil, []string{"--fixed-clock", "--clock-start", "1s"}, prog)
		if r.status != 0 || r.stdout != "first 2000000000\nsecond 4000000000\n" {
			t.Fatalf("exit %d, stdout %q\n%s", r.status, r.stdout, r.stderr)
		}
		if strings.Contains(r.stderr, "icount: warning:") {
			t.Errorf("a warning:\n%s", r.stderr)
		}
		if c := r.profile.Meta.ClockUse; c.Reads != 2 || c.ReadsBySource["rdtsc"] != 2 {
			t.Errorf("clock metadata %+v", c)
		}
		if i == 0 {
			first = r
		} else if d := sameRun(first, r); d != "" {
			t.Errorf("second run differs: %s", d)
		}
	}
}
