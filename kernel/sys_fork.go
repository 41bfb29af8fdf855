package kernel

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/icount-dev/icount/emu"
	"github.com/icount-dev/icount/loader"
	"golang.org/x/sys/unix"
)

// Making processes: fork, vfork and clone without CLONE_THREAD. A child
// gets a copy of its parent's address space on a CPU of its own (an eager
// copy of the memory the parent has touched: emu.CPU.CopyMemoryFrom), a
// copy of its descriptor table sharing the open files, of its signal
// dispositions and mask; with CLONE_VM (vfork, posix_spawn) it runs in its
// parent's memory, on its parent's CPU, until it execs or exits, and with
// CLONE_VFORK its parent waits until then. execve replaces a process's
// program: a new address space on a new CPU.

// cloneArgs are clone's arguments, decoded for the arch.
type cloneArgs struct {
	flags, sp, ptid, tls, ctid uint64
}

// What a process may be cloned with. CLONE_FILES, CLONE_FS and
// CLONE_SIGHAND between processes (shared descriptor tables, working
// directories, handlers) and namespaces are not emulated.
const cloneProcessMay = cloneVM | cloneVfork | cloneParent | cloneSettls | cloneParentSettid |
	cloneChildCleartid | cloneChildSettid | cloneDetached | cloneUntraced | cloneIO | cloneSysvsem | cloneSignalMask

func sysFork(t *Task, a [6]uint64) (uint64, error) {
	return t.cloneProcess(cloneArgs{flags: uint64(unix.SIGCHLD)})
}

func sysVfork(t *Task, a [6]uint64) (uint64, error) {
	return t.cloneProcess(cloneArgs{flags: cloneVM | cloneVfork | uint64(unix.SIGCHLD)})
}

// cloneProcess makes a child process of t's, running on from the system
// call with 0 as its result.
func (t *Task) cloneProcess(c cloneArgs) (uint64, error) {
	p, k := t.proc, t.proc.k
	switch {
	case c.flags&^cloneProcessMay != 0:
		return 0, errUnsupported(fmt.Sprintf("clone flags %#x for a process (icount makes processes with CLONE_VM, CLONE_VFORK, CLONE_PARENT, CLONE_SETTLS and the tid flags; not shared descriptor tables, working directories or handlers, nor namespaces)", c.flags))
	case k.liveProcesses() >= MaxProcesses || k.liveTasks() >= MaxTasks:
		return 0, unix.EAGAIN
	case c.flags&cloneVM == 0 && p.mm.sharesAnon():
		return 0, errUnsupported("a fork of a process with MAP_SHARED anonymous memory (its child would share it; icount gives a child a copy)")
	}
	child := &Process{k: k, pid: k.newID(), pgid: p.pgid, sid: p.sid, parent: p,
		abi: p.abi, exe: p.exe, interp: p.interp, argv: p.argv, env: p.env,
		fds: p.fds.fork(), sigactions: make(map[uint64][]byte, len(p.sigactions)),
		exitSignal: int(c.flags & cloneSignalMask), alarm: itimer{deadline: noDeadline},
		cwd: p.cwd, umask: p.umask, persona: p.persona, expedited: p.expedited, rlimits: p.rlimits}
	if p.cwd != nil {
		p.cwd.refs++
	}
	if c.flags&cloneParent != 0 && p.parent != nil {
		child.parent = p.parent
	}
	for sig, act := range p.sigactions {
		child.sigactions[sig] = slices.Clone(act)
	}
	var seed [32]byte
	p.rng.Read(seed[:])
	child.rng = rand.NewChaCha8(seed)
	task := &Task{proc: child, tid: child.pid, name: t.name, io: t.inheritIO(c.flags), sched: t.sched.forked()}
	task.sig.mask = t.sig.mask
	task.sig.handlers = t.sig.handlers // Linux's child keeps the call to restart
	task.sig.altstack = slices.Clone(t.sig.altstack)
	if c.flags&cloneVM != 0 {
		if err := child.shareSpace(p, task, c); err != nil {
			return 0, err
		}
	} else if err := child.copySpace(p, task, c); err != nil {
		return 0, err
	}
	if c.flags&cloneParentSettid != 0 {
		if err := p.writeU32(c.ptid, uint32(child.pid)); err != nil {
			return 0, err
		}
	}
	if c.flags&cloneChildSettid != 0 {
		if err := child.writeU32(c.ctid, uint32(child.pid)); err != nil {
			return 0, err
		}
	}
	if c.flags&cloneChildCleartid != 0 {
		task.clearTID = c.ctid
	}
	child.tasks = []*Task{task}
	child.parent.children = append(child.parent.children, child)
	k.procs[child.pid] = child
	k.procList = append(k.procList, child)
	k.addTask(task)
	if c.flags&cloneVfork != 0 {
		task.vforkParent = t
		return p.block(&wait{what: fmt.Sprintf("its vfork child %d to exec or exit", child.pid), deadline: noDeadline, vfork: child.pid})
	}
	return uint64(child.pid), nil
}

