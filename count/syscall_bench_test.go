package count

import (
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

// runCost sums what runs of icount cost.
type runCost struct {
	wall, cpu time.Duration
	allocs    uint64
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
