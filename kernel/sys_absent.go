package kernel

import (
	"encoding/binary"

	"github.com/icount-dev/icount/emu"
	"golang.org/x/sys/unix"
)

// System calls icount answers with a refusal, on purpose: the privileged
// ones as Linux answers a process of uid 1000 without capabilities (EPERM
// after the argument checks Linux makes first), and the facilities icount
// does not emulate as a kernel built without them answers (ENOSYS, the
// answer libraries and runtimes probe for and fall back on). absentCalls
// lists them, each with its numbers on both arches, the refusal and why;
// a call whose answer depends on its arguments has a handler here that
// makes Linux's checks in Linux's order before refusing.

// absentCall is one refused call.
type absentCall struct {
	name     string
	x86, arm int // numbers; none where the arch lacks the call
	// errno is the answer whatever the arguments when handle is nil;
	// with a handle, the refusal it gives once Linux's checks pass.
	errno Errno
	// handle, when set, checks the arguments as Linux does before it
	// refuses (and answers the argument forms Linux allows anyway).
	handle  Handler
	support Support // Refused, ENOSYS, or Partial/Full for a handle that stops or answers
	why     string
}

// Reasons shared by several rows.
const (
	whyMount   = "mounts need CAP_SYS_ADMIN"
	whyNoAIO   = "as a kernel without CONFIG_AIO: glibc's POSIX AIO uses threads, libaio users fall back"
	whyNoURing = "as a kernel without CONFIG_IO_URING: liburing, libuv and tokio fall back to ordinary calls"
	whyNoIPC   = "as a kernel without CONFIG_SYSVIPC"
	whyNoMq    = "as a kernel without CONFIG_POSIX_MQUEUE"
	whyNoKeys  = "as a kernel without CONFIG_KEYS"
	whyNoNUMA  = "as a kernel without CONFIG_NUMA (one memory node)"
	whyNoLL    = "as a kernel without CONFIG_SECURITY_LANDLOCK: sandboxes run unrestricted, as they do there"
	whyNoPidfd = "no pidfds, as before Linux 5.3: Go, Rust and systemd fall back to pids"
	whyModule  = "modules need CAP_SYS_MODULE"
	whyKexec   = "kexec needs CAP_SYS_BOOT"
)

