package kernel

import (
	"fmt"
	"iter"

	"github.com/icount-dev/icount/emu"
	"github.com/icount-dev/icount/fixedclock"
	"github.com/icount-dev/icount/loader"
)

// The Kernel: what every process of a run shares. It runs every task of
// every process on its one scheduler (sched.go), keeps guest time and the
// fixed clock, hands out process and thread ids in creation order, keys
// futex waits by address space and address, and records each program a
// process ran (Image) for the Profile.

// Fixed identity: the first process's pid, and the user and group every
// process runs as. Later processes and threads take the ids after PID in
// creation order.
const (
	PID = 1000
	UID = 1000
	GID = 1000
)

// MaxTasks bounds the tasks (threads of every process) alive at once:
// past it clone and fork fail with EAGAIN, as they do past RLIMIT_NPROC.
const MaxTasks = 4096

// MaxProcesses bounds the processes alive at once, zombies included: past
// it fork fails with EAGAIN (RLIMIT_NPROC's effect on a fork bomb).
const MaxProcesses = 512

// Options configure a run's kernel and its first process.
type Options struct {
	Argv []string // Argv[0] is the name the guest sees
	Env  []string
	Seed uint64 // seeds AT_RANDOM and getrandom

	// Clock serves every read of the time; nil gives the host's.
	Clock *fixedclock.Clock
	// CPUs is how many CPUs the guest is told it has (1 when 0).
	CPUs int
	// MaxMemory, if not 0, bounds the bytes each process has mapped, as
	// RLIMIT_AS does: what would pass it fails with ENOMEM.
	MaxMemory uint64
	// Quantum is how many instructions a task runs while others wait to
	// (DefaultQuantum when 0).
	Quantum uint64
	// Sysroot is the directory the interpreter of a dynamically linked
	// executable is taken from, and the guest's absolute paths are looked
	// up under first, the host's files when it lacks them ("" for none:
	// the host's own files).
	Sysroot string
	// Tmp is the run's directory (NewPrivateTmp) whose tmp and var/tmp the
	// guest sees as /tmp and /var/tmp; "" gives the host's own.
	Tmp string
	// StreamWrite, if not nil, makes each write of the guest to a host
	// stream (hoststream.go: a terminal, or a pipe, socket or device icount
	// did not make): it is given the host descriptor and the bytes, and
	// writes them by calling write, so that what icount itself shows on a
	// terminal (its progress line) can step aside first. It must not
	// change what the guest sees.
	StreamWrite func(host int, b []byte, write func() (int, error)) (int, error)
	// ExecMapped, if not nil, is told the host path of each file a
	// process maps executable (its program and interpreter too), as it is
	// mapped: the code in it is about to run. It must not change what the
	// guest sees.
	ExecMapped func(path string)
}

// Host is what the kernel needs of the program driving it (count.Run):
// a CPU for each new address space.
type Host interface {
	// NewCPU returns a new CPU for arch: with nothing mapped, for the
	// program exe when a process starts or execs one; or for a fork (exe
	// nil), holding a copy of the memory, the running registers and the
	// counter-instruction watches of from.
	NewCPU(arch emu.Arch, exe *loader.Executable, from CPU) (CPU, error)
}

