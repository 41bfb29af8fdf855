package kernel

import (
	"fmt"
	"slices"

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
	// callRegs are nr and args, the registers a system call is read
	// from, in one batch.
	callRegs [7]emu.Reg
	pc, sp   emu.Reg
	tls      emu.Reg // the thread pointer clone's CLONE_SETTLS sets
	// cloneTLSArg and cloneCTIDArg are clone's arguments tls and
	// child_tid, whose order differs between arches.
	cloneTLSArg, cloneCTIDArg int
	// resumePC is where the thread making the system call being handled
	// runs on after it.
	resumePC func(cpu CPU) uint64
	// syscallSize is the system-call instruction's length.
	syscallSize uint64
	table       callTable
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

// Call is one row of the system-call table (calls.go): a call, its
// number on each guest arch (none where the arch lacks it), and how icount
// answers it.
type Call struct {
	Name         string
	X86, AArch64 int
	Handler      Handler
	Support      Support
	Note         string
}

// none is the number of a call on an arch that lacks it.
const none = -1

// whyRemoved is the note of a number Linux keeps with no call behind it.
const whyRemoved = "removed from Linux or never implemented there: ENOSYS, as Linux answers"

// Nr is the call's number on arch, or none.
func (c *Call) Nr(arch emu.Arch) int {
	if arch == emu.ARM64 {
		return c.AArch64
	}
	return c.X86
}

// Calls is the whole table, the calls icount emulates, refuses and does
// not emulate, for both arches.
func Calls() []Call { return slices.Concat(calls, absentRows()) }

// register makes a the ABI of its arch.
func register(a *abi) {
	a.callRegs = [7]emu.Reg{a.nr, a.args[0], a.args[1], a.args[2], a.args[3], a.args[4], a.args[5]}
	abis[a.arch] = a
}

// callTable is one arch's rows of the system-call table, indexed by
// number: nil for a number no row has.
type callTable []*Syscall

// newTable indexes arch's rows of the table by number.
func newTable(arch emu.Arch) callTable {
	all := Calls()
	var t callTable
	for _, c := range all {
		nr := c.Nr(arch)
		if nr == none {
			continue
		}
		if nr >= len(t) {
			t = append(t, make(callTable, nr+1-len(t))...)
		}
		if t[nr] != nil {
			panic("kernel: system call number listed twice: " + c.Name)
		}
		t[nr] = &Syscall{uint64(nr), c.Name, c.Handler, c.Support, c.Note}
	}
	return t
}

// row returns the row of call nr, nil if the table has none.
func (t callTable) row(nr uint64) *Syscall {
	if nr >= uint64(len(t)) {
		return nil
	}
	return t[nr]
}

// callCounts counts the system calls one image made: a counter a number
// of its arch's table (the numbers no row has among them), and apart the
// numbers past the table's end.
type callCounts struct {
	table callTable
	byNr  []uint64          // indexed by number, as table
	past  map[uint64]uint64 // numbers past the table's end
}

func newCallCounts(t callTable) *callCounts {
	return &callCounts{table: t, byNr: make([]uint64, len(t))}
}

// add counts one call of number nr.
func (c *callCounts) add(nr uint64) {
	if nr < uint64(len(c.byNr)) {
		c.byNr[nr]++
		return
	}
	if c.past == nil {
		c.past = map[uint64]uint64{}
	}
	c.past[nr]++
}

// byName returns the counts by call name; a number no row has is named
// syscall_NR.
func (c *callCounts) byName() map[string]uint64 {
	m := map[string]uint64{}
	name := func(nr uint64) string {
		if sc := c.table.row(nr); sc != nil {
			return sc.Name
		}
		return fmt.Sprintf("syscall_%d", nr)
	}
	for nr, n := range c.byNr {
		if n != 0 {
			m[name(uint64(nr))] += n
		}
	}
	for nr, n := range c.past {
		m[name(nr)] += n
	}
	return m
}