var absentCalls = []absentCall{
	// Mounts and the root directory.
	{"mount", 165, 40, unix.EPERM, sysMountAbsent, Refused, whyMount + "; the strings and the mount point are checked first (EFAULT, ENOENT, ENOTDIR)"},
	{"umount2", 166, 39, unix.EPERM, sysUmount2Absent, Refused, whyMount + "; bad flags (EINVAL) and the path are checked first"},
	{"pivot_root", 155, 41, unix.EPERM, nil, Refused, whyMount},
	{"chroot", 161, 51, unix.EPERM, sysChrootAbsent, Refused, "needs CAP_SYS_CHROOT; the directory is looked up first"},
	{"open_tree", 428, 428, unix.EPERM, sysOpenTreeAbsent, Partial, "OPEN_TREE_CLONE: EPERM, " + whyMount + "; without it (an O_PATH descriptor) it stops the run"},
	{"move_mount", 429, 429, unix.EPERM, nil, Refused, whyMount},
	{"fsopen", 430, 430, unix.EPERM, nil, Refused, whyMount},
	{"fsconfig", 431, 431, unix.EINVAL, sysFsconfigAbsent, Refused, "no descriptor is a file-system context (fsopen and fspick refuse): EINVAL, EBADF for one not open, after Linux's argument checks"},
	{"fsmount", 432, 432, unix.EPERM, nil, Refused, whyMount},
	{"fspick", 433, 433, unix.EPERM, nil, Refused, whyMount},
	{"mount_setattr", 442, 442, unix.EPERM, sysMountSetattrAbsent, Refused, whyMount + "; bad flags and sizes are checked first"},
	{"swapon", 167, 224, unix.EPERM, sysSwaponAbsent, Refused, "needs CAP_SYS_ADMIN; bad flags (EINVAL) first"},
	{"swapoff", 168, 225, unix.EPERM, nil, Refused, "needs CAP_SYS_ADMIN"},
	{"quotactl", 179, 60, unix.ENOSYS, nil, ENOSYS, "as a kernel without CONFIG_QUOTACTL"},
	{"quotactl_fd", 443, 443, unix.ENOSYS, nil, ENOSYS, "as a kernel without CONFIG_QUOTACTL"},

	// The system as a whole.
	{"reboot", 169, 142, unix.EPERM, nil, Refused, "needs CAP_SYS_BOOT"},
	{"sethostname", 170, 161, unix.EPERM, nil, Refused, "needs CAP_SYS_ADMIN (checked before the length)"},
	{"setdomainname", 171, 162, unix.EPERM, nil, Refused, "needs CAP_SYS_ADMIN (checked before the length)"},
	{"setgroups", 116, 159, unix.EPERM, nil, Refused, "needs CAP_SETGID (checked before the size): the guest keeps no supplementary groups"},
	{"vhangup", 153, 58, unix.EPERM, nil, Refused, "needs CAP_SYS_TTY_CONFIG"},
	{"acct", 163, 89, unix.EPERM, nil, Refused, "needs CAP_SYS_PACCT"},
	{"init_module", 175, 105, unix.EPERM, nil, Refused, whyModule},
	{"finit_module", 313, 273, unix.EPERM, nil, Refused, whyModule},
	{"delete_module", 176, 106, unix.EPERM, nil, Refused, whyModule},
	{"kexec_load", 246, 104, unix.EPERM, nil, Refused, whyKexec},
	{"kexec_file_load", 320, 294, unix.EPERM, nil, Refused, whyKexec},
	{"lookup_dcookie", 212, 18, unix.ENOSYS, nil, ENOSYS, "removed in Linux 6.8"},
	{"iopl", 172, none, unix.EPERM, sysIopl, Full, "level 0 (the level it has) succeeds, above needs CAP_SYS_RAWIO, above 3 EINVAL"},
	{"ioperm", 173, none, unix.EPERM, sysIoperm, Full, "turning ports off succeeds (none are on), on needs CAP_SYS_RAWIO; a range past port 65535 EINVAL"},
	{"syslog", 103, 116, unix.EPERM, nil, Refused, "every action, as with kernel.dmesg_restrict=1 (Debian's default)"},
	{"sysfs", 139, none, unix.ENOSYS, nil, ENOSYS, "as a kernel without CONFIG_SYSFS_SYSCALL"},
	{"ustat", 136, none, 0, sysUstat, Full, "the host's file system"},

	// Clocks.
	{"settimeofday", 164, 170, unix.EPERM, sysSettimeofdayAbsent, Refused, "needs CAP_SYS_TIME; the times are read and checked first (EFAULT, EINVAL)"},
	{"clock_settime", 227, 112, unix.EPERM, sysClockSettimeAbsent, Refused, "CLOCK_REALTIME and CPU-time clocks need CAP_SYS_TIME (after EFAULT and EINVAL); the other clocks cannot be set (EINVAL)"},
	{"adjtimex", 159, 171, unix.EPERM, sysAdjtimex, Partial, "a change needs CAP_SYS_TIME (EPERM); the read-only forms (modes 0, ADJ_OFFSET_SS_READ) would report the host's NTP state and stop the run"},
	{"clock_adjtime", 305, 266, unix.EPERM, sysClockAdjtime, Partial, "CLOCK_REALTIME as adjtimex; the other clocks EOPNOTSUPP, unknown ones EINVAL"},

	// Other processes and namespaces.
	{"ptrace", 101, 117, unix.EPERM, sysPtraceAbsent, Refused, "as under Yama's ptrace_scope=3: PTRACE_TRACEME and attaching EPERM; other requests ESRCH (nothing is traced), as for a missing pid"},
	{"unshare", 272, 97, unix.EPERM, sysUnshareAbsent, Partial, "new namespaces EPERM, as with unprivileged user namespaces disabled; the rest as Linux in a process of one thread (nothing to unshare), CLONE_FILES or CLONE_FS in one of several threads stops the run"},
	{"setns", 308, 268, unix.EPERM, sysSetnsAbsent, Refused, "EBADF for a descriptor not open, EINVAL for one that is not a namespace, EPERM for a namespace (CAP_SYS_ADMIN)"},
	{"kcmp", 312, 272, unix.ENOSYS, nil, ENOSYS, "as a kernel without CONFIG_KCMP"},
	{"process_vm_readv", 310, 270, unix.ENOSYS, nil, ENOSYS, "as a kernel without CONFIG_CROSS_MEMORY_ATTACH"},
	{"process_vm_writev", 311, 271, unix.ENOSYS, nil, ENOSYS, "as a kernel without CONFIG_CROSS_MEMORY_ATTACH"},
	{"pidfd_open", 434, 434, unix.ENOSYS, nil, ENOSYS, whyNoPidfd},
	{"pidfd_send_signal", 424, 424, unix.ENOSYS, nil, ENOSYS, whyNoPidfd},
	{"pidfd_getfd", 438, 438, unix.ENOSYS, nil, ENOSYS, whyNoPidfd},
	{"process_madvise", 440, 440, unix.ENOSYS, nil, ENOSYS, whyNoPidfd},
	{"process_mrelease", 448, 448, unix.ENOSYS, nil, ENOSYS, whyNoPidfd},

	// Facilities icount does not have.
	{"io_setup", 206, 0, unix.ENOSYS, nil, ENOSYS, whyNoAIO},
	{"io_destroy", 207, 1, unix.ENOSYS, nil, ENOSYS, whyNoAIO},
	{"io_getevents", 208, 4, unix.ENOSYS, nil, ENOSYS, whyNoAIO},
	{"io_submit", 209, 2, unix.ENOSYS, nil, ENOSYS, whyNoAIO},
	{"io_cancel", 210, 3, unix.ENOSYS, nil, ENOSYS, whyNoAIO},
	{"io_pgetevents", 333, 292, unix.ENOSYS, nil, ENOSYS, whyNoAIO},
	{"io_uring_setup", 425, 425, unix.ENOSYS, nil, ENOSYS, whyNoURing},
	{"io_uring_enter", 426, 426, unix.ENOSYS, nil, ENOSYS, whyNoURing},
	{"io_uring_register", 427, 427, unix.ENOSYS, nil, ENOSYS, whyNoURing},
	{"shmget", 29, 194, unix.ENOSYS, nil, ENOSYS, whyNoIPC},
	{"shmat", 30, 196, unix.ENOSYS, nil, ENOSYS, whyNoIPC},
	{"shmctl", 31, 195, unix.ENOSYS, nil, ENOSYS, whyNoIPC},
	{"shmdt", 67, 197, unix.ENOSYS, nil, ENOSYS, whyNoIPC},
	{"semget", 64, 190, unix.ENOSYS, nil, ENOSYS, whyNoIPC},
	{"semop", 65, 193, unix.ENOSYS, nil, ENOSYS, whyNoIPC},
	{"semctl", 66, 191, unix.ENOSYS, nil, ENOSYS, whyNoIPC},
	{"semtimedop", 220, 192, unix.ENOSYS, nil, ENOSYS, whyNoIPC},
	{"msgget", 68, 186, unix.ENOSYS, nil, ENOSYS, whyNoIPC},
	{"msgsnd", 69, 189, unix.ENOSYS, nil, ENOSYS, whyNoIPC},
	{"msgrcv", 70, 188, unix.ENOSYS, nil, ENOSYS, whyNoIPC},
	{"msgctl", 71, 187, unix.ENOSYS, nil, ENOSYS, whyNoIPC},
	{"mq_open", 240, 180, unix.ENOSYS, nil, ENOSYS, whyNoMq},
	{"mq_unlink", 241, 181, unix.ENOSYS, nil, ENOSYS, whyNoMq},
	{"mq_timedsend", 242, 182, unix.ENOSYS, nil, ENOSYS, whyNoMq},
	{"mq_timedreceive", 243, 183, unix.ENOSYS, nil, ENOSYS, whyNoMq},
	{"mq_notify", 244, 184, unix.ENOSYS, nil, ENOSYS, whyNoMq},
	{"mq_getsetattr", 245, 185, unix.ENOSYS, nil, ENOSYS, whyNoMq},
	{"add_key", 248, 217, unix.ENOSYS, nil, ENOSYS, whyNoKeys},
	{"request_key", 249, 218, unix.ENOSYS, nil, ENOSYS, whyNoKeys},
	{"keyctl", 250, 219, unix.ENOSYS, nil, ENOSYS, whyNoKeys},
	{"mbind", 237, 235, unix.ENOSYS, nil, ENOSYS, whyNoNUMA},
	{"set_mempolicy", 238, 237, unix.ENOSYS, nil, ENOSYS, whyNoNUMA},
	{"get_mempolicy", 239, 236, unix.ENOSYS, nil, ENOSYS, whyNoNUMA},
	{"migrate_pages", 256, 238, unix.ENOSYS, nil, ENOSYS, whyNoNUMA},
	{"move_pages", 279, 239, unix.ENOSYS, nil, ENOSYS, whyNoNUMA},
	{"set_mempolicy_home_node", 450, 450, unix.ENOSYS, nil, ENOSYS, whyNoNUMA},
	{"landlock_create_ruleset", 444, 444, unix.ENOSYS, nil, ENOSYS, whyNoLL},
	{"landlock_add_rule", 445, 445, unix.ENOSYS, nil, ENOSYS, whyNoLL},
	{"landlock_restrict_self", 446, 446, unix.ENOSYS, nil, ENOSYS, whyNoLL},
	{"seccomp", 317, 277, unix.ENOSYS, nil, ENOSYS, "as a kernel without CONFIG_SECCOMP (prctl's PR_SET_SECCOMP is EINVAL, as there): a filter icount would not enforce is never accepted"},
	{"memfd_secret", 447, 447, unix.ENOSYS, nil, ENOSYS, "as a kernel without CONFIG_SECRETMEM"},
	{"futex_waitv", 449, 449, unix.ENOSYS, nil, ENOSYS, "as before Linux 5.16: Wine falls back to futex"},
	{"fanotify_init", 300, 262, unix.ENOSYS, nil, ENOSYS, "as a kernel without CONFIG_FANOTIFY: watchers fall back to inotify"},
	{"fanotify_mark", 301, 263, unix.ENOSYS, nil, ENOSYS, "as a kernel without CONFIG_FANOTIFY"},
	{"name_to_handle_at", 303, 264, unix.ENOSYS, nil, ENOSYS, "as a kernel without CONFIG_FHANDLE"},
	{"open_by_handle_at", 304, 265, unix.ENOSYS, nil, ENOSYS, "as a kernel without CONFIG_FHANDLE"},
	{"userfaultfd", 323, 282, unix.ENOSYS, nil, ENOSYS, "as a kernel without CONFIG_USERFAULTFD"},
	{"bpf", 321, 280, unix.EPERM, nil, Refused, "every command, as with kernel.unprivileged_bpf_disabled (Debian's default)"},
	{"perf_event_open", 298, 241, unix.EACCES, nil, Refused, "as with Debian's kernel.perf_event_paranoid=3"},
	{"pkey_alloc", 330, 289, unix.ENOSPC, sysPkeyAlloc, Full, "as on a CPU without protection keys: ENOSPC after the argument checks"},
	// Old calls (sys_legacy.go).
	{"uselib", 134, none, unix.ENOSYS, nil, ENOSYS, "as a kernel without CONFIG_USELIB (Linux 6.18 answers ENOSYS, measured): no old-style shared libraries"},
	{"set_thread_area", 205, none, unix.ENOSYS, nil, ENOSYS, "x86-64's table has no entry for it (a 32-bit call): Linux answers ENOSYS"},
	{"get_thread_area", 211, none, unix.ENOSYS, nil, ENOSYS, "x86-64's table has no entry for it (a 32-bit call): Linux answers ENOSYS"},
	{"modify_ldt", 154, none, unix.ENOSYS, sysModifyLdt, Partial, "as for a process without an LDT: a read gives 0 bytes, the default LDT's read zeros (at most 128), an unknown function ENOSYS, errors as an unsigned int (Linux's return); a write that passes Linux's checks (EINVAL, EFAULT) stops the run"},
	{"remap_file_pages", 216, 234, unix.EINVAL, sysRemapFilePages, Partial, "EINVAL for a protection, a range that wraps, an address in no mapping or in a private one (anonymous or a file's, the program's own included); a MAP_SHARED mapping stops the run"},
	{"restart_syscall", 219, 128, unix.EINTR, sysRestartSyscall, Partial, "EINTR, as for a thread with no call to restart (icount restarts interrupted calls itself); inside a signal handler, where Linux may resume the call the signal interrupted, it stops the run"},
	{"pkey_free", 331, 290, unix.EINVAL, nil, Full, "no key is ever allocated"},
	{"pkey_mprotect", 329, 288, unix.EINVAL, sysPkeyMprotect, Full, "key -1 is mprotect; any other key is not allocated (EINVAL, after mprotect's checks of the range)"},
}