// Kernel is the state every process of a run shares.
type Kernel struct {
	host Host
	opts Options
	clk  clockState

	// The scheduler (sched.go): every task alive, of every process, in
	// creation order; the one running; and what made the CPU stop.
	tasks     []*Task
	cur       *Task
	quantum   uint64
	sliced    bool // the CPUs run in slices of quantum (a second task exists)
	switching bool // the CPU stopped for Schedule
	yield     bool // ... and the running task gives up its turn
	// callVals is where the running task's system call is read (its
	// number and arguments), one call at a time.
	callVals [7]uint64
	// moved is set when a blocked transfer moved bytes without ending
	// its wait (part of a write to a pipe), which may ready another wait:
	// endWaits then looks at every wait again.
	moved   bool
	lastRan uint64
	// loaded is the context whose registers each CPU holds.
	loaded map[CPU]held

	nextID int              // the next pid or tid
	procs  map[int]*Process // every process not yet reaped, by pid
	// procList is the same processes in creation order.
	procList []*Process
	first    *Process

	timerfds []*timerFD // every timerfd made (sys_timerfd.go)
	// fifoOpens are the blocking opens of FIFOs waiting for their other
	// end (fifo.go).
	fifoOpens []fifoOpen

	futexes map[futexKey]*futexQueue // waits, by address space and address
	unix    *unixNames               // the bound Unix sockets (sys_unixname.go), made at the first bind
	waitSeq uint64                   // futex waits so far

	images  []*Image // every program a process ran, in the order they started
	retired []*Image // images whose programs ended since Retired was called
	// spaceUsers counts the processes running on each CPU (more than one
	// while CLONE_VM children run in their parent's memory).
	spaceUsers map[CPU]int

	stamps map[fileID]*fileTimes // the guest's times of the files it changed (stamps.go)
	devs   map[uint64]uint64     // the guest's device numbers (ids.go)
	inos   map[fileID]uint64     // the guest's inode numbers (ids.go)
	// inosGiven counts the inode numbers given, some since forgotten.
	inosGiven uint64
	locks     lockTable // file locks (sys_lock.go)
	// cookies renumbers inotify's rename cookies (sys_inotify.go).
	cookies inotifyCookies

	failure error     // set when the run must stop with an icount error
	in      inputs    // what the guest read that icount does not pin (inputs.go)
	ioBufs  ioBuffers // the buffers lent to reads and writes (iopieces.go)
	// mappedFiles are the files a mapping has shown (filemap.go), whose
	// truncations are looked for in the mappings.
	mappedFiles map[fileID]bool
	memRefused  uint64 // mappings --max-memory refused (sys_mem.go)
}

// New prepares the kernel of a run and its first process, which runs exe
// (mapped, with its interpreter, and its initial stack built, as execve
// does) on a CPU host gives. Run the CPU of Current() from its PC.
func New(host Host, exe *loader.Executable, opts Options) (*Kernel, error) {
	if len(opts.Argv) == 0 {
		opts.Argv = []string{exe.Path}
	}
	k := &Kernel{host: host, opts: opts, clk: clockState{fixed: opts.Clock},
		quantum: opts.Quantum, nextID: PID, procs: map[int]*Process{}, mappedFiles: map[fileID]bool{},
		loaded: map[CPU]held{}, futexes: map[futexKey]*futexQueue{}, spaceUsers: map[CPU]int{}, in: newInputs()}
	if k.quantum == 0 {
		k.quantum = DefaultQuantum
	}
	p := &Process{k: k, pid: k.nextID, fds: newFDTable(&k.locks), sigactions: inheritedActions(), umask: defaultUmask}
	p.pgid, p.sid = p.pid, p.pid
	p.alarm = itimer{deadline: noDeadline}
	k.nextID++
	t := &Task{proc: p, tid: p.pid}
	p.tasks = []*Task{t}
	k.tasks, k.cur, k.first = []*Task{t}, t, p
	k.procs[p.pid] = p
	k.procList = []*Process{p}
	var interp *loader.Executable
	if exe.Interp != "" {
		var err error
		if interp, err = openInterp(exe, opts.Sysroot); err != nil {
			return nil, err
		}
	}
	if err := p.execImage(t, exe, interp, opts.Argv, opts.Env, -1); err != nil {
		return nil, err
	}
	return k, nil
}

// CPUFree reports whether no process runs on cpu any more.
func (k *Kernel) CPUFree(cpu CPU) bool { return k.spaceUsers[cpu] == 0 }

// Current is the task running, or to run next.
func (k *Kernel) Current() *Task { return k.cur }

// CPU is the CPU the task runs on: its process's.
func (t *Task) CPU() CPU { return t.proc.cpu }

// Image is the program the task's process runs.
func (t *Task) Image() *Image { return t.proc.img }

// TID is the task's thread id (its process's pid for the first thread).
func (t *Task) TID() int { return t.tid }

