package kernel

import (
	"slices"

	"github.com/icount-dev/icount/emu"
	"golang.org/x/sys/unix"
)

// Old calls Linux keeps for old programs, as it answers a 64-bit process:
// modify_ldt (x86-64), remap_file_pages and restart_syscall. Their rows
// are in absentCalls, with uselib, set_thread_area and get_thread_area,
// which x86-64's 64-bit table answers ENOSYS whatever the arguments.

// modify_ldt functions (arch/x86/kernel/ldt.c).
const (
	ldtRead        = 0
	ldtWrite       = 1
	ldtReadDefault = 2
	ldtWriteNew    = 0x11
	// userDescSize is struct user_desc's size, the only bytecount a
	// write takes.
	userDescSize = 16
	// ldtEntries is LDT_ENTRIES, the bound on an entry number.
	ldtEntries = 8192
	// defaultLDTSize is the bytes x86-64's read of the default LDT gives
	// at most (all zero).
	defaultLDTSize = 128
)

// sysModifyLdt answers modify_ldt as Linux answers a process that has no
// LDT (none can have one here): a read gives no bytes, a read of the
// default LDT zeros; a write that passes Linux's checks stops the run, as
// the emulated CPU's segment loads would not see the entry. Linux returns
// the result as an unsigned int: an error reaches the guest as a large
// positive number (-errno in 32 bits), not as -errno.
func sysModifyLdt(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	var ret int32
	switch int32(a[0]) {
	case ldtRead:
		ret = 0
	case ldtReadDefault:
		n := min(a[2], defaultLDTSize)
		ret = int32(n)
		if p.writeMem(a[1], make([]byte, n)) != nil {
			ret = -int32(unix.EFAULT)
		}
	case ldtWrite, ldtWriteNew:
		errno, err := p.checkLDTWrite(a[1], a[2], int32(a[0]) == ldtWrite)
		if err != nil {
			return 0, err
		}
		ret = -int32(errno)
	default:
		ret = -int32(unix.ENOSYS)
	}
	return uint64(uint32(ret)), nil
}

// checkLDTWrite makes write_ldt's checks of the user_desc at addr (size
// bytes; oldMode for function 1), giving the errno of one that fails, or
// stopping the run for one that passes.
func (p *Process) checkLDTWrite(addr, size uint64, oldMode bool) (Errno, error) {
	if size != userDescSize {
		return unix.EINVAL, nil
	}
	raw, err := p.readMem(addr, userDescSize)
	if err != nil {
		return unix.EFAULT, nil
	}
	entry := uint32(raw[0]) | uint32(raw[1])<<8 | uint32(raw[2])<<16 | uint32(raw[3])<<24
	bits := raw[12]
	contents, notPresent := bits>>1&3, bits>>5&1
	if entry >= ldtEntries {
		return unix.EINVAL, nil
	}
	if contents == 3 && (oldMode || notPresent == 0) {
		return unix.EINVAL, nil
	}
	return 0, errUnsupported("modify_ldt writing an LDT entry (the emulated CPU's segment loads would not see it)")
}

// sysRemapFilePages answers remap_file_pages with Linux's checks: EINVAL
// for a protection, a range that wraps, or an address in no mapping or in
// a private one (Linux remaps only shared mappings); a shared mapping
// stops the run (a page's offset in its file or memory is not emulated).
func sysRemapFilePages(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	start, size, prot, pgoff := pageDown(a[0]), pageDown(a[1]), a[2], a[3]
	if prot != 0 || start+size <= start || pgoff+size/emu.PageSize < pgoff {
		return 0, unix.EINVAL
	}
	if _, ok := p.mm.at(start); !ok {
		return 0, unix.EINVAL
	}
	// A range stays listed after it is unmapped: one mapped again
	// privately there is taken as shared, which stops the run.
	for _, r := range slices.Concat(p.mm.sharedAnon, p.mm.sharedFile) {
		if start >= r[0] && start < r[1] {
			return 0, errUnsupported("remap_file_pages of a MAP_SHARED mapping (its pages' offsets are not emulated)")
		}
	}
	return 0, unix.EINVAL // a private mapping
}

// sysRestartSyscall answers restart_syscall as Linux answers a thread with
// no call to restart: EINTR. icount restarts the calls a signal
// interrupts itself, so a guest never has one to restart, except inside a
// handler that interrupted nanosleep, clock_nanosleep, poll or a timed
// futex wait, where Linux would resume that call: there (a handler frame
// not yet returned from) it stops the run.
func sysRestartSyscall(t *Task, a [6]uint64) (uint64, error) {
	if t.sig.handlers > 0 {
		return 0, errUnsupported("restart_syscall inside a signal handler (Linux may resume the call the signal interrupted)")
	}
	return 0, unix.EINTR
}