// absentRows is absentCalls as rows of the system-call table.
func absentRows() []Call {
	rows := make([]Call, 0, len(absentCalls))
	for _, c := range absentCalls {
		h := c.handle
		if h == nil {
			h = refuse(c.errno)
		}
		rows = append(rows, Call{c.name, c.x86, c.arm, h, c.support, c.why})
	}
	return rows
}

// refuse is the handler of a call refused whatever its arguments.
func refuse(errno Errno) Handler {
	return func(t *Task, a [6]uint64) (uint64, error) { return 0, errno }
}

// readOptString reads the string a guest may pass as NULL (mount's source
// and type): EFAULT if it is not NULL and not readable.
func (p *Process) readOptString(addr uint64) error {
	if addr == 0 {
		return nil
	}
	_, err := p.readString(addr)
	return err
}

// lookupPath looks up the path at pathAddr as a system call that needs it
// to exist does first (EFAULT, ENOENT, ENOTDIR, ELOOP...), following a
// final symbolic link unless nofollow; dir asks for a directory.
func (p *Process) lookupPath(pathAddr uint64, dir, nofollow bool) error {
	at, path, err := p.pathAt(guestFDCWD, pathAddr)
	if err != nil {
		return err
	}
	flags := unix.O_PATH | unix.O_CLOEXEC
	if dir {
		flags |= unix.O_DIRECTORY
	}
	if nofollow {
		flags |= unix.O_NOFOLLOW
	}
	_, err = p.resolve(path, func(host string) error {
		fd, err := unix.Openat(at, host, flags, 0)
		if err == nil {
			unix.Close(fd)
		}
		return err
	})
	if err != nil {
		return errnoOf(err)
	}
	return nil
}

