package kernel

import (
	"fmt"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/icount-dev/icount/emu"
)

// The files of /proc/PID that describe a process's state (status, stat,
// statm, comm, limits) and the system-wide ones that describe the machine
// (meminfo, uptime, loadavg, stat, version), answered from the guest: the
// host's describe icount and the host, and change from run to run and
// machine to machine (Node sizes its heap from /proc/meminfo; ps and
// psutil read stat and status). Their figures are those the system calls
// give: the ids of getpid and getuid, sysinfo's memory, uname's kernel,
// the fixed clock's times; memory sizes are the sums of the guest's
// mappings (every mapped page resident, as mincore says).

// procStateFile returns the contents of q's /proc/PID file named file, if
// it is one of the state files.
func (p *Process) procStateFile(q *Process, file string) (string, bool) {
	switch file {
	case "status":
		return q.procStatus(), true
	case "stat":
		return q.procStat(p), true
	case "statm":
		pages := q.mappedIn(0, ^uint64(0)) / emu.PageSize
		return fmt.Sprintf("%d %d 0 0 0 %d 0\n", pages, pages, pages), true
	case "comm":
		return q.comm() + "\n", true
	case "limits":
		return q.procLimits(), true
	}
	return "", false
}

// comm is the process's name: its first thread's (set at exec, or by
// prctl PR_SET_NAME).
func (q *Process) comm() string {
	if len(q.tasks) > 0 {
		return q.tasks[0].name
	}
	return ""
}

// ppid is the pid getppid gives q: its parent's, or 1 for the first
// process and an orphan, whose parent is outside.
func (q *Process) ppid() int {
	if q.parent != nil {
		return q.parent.pid
	}
	return 1
}

// rlimitSigpending is RLIMIT_SIGPENDING, SigQ's limit.
const rlimitSigpending = 11

// procStatus is /proc/PID/status of q, made from its state: Linux's lines
// naming the guest's identity, threads, memory (the sizes of its
// mappings), signal masks and dispositions, capabilities (none) and CPUs,
// not the host's (icount's own process, whose pid, uid, memory and masks
// vary from run to run); the thread lines (State, SigPnd, SigBlk) are
// those of its first thread, as Linux shows them for the thread group.
func (q *Process) procStatus() string {
	t := q.tasks[0]
	state := "S (sleeping)"
	if t == q.k.cur {
		state = "R (running)"
	}
	var ignored, caught uint64
	for sig := 1; sig <= nsig; sig++ {
		switch h := q.action(sig).handler; {
		case h == sigIGN:
			ignored |= sigBit(sig)
		case h != sigDFL:
			caught |= sigBit(sig)
		}
	}
	_, sigLimit := q.limit(rlimitSigpending)
	var b strings.Builder
	fmt.Fprintf(&b, "Name:\t%s\nUmask:\t%04o\nState:\t%s\n", q.comm(), q.umask, state)
	fmt.Fprintf(&b, "Tgid:\t%d\nNgid:\t0\nPid:\t%d\nPPid:\t%d\nTracerPid:\t0\n", q.pid, q.pid, q.ppid())
	fmt.Fprintf(&b, "Uid:\t%d\t%d\t%d\t%d\nGid:\t%d\t%d\t%d\t%d\n", UID, UID, UID, UID, GID, GID, GID, GID)
	fmt.Fprintf(&b, "FDSize:\t%d\nGroups:\t \n", q.fds.size) // no supplementary groups
	fmt.Fprintf(&b, "NStgid:\t%d\nNSpid:\t%d\nNSpgid:\t%d\nNSsid:\t%d\n", q.pid, q.pid, q.pgid, q.sid)
	vm := q.mappedIn(0, ^uint64(0)) / 1024 // every mapped page resident, as mincore says
	fmt.Fprintf(&b, "VmPeak:\t%8d kB\nVmSize:\t%8d kB\nVmLck:\t%8d kB\nVmHWM:\t%8d kB\nVmRSS:\t%8d kB\n", vm, vm, 0, vm, vm)
	fmt.Fprintf(&b, "Threads:\t%d\nSigQ:\t0/%d\n", len(q.tasks), sigLimit)
	fmt.Fprintf(&b, "SigPnd:\t%016x\nShdPnd:\t%016x\nSigBlk:\t%016x\nSigIgn:\t%016x\nSigCgt:\t%016x\n",
		t.sig.pending, q.sharedPending, t.sig.mask, ignored, caught)
	b.WriteString("CapInh:\t0000000000000000\nCapPrm:\t0000000000000000\nCapEff:\t0000000000000000\n" +
		"CapBnd:\t000001ffffffffff\nCapAmb:\t0000000000000000\nNoNewPrivs:\t0\nSeccomp:\t0\nSeccomp_filters:\t0\n")
	fmt.Fprintf(&b, "Cpus_allowed:\t%s\nCpus_allowed_list:\t%s", cpuMask(q.cpus()), q.cpuList())
	b.WriteString("Mems_allowed_list:\t0\nvoluntary_ctxt_switches:\t0\nnonvoluntary_ctxt_switches:\t0\n")
	return b.String()
}

