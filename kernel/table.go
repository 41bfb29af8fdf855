package kernel

import (
	"github.com/icount-dev/icount/emu"
	"golang.org/x/sys/unix"
)

// Support says how completely icount emulates a system call.
type Support int

// Support levels.
const (
	Full    Support = iota // as Linux does, for every argument a program passes
	Partial                // common uses; others stop the run, naming what is missing
	ENOSYS                 // answered with ENOSYS on purpose; libc falls back
	Refused                // answered on purpose with the errno Linux gives an unprivileged process (sys_absent.go)
	None                   // not emulated: the run stops, naming the call
)

func (s Support) String() string {
	return [...]string{"full", "partial", "enosys", "refused", "no"}[s]
}

// Handler emulates one system call made by the task t. It returns the
// result, or an Errno for the guest, or errUnsupported to stop the run.
type Handler func(t *Task, a [6]uint64) (uint64, error)

// Syscall is one row of a guest arch's system-call table.
type Syscall struct {
	Nr      uint64
	Name    string
	Handler Handler
	Support Support
	Note    string
}

// abi is what differs between guest arches at the system-call boundary.
type abi struct {
	arch    emu.Arch
	nr, ret emu.Reg
	args    [6]emu.Reg
	pc, sp  emu.Reg
	tls     emu.Reg // the thread pointer clone's CLONE_SETTLS sets
	// cloneTLSArg and cloneCTIDArg are clone's arguments tls and
	// child_tid, whose order differs between arches.
	cloneTLSArg, cloneCTIDArg int
	// resumePC is where the thread making the system call being handled
	// runs on after it.
	resumePC func(cpu CPU) uint64
	// syscallSize is the system-call instruction's length.
	syscallSize uint64
	table       map[uint64]*Syscall
	hwcap       uint64
	platform    string
	// start sets the registers at the entry point; sp points at argc.
	start func(cpu CPU, sp uint64) error
	// syscallPC is the address of the system-call instruction being handled.
	syscallPC func(cpu CPU) uint64
	// stat encodes a host stat as the guest's struct stat.
	stat func(st *unix.Stat_t) []byte
	// svcIntno is the exception number of the system-call instruction
	// when it arrives as an interrupt (arm64), 0 when it has its own hook.
	svcIntno uint32
	// sigactionSize is the size of the kernel's struct sigaction.
	sigactionSize uint64
	// openFlags converts the guest's open flags to the host's.
	openFlags func(guest uint64) int
	// userTop is the end of user space (TASK_SIZE_MAX): a pointer to
	// bytes past it fails Linux's access_ok at once.
	userTop uint64
}

var abis = map[emu.Arch]*abi{}

// newTable indexes an arch's rows by number, adding one answering ENOSYS
// for each name Linux keeps a number for but has no call behind.
func newTable(rows []Syscall, lacks map[uint64]string) map[uint64]*Syscall {
	t := make(map[uint64]*Syscall, len(rows)+len(lacks))
	for i := range rows {
		if t[rows[i].Nr] != nil {
			panic("kernel: system call number listed twice: " + rows[i].Name)
		}
		t[rows[i].Nr] = &rows[i]
	}
	for nr, name := range lacks {
		if t[nr] != nil {
			panic("kernel: system call both present and absent in Linux: " + name)
		}
		t[nr] = &Syscall{Nr: nr, Name: name, Handler: sysENOSYS, Support: ENOSYS, Note: "removed from Linux or never implemented there: ENOSYS, as Linux answers"}
	}
	return t
}