// mount(source, target, type, flags, data): the type, the source and the
// data are copied, the target looked up, then MS_NOUSER is EINVAL.
func sysMountAbsent(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	for _, s := range []uint64{a[2], a[0]} {
		if err := p.readOptString(s); err != nil {
			return 0, err
		}
	}
	if a[4] != 0 {
		if _, err := p.readMem(a[4], 1); err != nil {
			return 0, err
		}
	}
	if err := p.lookupPath(a[1], false, false); err != nil {
		return 0, err
	}
	const msNouser = 1 << 31
	if a[3]&msNouser != 0 {
		return 0, unix.EINVAL
	}
	return 0, unix.EPERM
}

func sysUmount2Absent(t *Task, a [6]uint64) (uint64, error) {
	const mntForce, mntDetach, mntExpire, umountNofollow = 1, 2, 4, 8
	if a[1]&^uint64(mntForce|mntDetach|mntExpire|umountNofollow) != 0 {
		return 0, unix.EINVAL
	}
	if err := t.proc.lookupPath(a[0], false, a[1]&umountNofollow != 0); err != nil {
		return 0, err
	}
	return 0, unix.EPERM
}

func sysChrootAbsent(t *Task, a [6]uint64) (uint64, error) {
	if err := t.proc.lookupPath(a[0], true, false); err != nil {
		return 0, err
	}
	return 0, unix.EPERM
}