// childRegs sets, with set, the registers a clone's child starts with
// that differ from its parent's: the call's result 0, the PC past the
// call, and the stack and thread pointers clone was given.
func (p *Process) childRegs(c cloneArgs, set func(emu.Reg, uint64) error) error {
	regs := [][2]uint64{{uint64(p.abi.ret), 0}, {uint64(p.abi.pc), p.abi.resumePC(p.cpu)}}
	if c.sp != 0 {
		regs = append(regs, [2]uint64{uint64(p.abi.sp), c.sp})
	}
	if c.flags&cloneSettls != 0 {
		regs = append(regs, [2]uint64{uint64(p.abi.tls), c.tls})
	}
	for _, r := range regs {
		if err := set(emu.Reg(r[0]), r[1]); err != nil {
			return err
		}
	}
	return nil
}

// newContext is a context on p's CPU for a clone's child (a thread, or a
// CLONE_VM process): the running registers as childRegs changes them.
func (p *Process) newContext(c cloneArgs) (*emu.Context, error) {
	ctx, err := p.cpu.NewContext()
	if err != nil {
		return nil, err
	}
	if err := p.childRegs(c, func(r emu.Reg, v uint64) error { return p.cpu.SetContextReg(ctx, r, v) }); err != nil {
		p.cpu.FreeContext(ctx)
		return nil, err
	}
	return ctx, nil
}

// newImage records that p starts a program in its address space: at an
// exec (of the image parent), a fork (from parent), or for a CLONE_VM
// child (shared: it runs in its parent's image's memory).
func (p *Process) newImage(parent int, exec, shared bool, interpBase uint64) *Image {
	k := p.k
	ppid := 0
	if p.parent != nil {
		ppid = p.parent.pid
	}
	im := &Image{ID: len(k.images), PID: p.pid, PPID: ppid, Parent: parent, Exec: exec,
		Argv: p.argv, Exe: p.exe, Interp: p.interp, InterpBase: interpBase, CPU: p.cpu,
		calls: newCallCounts(p.abi.table), prov: p.prov, Shared: shared}
	k.images = append(k.images, im)
	return im
}

// shareSpace makes child (CLONE_VM) run in p's address space, its task a
// new context on p's CPU.
func (child *Process) shareSpace(p *Process, task *Task, c cloneArgs) error {
	ctx, err := p.newContext(c)
	if err != nil {
		return err
	}
	child.cpu, child.mm, child.prov = p.cpu, p.mm, p.prov
	p.k.spaceUsers[p.cpu]++
	child.img = child.newImage(p.img.ID, false, true, p.img.InterpBase)
	p.k.setContext(task, p.cpu, ctx)
	return nil
}

// copySpace gives child a copy of p's address space on a new CPU, its
// task the registers of p's running one.
func (child *Process) copySpace(p *Process, task *Task, c cloneArgs) error {
	k := p.k
	cpu, err := k.host.NewCPU(p.cpu.Arch(), nil, p.cpu) // a copy of p's memory and running registers
	if err != nil {
		return err
	}
	if err := p.childRegs(c, cpu.SetReg); err != nil {
		return err
	}
	ctx, err := k.firstContext(cpu)
	if err != nil {
		return err
	}
	child.cpu, child.mm, child.prov = cpu, p.mm.forkTo(cpu), p.prov.fork()
	k.runsOn(task, cpu, ctx)
	child.img = child.newImage(p.img.ID, false, false, p.img.InterpBase)
	k.spaceUsers[cpu]++
	return nil
}

// forkTo copies the mappings for a child's address space on cpu.
func (m *addressSpace) forkTo(cpu CPU) *addressSpace {
	c := *m
	c.cpu = cpu
	c.vmas = m.vmas.clone()
	c.sharedAnon = nil
	c.sharedFile = slices.Clone(m.sharedFile)
	c.locked = spans[lockedRange]{} // a child inherits no lock
	return &c
}

