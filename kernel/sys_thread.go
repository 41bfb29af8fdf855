package kernel

import (
	"fmt"

	"github.com/icount-dev/icount/emu"
	"golang.org/x/sys/unix"
)

// Thread system calls: clone for threads, exit of one thread, thread ids,
// yielding and affinity. Processes (fork, vfork, clone without CLONE_VM)
// are refused: icount runs one process.

// clone flags (include/uapi/linux/sched.h).
const (
	cloneVM            = 0x100
	cloneFS            = 0x200
	cloneFiles         = 0x400
	cloneSighand       = 0x800
	clonePidfd         = 0x1000
	clonePtrace        = 0x2000
	cloneVfork         = 0x4000
	cloneParent        = 0x8000
	cloneThread        = 0x10000
	cloneNewNS         = 0x20000
	cloneSysvsem       = 0x40000
	cloneSettls        = 0x80000
	cloneParentSettid  = 0x100000
	cloneChildCleartid = 0x200000
	cloneDetached      = 0x400000
	cloneUntraced      = 0x800000
	cloneChildSettid   = 0x1000000
	cloneIO            = 0x80000000
	cloneSignalMask    = 0xff

	// What a thread needs, and what it may add.
	cloneThreadNeeds = cloneVM | cloneSighand | cloneThread
	cloneThreadMay   = cloneThreadNeeds | cloneFS | cloneFiles | cloneSysvsem | cloneSettls |
		cloneParentSettid | cloneChildCleartid | cloneChildSettid | cloneDetached | cloneUntraced | cloneIO
)

// firstTID is the thread id of the second thread; the first's is PID.
const firstTID = PID + 1

// MaxThreads bounds the threads alive at once: past it clone fails with
// EAGAIN, as it does past RLIMIT_NPROC.
const MaxThreads = 4096

func sysClone(p *Process, a [6]uint64) (uint64, error) {
	flags, sp, ptid := a[0], a[1], a[2]
	tls, ctid := a[p.abi.cloneTLSArg], a[p.abi.cloneCTIDArg]
	switch {
	case flags&cloneVM == 0:
		return 0, errUnsupported(fmt.Sprintf("a new process (clone flags %#x without CLONE_VM, as fork makes; icount runs one process)", flags))
	case flags&cloneThreadNeeds != cloneThreadNeeds || flags&^cloneSignalMask&^cloneThreadMay != 0:
		return 0, errUnsupported(fmt.Sprintf("clone flags %#x (icount makes threads: CLONE_VM|CLONE_SIGHAND|CLONE_THREAD and the flags pthreads and Go add)", flags))
	case p.live() >= MaxThreads:
		return 0, unix.EAGAIN
	}
	ctx, err := p.cpu.NewContext()
	if err != nil {
		return 0, err
	}
	t := &thread{tid: p.nextTID, ctx: ctx, name: p.cur.name}
	t.sig.mask = p.cur.sig.mask
	p.nextTID++
	set := func(r emu.Reg, v uint64) {
		if err == nil {
			err = p.cpu.SetContextReg(ctx, r, v)
		}
	}
	set(p.abi.ret, 0)
	set(p.abi.pc, p.abi.resumePC(p.cpu))
	if sp != 0 {
		set(p.abi.sp, sp)
	}
	if flags&cloneSettls != 0 {
		set(p.abi.tls, tls)
	}
	if err != nil {
		p.cpu.FreeContext(ctx)
		return 0, err
	}
	if flags&cloneParentSettid != 0 {
		if err := p.writeU32(ptid, uint32(t.tid)); err != nil {
			p.cpu.FreeContext(ctx)
			return 0, err
		}
	}
	if flags&cloneChildSettid != 0 {
		if err := p.writeU32(ctid, uint32(t.tid)); err != nil {
			p.cpu.FreeContext(ctx)
			return 0, err
		}
	}
	if flags&cloneChildCleartid != 0 {
		t.clearTID = ctid
	}
	p.threads = append(p.threads, t)
	p.alive++
	if !p.sliced {
		p.switching = true // the CPU runs in slices from now on
	}
	return uint64(t.tid), nil
}

// sysClone3 answers ENOSYS: glibc then calls clone.
func sysClone3(p *Process, a [6]uint64) (uint64, error) { return 0, unix.ENOSYS }

// sysExit ends the calling thread; the last one's exit ends the process.
func sysExit(p *Process, a [6]uint64) (uint64, error) {
	if p.live() == 1 {
		return sysExitGroup(p, a)
	}
	t := p.cur
	t.state = exited
	p.alive--
	if t.clearTID != 0 {
		// As the kernel does: a fault here is ignored.
		if p.writeU32(t.clearTID, 0) == nil {
			p.futexWake(t.clearTID, 1, futexBitsetAny)
		}
	}
	p.switching = true
	return 0, errBlocked
}

func sysGettid(p *Process, a [6]uint64) (uint64, error) { return uint64(p.cur.tid), nil }

func sysSetTidAddress(p *Process, a [6]uint64) (uint64, error) {
	p.cur.clearTID = a[0]
	return uint64(p.cur.tid), nil
}

// sysSetRobustList records the list; at a thread's exit its robust futexes
// are not released (a thread that exits holding a robust mutex is rare).
func sysSetRobustList(p *Process, a [6]uint64) (uint64, error) {
	if a[1] != 24 { // sizeof(struct robust_list_head)
		return 0, unix.EINVAL
	}
	p.cur.robustList = a[0]
	return 0, nil
}

func sysSchedYield(p *Process, a [6]uint64) (uint64, error) {
	if len(p.threads) > 1 {
		p.switching, p.yield = true, true
	}
	return 0, nil
}

// sysSchedSetaffinity accepts any mask naming one of the guest's CPUs.
func sysSchedSetaffinity(p *Process, a [6]uint64) (uint64, error) {
	if a[0] != 0 && p.threadByTID(int(a[0])) == nil {
		return 0, unix.ESRCH
	}
	b, err := p.readMem(a[2], min(a[1], 128))
	if err != nil {
		return 0, err
	}
	for i := 0; i < p.cpus(); i++ {
		if i/8 < len(b) && b[i/8]&(1<<(i%8)) != 0 {
			return 0, nil
		}
	}
	return 0, unix.EINVAL
}

// membarrier commands (include/uapi/linux/membarrier.h).
const (
	membarrierQuery                  = 0
	membarrierGlobal                 = 1
	membarrierPrivateExpedited       = 8
	membarrierRegisterPrivateExpdted = 16
)

// sysMembarrier: one CPU runs every thread, so every barrier holds at once.
func sysMembarrier(p *Process, a [6]uint64) (uint64, error) {
	switch a[0] {
	case membarrierQuery:
		return membarrierGlobal | membarrierPrivateExpedited | membarrierRegisterPrivateExpdted, nil
	case membarrierGlobal, membarrierPrivateExpedited, membarrierRegisterPrivateExpdted:
		return 0, nil
	}
	return 0, unix.EINVAL
}