// open_tree's and mount_setattr's flags (with atEmptyPath and
// atSymlinkNofollow, as both arches number them).
const (
	openTreeClone = 1
	atNoAutomount = 0x800
	atRecursive   = 0x8000
)

func sysOpenTreeAbsent(t *Task, a [6]uint64) (uint64, error) {
	flags := a[2]
	if flags&^uint64(atEmptyPath|atNoAutomount|atRecursive|atSymlinkNofollow|openTreeClone|oCloexec) != 0 ||
		flags&(atRecursive|openTreeClone) == atRecursive {
		return 0, unix.EINVAL
	}
	if flags&openTreeClone != 0 {
		return 0, unix.EPERM
	}
	return 0, errUnsupported("flags without OPEN_TREE_CLONE (an O_PATH descriptor)")
}

// fsconfig(fd, cmd, key, value, aux): Linux checks fd, then which of key,
// value and aux cmd takes, then the descriptor.
func sysFsconfigAbsent(t *Task, a [6]uint64) (uint64, error) {
	fd, cmd, key, value, aux := int32(a[0]), a[1], a[2] != 0, a[3] != 0, int32(a[4])
	if fd < 0 {
		return 0, unix.EINVAL
	}
	var ok bool
	switch cmd {
	case 0: // FSCONFIG_SET_FLAG
		ok = key && !value && aux == 0
	case 1: // FSCONFIG_SET_STRING
		ok = key && value && aux == 0
	case 2: // FSCONFIG_SET_BINARY
		ok = key && value && aux > 0 && aux <= 1024*1024
	case 3, 4: // FSCONFIG_SET_PATH, FSCONFIG_SET_PATH_EMPTY
		ok = key && value && (aux == -100 || aux >= 0)
	case 5: // FSCONFIG_SET_FD
		ok = key && !value && aux >= 0
	case 6, 7, 8: // FSCONFIG_CMD_CREATE, _RECONFIGURE, _CREATE_EXCL
		ok = !key && !value && aux == 0
	default:
		return 0, unix.EOPNOTSUPP
	}
	if !ok {
		return 0, unix.EINVAL
	}
	if _, err := t.proc.fds.get(a[0]); err != nil {
		return 0, err
	}
	return 0, unix.EINVAL
}