// sharesAnon reports whether memory mapped MAP_SHARED|MAP_ANONYMOUS is
// still mapped.
func (m *addressSpace) sharesAnon() bool {
	for _, r := range m.sharedAnon {
		if m.vmas.overlaps(r[0], r[1]) {
			return true
		}
	}
	return false
}

// fork copies what the mappings hold, for a child's address space.
func (v *provenance) fork() *provenance {
	return &provenance{regions: v.regions.clone(), log: slices.Clone(v.log), onExec: v.onExec}
}

// releaseVfork lets a vfork parent run on: its child exec'd or exited.
func (k *Kernel) releaseVfork(parent *Task) {
	if parent.state == blocked && parent.wait != nil && parent.wait.vfork != 0 {
		k.wake(parent, uint64(parent.wait.vfork), nil)
	}
}

// maxScriptDepth bounds the #! interpreters an exec goes through, as
// Linux's BINPRM_MAX_RECURSION does (ELOOP past it).
const maxScriptDepth = 4

// maxArgs bounds the arguments and environment strings execve reads.
const maxArgs = 1 << 17

func sysExecve(t *Task, a [6]uint64) (uint64, error) {
	return t.execve(guestFDCWD, a[0], a[1], a[2], 0)
}

func sysExecveat(t *Task, a [6]uint64) (uint64, error) {
	return t.execve(a[0], a[1], a[2], a[3], a[4])
}

// atEmptyPath is execveat's AT_EMPTY_PATH; atSymlinkNofollow its
// AT_SYMLINK_NOFOLLOW.
const (
	atEmptyPath       = 0x1000
	atSymlinkNofollow = 0x100
)

// execve replaces t's process's program by the one at path (relative to
// dirfd), with argv and envp, as Linux's execve does: its other threads
// end, descriptors marked close-on-exec close, handled signals return to
// their default action.
func (t *Task) execve(dirfd, pathAddr, argvAddr, envAddr, flags uint64) (uint64, error) {
	p, k := t.proc, t.proc.k
	// Linux's order: the path (an empty one without AT_EMPTY_PATH is
	// ENOENT), then the flags, then the vectors.
	path, err := p.readString(pathAddr)
	switch {
	case err != nil:
		return 0, err
	case path == "" && flags&atEmptyPath == 0:
		return 0, unix.ENOENT
	case flags&^(atEmptyPath|atSymlinkNofollow) != 0:
		return 0, unix.EINVAL
	}
	argv, err := p.readStrings(argvAddr)
	if err != nil {
		return 0, err
	}
	env, err := p.readStrings(envAddr)
	if err != nil {
		return 0, err
	}
	var host string
	switch {
	case path == "" && flags&atEmptyPath != 0:
		f, err := p.fds.get(dirfd)
		if err != nil {
			return 0, err
		}
		host = f.path
	default:
		if !filepath.IsAbs(path) && dirfd != guestFDCWD && int32(dirfd) != -100 {
			if _, err := p.fds.get(dirfd); err != nil {
				return 0, err
			}
		}
		host = p.execHostPath(dirfd, path)
	}
	exe, interp, argv, err := p.openProgram(host, path, argv, 0)
	if err != nil {
		return 0, err
	}
	// The point of no return.
	for _, o := range slices.Clone(p.tasks) {
		if o != t {
			o.exit()
		}
	}
	p.fds.closeOnExec()
	for sig, act := range p.sigactions {
		if a := p.action(int(sig)); a.handler != sigIGN || len(act) < 8 {
			delete(p.sigactions, sig)
		}
	}
	t.sig.altstack = nil
	p.timers = nil
	p.expedited = false
	if k.fitsMemory(exe, interp) != nil {
		// Linux maps the segments past the point of no return: one
		// that --max-memory (RLIMIT_AS) refuses ends the process with
		// SIGSEGV.
		p.killBy(sigSEGV)
		return 0, errBlocked
	}
	old := p.img
	old.Exit = ImageExit{Exec: true}
	if err := p.execImage(t, exe, interp, argv, env, old.ID); err != nil {
		k.fail(fmt.Errorf("exec %s: %w", host, err))
		return 0, errBlocked
	}
	if v := t.vforkParent; v != nil {
		t.vforkParent = nil
		k.releaseVfork(v)
	}
	k.switching = true // run on from the new program's entry
	return 0, errBlocked
}