// cpuMask is a mask of the first n CPUs in Linux's bitmap format: hex,
// a comma between each 32 bits.
func cpuMask(n int) string {
	words := []string{fmt.Sprintf("%x", uint64(1)<<((n-1)%32+1)-1)}
	for i := 32; i < n; i += 32 {
		words = append(words, "ffffffff")
	}
	return strings.Join(words, ",")
}

// procStat is /proc/PID/stat, its 52 fields as Linux writes them: the
// user time from the clock (a read of it, as times() makes, by the
// reading process p), the rest the process's ids, threads and sizes, and
// zeros where the guest has no such state.
func (q *Process) procStat(p *Process) string {
	var utime int64
	if ns, err := p.readClock("/proc/PID/stat", unix.CLOCK_PROCESS_CPUTIME_ID); err == nil {
		utime = max(ns, 0) / (1e9 / userHz)
	}
	vsize := q.mappedIn(0, ^uint64(0))
	f := []any{q.pid, "(" + q.comm() + ")", "R", q.ppid(), q.pgid, q.sid, 0, -1, 0x400000, // pid .. flags
		0, 0, 0, 0, utime, 0, 0, 0, 20, 0, len(q.tasks), 0, 0, // minflt .. starttime
		vsize, vsize / emu.PageSize, ^uint64(0), 0, 0, 0, 0, 0, // vsize .. kstkeip
		0, 0, 0, 0, 0, 0, 0, q.exitSignal, 0, 0, 0, 0, 0, 0, // signal .. cguest_time
		0, 0, 0, 0, 0, 0, 0, 0} // start_data .. exit_code
	var b strings.Builder
	for i, v := range f {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprint(&b, v)
	}
	return b.String() + "\n"
}

// procLimitNames are the rows of /proc/PID/limits, by resource number,
// with their units.
var procLimitNames = [rlimNlimits][2]string{
	{"Max cpu time", "seconds"}, {"Max file size", "bytes"}, {"Max data size", "bytes"},
	{"Max stack size", "bytes"}, {"Max core file size", "bytes"}, {"Max resident set", "bytes"},
	{"Max processes", "processes"}, {"Max open files", "files"}, {"Max locked memory", "bytes"},
	{"Max address space", "bytes"}, {"Max file locks", "locks"}, {"Max pending signals", "signals"},
	{"Max msgqueue size", "bytes"}, {"Max nice priority", ""}, {"Max realtime priority", ""},
	{"Max realtime timeout", "us"},
}

// procLimits is /proc/PID/limits: the limits getrlimit gives q, in
// Linux's table.
func (q *Process) procLimits() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-25s %-20s %-20s %-10s\n", "Limit", "Soft Limit", "Hard Limit", "Units")
	show := func(v uint64) string {
		if v == rlimInfinity {
			return "unlimited"
		}
		return fmt.Sprint(v)
	}
	for r, row := range procLimitNames {
		cur, max := q.limit(uint64(r))
		fmt.Fprintf(&b, "%-25s %-20s %-20s %-10s\n", row[0], show(cur), show(max), row[1])
	}
	return b.String()
}