func sysMountSetattrAbsent(t *Task, a [6]uint64) (uint64, error) {
	const mountAttrSizeVer0 = 32
	switch size := a[4]; {
	case a[2]&^uint64(atEmptyPath|atRecursive|atSymlinkNofollow|atNoAutomount) != 0:
		return 0, unix.EINVAL
	case size > emu.PageSize:
		return 0, unix.E2BIG
	case size < mountAttrSizeVer0:
		return 0, unix.EINVAL
	}
	return 0, unix.EPERM
}

func sysSwaponAbsent(t *Task, a [6]uint64) (uint64, error) {
	const swapFlagsValid = 0x7ffff // priority, PREFER, the DISCARD flags
	if a[1]&^uint64(swapFlagsValid) != 0 {
		return 0, unix.EINVAL
	}
	return 0, unix.EPERM
}

// iopl(level): the level is 0 and may stay so.
func sysIopl(t *Task, a [6]uint64) (uint64, error) {
	switch level := uint32(a[0]); {
	case level > 3:
		return 0, unix.EINVAL
	case level > 0:
		return 0, unix.EPERM
	}
	return 0, nil
}

// ioperm(from, num, on): no port is ever on.
func sysIoperm(t *Task, a [6]uint64) (uint64, error) {
	const ioBitmapBits = 65536
	from, num := a[0], a[1]
	if from+num <= from || from+num > ioBitmapBits {
		return 0, unix.EINVAL
	}
	if a[2] != 0 {
		return 0, unix.EPERM
	}
	return 0, nil
}

// ustat(dev, buf): the host's answer for the host device the guest knows
// as dev (see guestDev), as statfs's; EINVAL for a device it does not.
func sysUstat(t *Task, a [6]uint64) (uint64, error) {
	dev := uint32(a[0]) // new_encode_dev's 32 bits
	major, minor := dev&0xfff00>>8, dev&0xff|dev>>12&0xfff00
	host, ok := t.proc.k.hostDev(unix.Mkdev(major, minor))
	if !ok {
		return 0, unix.EINVAL
	}
	major, minor = unix.Major(host), unix.Minor(host)
	var u unix.Ustat_t
	if err := unix.Ustat(int(minor&0xff|major<<8|(minor&^0xff)<<12), &u); err != nil {
		return 0, errnoOf(err)
	}
	b := make([]byte, 32) // struct ustat: f_tfree, f_tinode, f_fname[6], f_fpack[6]
	binary.LittleEndian.PutUint32(b, uint32(u.Tfree))
	binary.LittleEndian.PutUint64(b[8:], u.Tinode)
	for i := range 6 {
		b[16+i], b[22+i] = byte(u.Fname[i]), byte(u.Fpack[i])
	}
	return 0, t.proc.writeMem(a[1], b)
}

