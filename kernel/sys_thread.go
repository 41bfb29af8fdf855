package kernel

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// Thread system calls: clone for threads, exit of one thread, thread ids,
// yielding and affinity. clone without CLONE_THREAD makes a process
// (sys_fork.go).

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

// sysClone makes a thread (CLONE_THREAD) or a process (sys_fork.go).
func sysClone(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	flags, sp, ptid := a[0], a[1], a[2]
	tls, ctid := a[p.abi.cloneTLSArg], a[p.abi.cloneCTIDArg]
	if flags&cloneThread == 0 {
		return t.cloneProcess(cloneArgs{flags: flags, sp: sp, ptid: ptid, tls: tls, ctid: ctid})
	}
	switch {
	case flags&cloneThreadNeeds != cloneThreadNeeds || flags&^cloneSignalMask&^cloneThreadMay != 0:
		return 0, errUnsupported(fmt.Sprintf("clone flags %#x (icount makes threads: CLONE_VM|CLONE_SIGHAND|CLONE_THREAD and the flags pthreads and Go add)", flags))
	case p.k.liveTasks() >= MaxTasks:
		return 0, unix.EAGAIN
	}
	ctx, err := p.newContext(cloneArgs{flags: flags, sp: sp, tls: tls})
	if err != nil {
		return 0, err
	}
	child := &Task{proc: p, tid: p.k.newID(), name: t.name, io: t.inheritIO(flags), sched: t.sched.forked()}
	child.sig.mask = t.sig.mask
	if flags&cloneParentSettid != 0 {
		if err := p.writeU32(ptid, uint32(child.tid)); err != nil {
			p.cpu.FreeContext(ctx)
			return 0, err
		}
	}
	if flags&cloneChildSettid != 0 {
		if err := p.writeU32(ctid, uint32(child.tid)); err != nil {
			p.cpu.FreeContext(ctx)
			return 0, err
		}
	}
	if flags&cloneChildCleartid != 0 {
		child.clearTID = ctid
	}
	p.k.setContext(child, p.cpu, ctx)
	p.tasks = append(p.tasks, child)
	p.img.addTask(child)
	p.k.addTask(child)
	return uint64(child.tid), nil
}

// sysClone3 answers ENOSYS: glibc then calls clone.
func sysClone3(t *Task, a [6]uint64) (uint64, error) { return 0, unix.ENOSYS }

// sysExit ends the calling thread; the last one's exit ends the process.
func sysExit(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	if len(p.tasks) == 1 {
		return sysExitGroup(t, a)
	}
	t.exit()
	p.k.switching = true
	return 0, errBlocked
}

// exit ends the task: it leaves its process and the scheduler, and its
// CLONE_CHILD_CLEARTID address is cleared and woken.
func (t *Task) exit() {
	p, k := t.proc, t.proc.k
	if t.state == exited {
		return
	}
	if t.state == blocked {
		k.wake(t, 0, nil) // its wait's release runs
	}
	t.state = exited
	if t.clearTID != 0 && !p.exited {
		// As the kernel does: a fault here is ignored.
		if p.writeU32(t.clearTID, 0) == nil {
			p.futexWake(t.clearTID, 1, futexBitsetAny)
		}
	}
	p.tasks = removeTask(p.tasks, t)
	k.tasks = removeTask(k.tasks, t)
	k.setContext(t, nil, nil)
	if v := t.vforkParent; v != nil {
		t.vforkParent = nil
		k.releaseVfork(v)
	}
}

// removeTask removes t from ts, keeping the order.
func removeTask(ts []*Task, t *Task) []*Task {
	for i, u := range ts {
		if u == t {
			return append(ts[:i], ts[i+1:]...)
		}
	}
	return ts
}

func sysGettid(t *Task, a [6]uint64) (uint64, error) { return uint64(t.tid), nil }

func sysSetTidAddress(t *Task, a [6]uint64) (uint64, error) {
	t.clearTID = a[0]
	return uint64(t.tid), nil
}

// sysSetRobustList records the list; at a thread's exit its robust futexes
// are not released (a thread that exits holding a robust mutex is rare).
func sysSetRobustList(t *Task, a [6]uint64) (uint64, error) {
	if a[1] != 24 { // sizeof(struct robust_list_head)
		return 0, unix.EINVAL
	}
	t.robustList = a[0]
	return 0, nil
}

// sysGetRobustList reports the robust list set_robust_list recorded for
// a thread (0 for the caller): its head and the head's size.
func sysGetRobustList(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	target := t
	if pid := int32(a[0]); pid != 0 {
		if target = p.k.taskByTID(int(pid)); target == nil {
			return 0, unix.ESRCH
		}
	}
	if err := p.writeU64(a[2], 24); err != nil {
		return 0, err
	}
	return 0, p.writeU64(a[1], target.robustList)
}

func sysSchedYield(t *Task, a [6]uint64) (uint64, error) {
	if k := t.proc.k; len(k.tasks) > 1 {
		k.switching, k.yield = true, true
	}
	return 0, nil
}

// membarrier commands (include/uapi/linux/membarrier.h).
const (
	membarrierQuery                  = 0
	membarrierGlobal                 = 1
	membarrierPrivateExpedited       = 8
	membarrierRegisterPrivateExpdted = 16
)

// sysMembarrier: one CPU runs every thread, so every barrier holds at
// once. As Linux, flags are EINVAL, and a private expedited barrier before
// the process registered for them EPERM.
func sysMembarrier(t *Task, a [6]uint64) (uint64, error) {
	if uint32(a[1]) != 0 {
		return 0, unix.EINVAL
	}
	p := t.proc
	switch a[0] {
	case membarrierQuery:
		return membarrierGlobal | membarrierPrivateExpedited | membarrierRegisterPrivateExpdted, nil
	case membarrierGlobal:
		return 0, nil
	case membarrierRegisterPrivateExpdted:
		p.expedited = true
		return 0, nil
	case membarrierPrivateExpedited:
		if !p.expedited {
			return 0, unix.EPERM
		}
		return 0, nil
	}
	return 0, unix.EINVAL
}