// Quantum is the instructions a task runs before the next one's turn.
func (k *Kernel) Quantum() uint64 { return k.quantum }

// Done reports whether the run is over: the first process exited (or was
// killed), or icount must stop (Failure).
func (k *Kernel) Done() bool { return k.first.exited || k.failure != nil }

// Exited reports whether the first process exited, and its status:
// icount's own exit status.
func (k *Kernel) Exited() (bool, int) { return k.first.exited, k.first.exitStatus }

// Killed reports the signal that ended the first process, if one did (a
// fault ends it through the run loop, not here).
func (k *Kernel) Killed() (int, bool) { return k.first.killedBy, k.first.killedBy != 0 }

// Failure is the error that stopped the run from inside a system call, if
// any (an unsupported call, say).
func (k *Kernel) Failure() error { return k.failure }

// Images lists every program a process ran, in the order they started.
func (k *Kernel) Images() []*Image { return k.images }

// Retired returns the images whose programs ended (an exit, an exec) since
// the last call: once CPUFree says so, their CPUs may be read back and
// closed.
func (k *Kernel) Retired() []*Image {
	r := k.retired
	k.retired = nil
	return r
}

// IsFirst reports whether t is a thread of the first process.
func (k *Kernel) IsFirst(t *Task) bool { return t.proc == k.first }

// DeliverFault enters the running task's handler for a fault, whose
// registers are as they were before the faulting instruction. It reports
// false when the fault ends the process instead (Process.DeliverFault).
func (k *Kernel) DeliverFault(f FaultSignal) (bool, error) { return k.cur.proc.DeliverFault(f) }

// KillCurrent ends the running task's process as an unhandled fault's
// signal sig does.
func (k *Kernel) KillCurrent(sig int) { k.cur.proc.killBy(sig) }

// Syscall handles the system call the running task is making now; the
// emulator calls it from its syscall hook.
func (k *Kernel) Syscall() { k.cur.syscall() }

// Interrupt handles a CPU exception of the running task: arm64's svc is a
// system call; every other exception is left to the caller as a fault.
func (k *Kernel) Interrupt(intno uint32) bool {
	p := k.cur.proc
	if p.abi.svcIntno != 0 && intno == p.abi.svcIntno {
		k.cur.syscall()
		return true
	}
	return false
}

// ReadCounter serves one execution of a counter-reading instruction by the
// running task.
func (k *Kernel) ReadCounter(insn emu.CounterInsn) uint64 { return k.cur.proc.readCounter(insn) }

// fail stops the run with an icount error.
func (k *Kernel) fail(err error) {
	if k.failure == nil {
		k.failure = err
	}
	k.stop()
}

// stop stops the CPU running now.
func (k *Kernel) stop() { k.cur.proc.cpu.Stop() }

// newID hands out the next pid or tid.
func (k *Kernel) newID() int {
	id := k.nextID
	k.nextID++
	return id
}

// addTask puts a new task in the scheduler's ring; the CPUs run in slices
// from the second on.
func (k *Kernel) addTask(t *Task) {
	k.tasks = append(k.tasks, t)
	if !k.sliced {
		k.switching = true // for useSlices
	}
}

// MemoryRefused is how many mappings --max-memory refused.
func (k *Kernel) MemoryRefused() uint64 { return k.memRefused }

// liveTasks counts the tasks alive, of every process.
func (k *Kernel) liveTasks() int { return len(k.tasks) }

// liveProcesses counts the processes not yet reaped.
func (k *Kernel) liveProcesses() int { return len(k.procs) }

// live yields the processes that have not exited, in creation order.
func (k *Kernel) live() iter.Seq[*Process] {
	return func(yield func(*Process) bool) {
		for _, p := range k.procList {
			if !p.exited && !yield(p) {
				return
			}
		}
	}
}

// String names the task for messages: "pid 1001" or "thread 1003 of pid 1001".
func (t *Task) String() string {
	if t.tid == t.proc.pid {
		return fmt.Sprintf("pid %d", t.tid)
	}
	return fmt.Sprintf("thread %d of pid %d", t.tid, t.proc.pid)
}