// settodSecMax is the latest time Linux lets the realtime clock be set
// to (TIME_SETTOD_SEC_MAX: KTIME_SEC_MAX less 30 years of uptime).
const settodSecMax = 9223372036 - 30*365*24*3600

// settimeofday(tv, tz): tv is read and its microseconds checked, tz read,
// then the time validated, then the privilege.
func sysSettimeofdayAbsent(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	var sec, usec int64
	if a[0] != 0 {
		b, err := p.readMem(a[0], 16)
		if err != nil {
			return 0, err
		}
		sec, usec = int64(binary.LittleEndian.Uint64(b)), int64(binary.LittleEndian.Uint64(b[8:]))
		if usec > 1e6 || usec < 0 {
			return 0, unix.EINVAL
		}
	}
	if a[1] != 0 {
		if _, err := p.readMem(a[1], 8); err != nil {
			return 0, err
		}
	}
	if a[0] != 0 && (sec < 0 || usec >= 1e6 || sec > settodSecMax) {
		return 0, unix.EINVAL
	}
	return 0, unix.EPERM
}

// clock_settime(id, tp): only CLOCK_REALTIME and the CPU-time clocks
// (negative ids) can be set, by no one unprivileged; the time is read
// first, and checked for the realtime clock.
func sysClockSettimeAbsent(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	switch id := int32(a[0]); {
	case id == 0:
		ns, err := p.readTimespec(a[1])
		if err != nil {
			return 0, err
		}
		if ns/1e9 > settodSecMax {
			return 0, unix.EINVAL
		}
	case id < 0:
		if _, err := p.readMem(a[1], 16); err != nil {
			return 0, err
		}
		if _, _, err := p.k.clockID(id); err != nil {
			return 0, err // a PTP clock's descriptor (none is), or no such process
		}
	default:
		return 0, unix.EINVAL
	}
	return 0, unix.EPERM
}

// adjtimex's modes.
const (
	adjOffsetSingleshot = 0x0001
	adjOffsetReadonly   = 0x2000
	adjAdjtime          = 0x8000
	timexSize           = 208 // struct timex
)

func sysAdjtimex(t *Task, a [6]uint64) (uint64, error) {
	modes, err := t.proc.timexModes(a[0])
	if err != nil {
		return 0, err
	}
	return adjtimex(modes)
}

