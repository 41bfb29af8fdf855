package kernel

import (
	"fmt"
	"strings"
)

// The machine the guest is told it runs on, the same in sysinfo(2),
// uname(2) and the system-wide files of /proc (meminfo, uptime, loadavg,
// stat, version, sys/kernel): 4 GiB of memory, half of it free, no swap,
// no load, booted when the clock began. The host's would tell each run a
// different story (Node sizes its heap from MemTotal).

const (
	guestRAM     = 4 << 30 // bytes, sysinfo's totalram and MemTotal
	guestFreeRAM = guestRAM / 2
)

// The kernel uname names.
const (
	kernelRelease = "6.1.0-icount"
	kernelVersion = "#1 SMP PREEMPT_DYNAMIC icount"
	nodeName      = "icount"
)

// machineFile returns the contents of a system-wide /proc file icount
// answers.
func (p *Process) machineFile(path string) (string, bool) {
	switch path {
	case "/proc/meminfo":
		return meminfo(), true
	case "/proc/uptime":
		up := p.uptime()
		return fmt.Sprintf("%d.00 %d.00\n", up, up*uint64(p.cpus())), true
	case "/proc/loadavg":
		return fmt.Sprintf("0.00 0.00 0.00 1/%d %d\n", p.k.liveTasks(), p.k.nextID-1), true
	case "/proc/stat":
		var b strings.Builder
		zeros := " 0 0 0 0 0 0 0 0 0 0\n"
		b.WriteString("cpu " + zeros)
		for i := range p.cpus() {
			fmt.Fprintf(&b, "cpu%d%s", i, zeros)
		}
		fmt.Fprintf(&b, "intr 0\nctxt 0\nbtime 0\nprocesses %d\nprocs_running 1\nprocs_blocked 0\nsoftirq 0\n", p.k.nextID-PID)
		return b.String(), true
	case "/proc/version":
		return "Linux version " + kernelRelease + " (icount) " + kernelVersion + "\n", true
	case "/proc/sys/kernel/osrelease":
		return kernelRelease + "\n", true
	case "/proc/sys/kernel/version":
		return kernelVersion + "\n", true
	case "/proc/sys/kernel/ostype":
		return "Linux\n", true
	case "/proc/sys/kernel/hostname":
		return nodeName + "\n", true
	}
	return "", false
}

// meminfo is /proc/meminfo for the memory sysinfo reports, its lines as
// Linux writes them (the name, padded, and kB in eight columns); what the
// guest's machine does not have (swap, huge pages in use) is 0.
func meminfo() string {
	const total, free = guestRAM >> 10, guestFreeRAM >> 10
	var b strings.Builder
	for _, f := range []struct {
		name string
		kb   int
	}{
		{"MemTotal", total}, {"MemFree", free}, {"MemAvailable", free}, {"Buffers", 0}, {"Cached", 0},
		{"SwapCached", 0}, {"Active", total - free}, {"Inactive", 0}, {"SwapTotal", 0}, {"SwapFree", 0},
		{"Dirty", 0}, {"Writeback", 0}, {"AnonPages", total - free}, {"Mapped", 0}, {"Shmem", 0},
		{"Slab", 0}, {"SReclaimable", 0}, {"SUnreclaim", 0}, {"CommitLimit", total / 2}, {"Committed_AS", total - free},
	} {
		fmt.Fprintf(&b, "%-16s%8d kB\n", f.name+":", f.kb)
	}
	for _, name := range []string{"HugePages_Total", "HugePages_Free", "HugePages_Rsvd", "HugePages_Surp"} {
		fmt.Fprintf(&b, "%-16s%8d\n", name+":", 0)
	}
	fmt.Fprintf(&b, "%-16s%8d kB\n%-16s%8d kB\n", "Hugepagesize:", 2048, "Hugetlb:", 0)
	return b.String()
}
