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
		const kb = 1024
		return fmt.Sprintf("MemTotal:       %8d kB\nMemFree:        %8d kB\nMemAvailable:   %8d kB\n"+
			"Buffers:        %8d kB\nCached:         %8d kB\nSwapCached:     %8d kB\n"+
			"SwapTotal:      %8d kB\nSwapFree:       %8d kB\n",
			guestRAM/kb, guestFreeRAM/kb, guestFreeRAM/kb, 0, 0, 0, 0, 0), true
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