// execHostPath is the host file execve's path names.
func (p *Process) execHostPath(dirfd uint64, path string) string {
	host := p.hostPath(path)
	if filepath.IsAbs(host) {
		if _, err := os.Stat(host); err != nil && p.k.opts.Sysroot != "" {
			if under := filepath.Join(p.k.opts.Sysroot, host); fileExists(under) {
				return under
			}
		}
		return host
	}
	if d := p.dirPath(dirfd); d != "" {
		return filepath.Join(d, host)
	}
	return host
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// openProgram opens the program at host (named path by the guest) for
// exec: an ELF executable and its interpreter, or a #! script, whose
// interpreter is opened instead, with argv made as Linux makes it
// (interpreter, its argument, the script, then argv[1:]).
func (p *Process) openProgram(host, path string, argv []string, depth int) (*loader.Executable, *loader.Executable, []string, error) {
	st, err := os.Stat(host)
	switch {
	case err != nil:
		return nil, nil, nil, errnoOf(err)
	case st.IsDir() || !st.Mode().IsRegular():
		return nil, nil, nil, unix.EACCES
	}
	if err := unix.Access(host, unix.X_OK); err != nil {
		return nil, nil, nil, unix.EACCES
	}
	head := make([]byte, 256)
	f, err := os.Open(host)
	if err != nil {
		return nil, nil, nil, errnoOf(err)
	}
	n, _ := f.Read(head)
	f.Close()
	head = head[:n]
	if bytes.HasPrefix(head, []byte("#!")) {
		if depth >= maxScriptDepth {
			return nil, nil, nil, unix.ELOOP
		}
		line, _, _ := bytes.Cut(head[2:], []byte("\n"))
		fields := strings.Fields(string(line))
		if len(fields) == 0 {
			return nil, nil, nil, unix.ENOEXEC
		}
		interp := fields[0]
		nargv := []string{interp}
		if rest := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(line)), interp)); rest != "" {
			nargv = append(nargv, rest)
		}
		nargv = append(nargv, path)
		if len(argv) > 1 {
			nargv = append(nargv, argv[1:]...)
		}
		ihost := p.hostPath(interp)
		if p.k.opts.Sysroot != "" && !fileExists(ihost) {
			if under := filepath.Join(p.k.opts.Sysroot, ihost); fileExists(under) {
				ihost = under
			}
		}
		return p.openProgram(ihost, interp, nargv, depth+1)
	}
	exe, err := loader.Open(host)
	if err != nil {
		var le *loader.Error
		if errors.As(err, &le) && le.Problem == loader.NotFound {
			return nil, nil, nil, unix.ENOENT
		}
		return nil, nil, nil, unix.ENOEXEC
	}
	if _, ok := abis[exe.Arch]; !ok {
		return nil, nil, nil, unix.ENOEXEC
	}
	var interp *loader.Executable
	if exe.Interp != "" {
		sysroot := p.k.opts.Sysroot
		if exe.Arch != p.abi.arch || sysroot == "" {
			sysroot = DefaultSysroot(exe.Arch)
		}
		if interp, err = openInterp(exe, sysroot); err != nil {
			var le *loader.Error
			if errors.As(err, &le) && le.Problem == loader.NotFound {
				return nil, nil, nil, unix.ENOENT
			}
			return nil, nil, nil, unix.ELIBBAD
		}
	}
	if len(argv) == 0 {
		argv = []string{""}
	}
	return exe, interp, argv, nil
}

// readStrings reads a NULL-terminated array of string pointers (argv,
// envp); a NULL array is empty.
func (p *Process) readStrings(addr uint64) ([]string, error) {
	if addr == 0 {
		return nil, nil
	}
	var out []string
	size := 0
	for i := 0; ; i++ {
		if i >= maxArgs {
			return nil, unix.E2BIG
		}
		ptr, err := p.readU64(addr + uint64(8*i))
		if err != nil {
			return nil, err
		}
		if ptr == 0 {
			return out, nil
		}
		s, err := p.readString(ptr)
		if err != nil {
			return nil, err
		}
		if size += len(s) + 1; size > maxArgBytes {
			return nil, unix.E2BIG
		}
		out = append(out, s)
	}
}

// maxArgBytes bounds the bytes of argv and envp together (Linux: a quarter
// of the stack limit, 2 MiB).
const maxArgBytes = 2 << 20
