package count

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// BenchmarkSyscall measures icount's own cost of a guest system call:
// each iteration runs testdata's syscalls program twice, once making
// syscallsN getppid calls in a loop and once running the same loop with a
// jump where the call was, and charges the difference to the calls. It
// reports the wall time (ns/syscall), the CPU time of the whole process
// (cpu-ns/syscall: user and system, less disturbed by other work on the
// machine) and the heap allocations (allocs/syscall) of one call.
func BenchmarkSyscall(b *testing.B) {
	const syscallsN = 200000
	for _, arch := range []string{"amd64", "arm64"} {
		b.Run(arch, func(b *testing.B) {
			path := "../testdata/build/" + arch + "/syscalls"
			n := strconv.Itoa(syscallsN)
			var calls, jumps runCost
			for range b.N {
				calls.add(b, Options{Path: path, Args: []string{n}, Attribution: true}, 1)
				jumps.add(b, Options{Path: path, Args: []string{n, "jump"}, Attribution: true}, 0)
			}
			per := float64(b.N) * syscallsN
			b.ReportMetric(float64(calls.wall-jumps.wall)/per, "ns/syscall")
			b.ReportMetric(float64(calls.cpu-jumps.cpu)/per, "cpu-ns/syscall")
			b.ReportMetric(float64(calls.allocs-jumps.allocs)/per, "allocs/syscall")
		})
	}
}

// BenchmarkRead measures what a guest's reads cost icount: testdata's
// bigfile reads a file of 64 MiB with read(2) in pieces of 64 KiB and of
// 16 MiB. It reports the CPU time of the whole process (cpu-ns/MiB) and
// the bytes icount allocated (alloc-B/MiB) for each MiB read, the run's
// start and the file's digest at open included.
func BenchmarkRead(b *testing.B) {
	const size = 64 << 20
	path := filepath.Join(b.TempDir(), "big")
	data := make([]byte, size)
	for i := range data {
		data[i] = byte(i*7 + i>>12)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	for _, piece := range []int{64 << 10, 16 << 20} {
		b.Run(strconv.Itoa(piece>>10)+"KiB", func(b *testing.B) {
			var c runCost
			defer quietStdout(b)()
			for range b.N {
				c.add(b, Options{Path: "../testdata/build/c/bigfile-musl", Args: []string{"read", path, strconv.Itoa(piece)}}, 0)
			}
			mib := float64(b.N) * size / (1 << 20)
			b.ReportMetric(float64(c.cpu)/mib, "cpu-ns/MiB")
			b.ReportMetric(float64(c.bytes)/mib, "alloc-B/MiB")
		})
	}
}

// quietStdout sends the process's standard output, which the guests
// share, to /dev/null until the function it returns restores it.
func quietStdout(b *testing.B) func() {
	saved, err := unix.Dup(1)
	if err != nil {
		b.Fatal(err)
	}
	null, err := unix.Open(os.DevNull, unix.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer unix.Close(null)
	if err := unix.Dup2(null, 1); err != nil {
		b.Fatal(err)
	}
	return func() {
		unix.Dup2(saved, 1)
		unix.Close(saved)
	}
}

// runCost sums what runs of icount cost.
type runCost struct {
	wall, cpu     time.Duration
	allocs, bytes uint64
}

// add runs opts in process, expecting the guest to exit with status, and
// adds its cost.
func (c *runCost) add(b *testing.B, opts Options, status int) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu0 := processCPU(b)
	start := time.Now()
	p, err := Run(opts)
	c.wall += time.Since(start)
	c.cpu += processCPU(b) - cpu0
	runtime.ReadMemStats(&after)
	c.allocs += after.Mallocs - before.Mallocs
	c.bytes += after.TotalAlloc - before.TotalAlloc
	if err != nil {
		b.Fatal(err)
	}
	if p.Exit.Status != status {
		b.Fatalf("%s %v: exit %d, want %d", opts.Path, opts.Args, p.Exit.Status, status)
	}
}

// processCPU is the user and system time the process has used.
func processCPU(b *testing.B) time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
