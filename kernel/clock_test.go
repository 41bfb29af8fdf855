package kernel

import (
	"encoding/binary"
	"testing"

	"golang.org/x/sys/unix"
)

// TestClockIDs checks which clock ids a guest may read: the named ones,
// and the CPU-time clocks (negative ids) of its own process and thread.
func TestClockIDs(t *testing.T) {
	cpuClock := func(pid int32, thread bool, typ int32) int32 {
		id := ^pid<<3 | typ
		if thread {
			id |= 4
		}
		return id
	}
	for _, tc := range []struct {
		id   int32
		name string
		ok   bool
	}{
		{0, "CLOCK_REALTIME", true},
		{1, "CLOCK_MONOTONIC", true},
		{2, "CLOCK_PROCESS_CPUTIME_ID", true},
		{3, "CLOCK_THREAD_CPUTIME_ID", true},
		{7, "CLOCK_BOOTTIME", true},
		{11, "CLOCK_TAI", true},
		{10, "", false},
		{12, "", false},
		{cpuClock(0, false, 2), "CPU-time clock", true},  // clock_getcpuclockid(0)
		{cpuClock(PID, true, 2), "CPU-time clock", true}, // pthread_getcpuclockid
		{cpuClock(PID+1, false, 2), "", false},           // another process
		{cpuClock(0, false, 3), "", false},               // CPUCLOCK type 3
	} {
		k := &Kernel{procs: map[int]*Process{PID: {}}}
		name, _, err := k.clockID(tc.id)
		if (err == nil) != tc.ok || name != tc.name {
			t.Errorf("clockID(%d) = %q, %v; want %q, ok %v", tc.id, name, err, tc.name, tc.ok)
		}
		if !tc.ok && err != unix.EINVAL {
			t.Errorf("clockID(%d): error %v, want EINVAL", tc.id, err)
		}
	}
}

// TestTimespec checks the encoding of times, negative ones too.
func TestTimespec(t *testing.T) {
	for _, tc := range []struct {
		ns        int64
		usec      bool
		sec, frac int64
	}{
		{0, false, 0, 0},
		{1_500_000_001, false, 1, 500_000_001},
		{1_500_000_001, true, 1, 500_000},
		{-1, false, -1, 999_999_999},
		{-1_000_000_000, false, -1, 0},
	} {
		b := timespec(tc.ns, tc.usec)
		sec, frac := int64(binary.LittleEndian.Uint64(b)), int64(binary.LittleEndian.Uint64(b[8:]))
		if len(b) != 16 || sec != tc.sec || frac != tc.frac {
			t.Errorf("timespec(%d, %v) = %d, %d; want %d, %d", tc.ns, tc.usec, sec, frac, tc.sec, tc.frac)
		}
	}
}

// TestCPUList checks the kernel's list format for --cpus.
func TestCPUList(t *testing.T) {
	for n, want := range map[int]string{0: "0\n", 1: "0\n", 2: "0-1\n", 64: "0-63\n"} {
		p := &Process{k: &Kernel{opts: Options{CPUs: n}}}
		if got := p.cpuList(); got != want {
			t.Errorf("cpus %d: %q, want %q", n, got, want)
		}
	}
}