// timexModes reads the struct timex at addr, as adjtimex and
// clock_adjtime do first, and returns its modes.
func (p *Process) timexModes(addr uint64) (uint32, error) {
	b, err := p.readMem(addr, timexSize)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

// adjtimex answers the modes m on the realtime clock: a change is refused, a
// read stops the run (it reports the host's NTP state).
func adjtimex(m uint32) (uint64, error) {
	switch {
	case m&adjAdjtime != 0 && m&adjOffsetSingleshot == 0:
		return 0, unix.EINVAL
	case m&adjAdjtime != 0 && m&adjOffsetReadonly == 0, m&adjAdjtime == 0 && m != 0:
		return 0, unix.EPERM
	}
	return 0, errUnsupported("a read of the clock's NTP state (the host's)")
}

func sysClockAdjtime(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	modes, err := p.timexModes(a[1])
	if err != nil {
		return 0, err
	}
	switch id := int32(a[0]); {
	case id == 0:
		return adjtimex(modes)
	case id < 0 && id&7 == 3:
		return 0, unix.EINVAL // a PTP clock's descriptor: none is
	case id < 0:
		return 0, unix.EOPNOTSUPP
	}
	if _, _, err := p.k.clockID(int32(a[0])); err != nil {
		return 0, err
	}
	return 0, unix.EOPNOTSUPP
}

// ptrace requests that find their target differently.
const (
	ptraceTraceme = 0
	ptraceAttach  = 16
	ptraceSeize   = 0x4206
	ptraceOMask   = 0xff | 1<<20 | 1<<21 // PTRACE_O_*, EXITKILL, SUSPEND_SECCOMP
)

func sysPtraceAbsent(t *Task, a [6]uint64) (uint64, error) {
	req, pid := a[0], int(int32(a[1]))
	if req == ptraceTraceme {
		return 0, unix.EPERM
	}
	var target *Task
	for q := range t.proc.k.live() {
		if target = q.threadByTID(pid); target != nil {
			break
		}
	}
	if target == nil || pid <= 0 {
		return 0, unix.ESRCH
	}
	switch req {
	case ptraceSeize:
		if a[2] != 0 || a[3]&^uint64(ptraceOMask) != 0 {
			return 0, unix.EIO
		}
		return 0, unix.EPERM
	case ptraceAttach:
		return 0, unix.EPERM
	}
	return 0, unix.ESRCH // not traced by the caller
}

// unshare's flags beyond clone's of sys_thread.go: the namespaces
// (NEWTIME, NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET).
const (
	cloneNewNamespaces = 0x80 | cloneNewNS | 0x02000000 | 0x04000000 | 0x08000000 | cloneNewUser | 0x20000000 | 0x40000000
	cloneNewUser       = 0x10000000
)

func sysUnshareAbsent(t *Task, a [6]uint64) (uint64, error) {
	flags := a[0]
	if flags&cloneNewUser != 0 {
		flags |= cloneThread | cloneFS
	}
	if flags&cloneVM != 0 {
		flags |= cloneSighand
	}
	if flags&cloneSighand != 0 {
		flags |= cloneThread
	}
	if flags&cloneNewNS != 0 {
		flags |= cloneFS
	}
	p := t.proc
	threads := len(p.tasks)
	switch {
	case flags&^uint64(cloneThread|cloneFS|cloneSighand|cloneVM|cloneFiles|cloneSysvsem|cloneNewNamespaces) != 0,
		flags&(cloneThread|cloneSighand|cloneVM) != 0 && threads > 1,
		flags&cloneVM != 0 && p.k.spaceUsers[p.cpu] > 1: // a vfork child's memory is its parent's
		return 0, unix.EINVAL
	case flags&cloneNewNamespaces != 0:
		return 0, unix.EPERM
	case flags&(cloneFiles|cloneFS) != 0 && threads > 1:
		return 0, errUnsupported("CLONE_FILES or CLONE_FS in a process of several threads")
	}
	return 0, nil // a process of one thread shares nothing
}

func sysSetnsAbsent(t *Task, a [6]uint64) (uint64, error) {
	f, err := t.proc.fds.get(a[0])
	if err != nil {
		return 0, err
	}
	const nsfsMagic = 0x6e736673
	var st unix.Statfs_t
	if unix.Fstatfs(f.host, &st) == nil && st.Type == nsfsMagic {
		return 0, unix.EPERM
	}
	return 0, unix.EINVAL
}

func sysPkeyAlloc(t *Task, a [6]uint64) (uint64, error) {
	accessMask := uint64(3) // PKEY_DISABLE_ACCESS, PKEY_DISABLE_WRITE
	if t.proc.abi.arch == emu.ARM64 {
		accessMask = 0xf // and PKEY_DISABLE_EXECUTE, PKEY_DISABLE_READ
	}
	if a[0] != 0 || a[1]&^accessMask != 0 {
		return 0, unix.EINVAL
	}
	return 0, unix.ENOSPC
}

// pkey_mprotect(addr, len, prot, pkey): with key -1, mprotect; with any
// other, mprotect's checks of the range, then EINVAL.
func sysPkeyMprotect(t *Task, a [6]uint64) (uint64, error) {
	if int32(a[3]) == -1 {
		return sysMprotect(t, a)
	}
	const protGrowsdown, protGrowsup = 0x01000000, 0x02000000
	start, size := a[0], a[1]
	switch {
	case a[2]&(protGrowsdown|protGrowsup) == protGrowsdown|protGrowsup, start%emu.PageSize != 0:
		return 0, unix.EINVAL
	case size == 0:
		return 0, nil
	case start+(size+emu.PageSize-1)&^(emu.PageSize-1) <= start:
		return 0, unix.ENOMEM
	}
	return 0, unix.EINVAL
}
