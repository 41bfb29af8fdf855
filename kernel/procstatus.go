package kernel

import (
	"fmt"
	"path/filepath"
	"strings"
)

// /proc/PID/status of an emulated process, made from its state: the lines
// of Linux's that name the guest's identity, threads, signal masks and
// dispositions, capabilities (none) and CPUs, not the host's (icount's
// own process, whose pid, uid, memory and masks vary from run to run).
// The memory lines (VmPeak ... VmSwap) are left out, as Linux leaves them
// out for a kernel thread: the guest's resident memory is the host's
// state.

// rlimitSigpending is RLIMIT_SIGPENDING, SigQ's limit.
const rlimitSigpending = 11

// procStatus is the text of /proc/PID/status of q; the thread lines
// (State, SigPnd, SigBlk) are those of its first thread, as Linux shows
// them for the thread group.
func (q *Process) procStatus() string {
	t := q.tasks[0]
	name := t.name
	if name == "" {
		name = filepath.Base(q.exe.Path)
		name = name[:min(len(name), 15)]
	}
	state := "S (sleeping)"
	if t == q.k.cur {
		state = "R (running)"
	}
	ppid := 1 // outside, as getppid answers
	if q.parent != nil {
		ppid = q.parent.pid
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
	_, sigLimit := rlimit(rlimitSigpending)
	var b strings.Builder
	fmt.Fprintf(&b, "Name:\t%s\nUmask:\t%04o\nState:\t%s\n", name, q.umask, state)
	fmt.Fprintf(&b, "Tgid:\t%d\nNgid:\t0\nPid:\t%d\nPPid:\t%d\nTracerPid:\t0\n", q.pid, q.pid, ppid)
	fmt.Fprintf(&b, "Uid:\t%d\t%d\t%d\t%d\nGid:\t%d\t%d\t%d\t%d\n", UID, UID, UID, UID, GID, GID, GID, GID)
	fmt.Fprintf(&b, "FDSize:\t%d\nGroups:\t \n", q.fds.size) // no supplementary groups
	fmt.Fprintf(&b, "NStgid:\t%d\nNSpid:\t%d\nNSpgid:\t%d\nNSsid:\t%d\n", q.pid, q.pid, q.pgid, q.sid)
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
