package kernel

import (
	"testing"

	"github.com/icount-dev/icount/emu"
)

// breadth is issue 15's list of the calls ordinary programs make (glibc,
// musl, Go's and Rust's runtimes, CPython, Perl, Ruby, Node, SQLite, git,
// coreutils, findutils, tar, bash, make): each must be emulated or
// answered on purpose on every arch that has it, never stop the run.
var breadth = []string{
	// The file system, passed through to the host.
	"mkdir", "mkdirat", "rmdir", "unlink", "unlinkat", "rename", "renameat", "renameat2",
	"link", "linkat", "symlink", "symlinkat", "readlink", "readlinkat",
	"chmod", "fchmod", "fchmodat", "fchmodat2", "chown", "fchown", "lchown", "fchownat",
	"truncate", "ftruncate", "utime", "utimes", "futimesat", "utimensat", "statfs", "fstatfs",
	"getxattr", "lgetxattr", "fgetxattr", "listxattr", "llistxattr", "flistxattr",
	"setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr", "fremovexattr",
	"fallocate", "sync", "syncfs", "fsync", "fdatasync", "sync_file_range", "fadvise64",
	"copy_file_range", "sendfile", "splice", "tee", "openat2", "close_range",
	"inotify_init", "inotify_init1", "inotify_add_watch", "inotify_rm_watch",
	"memfd_create", "flock", "fcntl",
	// Per-process state.
	"chdir", "fchdir", "getcwd", "umask", "getpgrp", "getpgid", "setpgid", "getsid", "setsid",
	// Waiting and time.
	"select", "pselect6", "poll", "ppoll", "timer_create", "timer_settime", "timer_gettime",
	"timer_getoverrun", "timer_delete", "timerfd_create", "timerfd_settime", "timerfd_gettime",
	"clock_gettime", "clock_getres", "clock_nanosleep",
	// Identity, scheduling and resources.
	"capget", "capset", "getcpu", "sched_getaffinity", "sched_setaffinity", "sched_yield",
	"sched_getparam", "sched_setparam", "sched_getscheduler", "sched_setscheduler",
	"sched_get_priority_max", "sched_get_priority_min", "sched_rr_get_interval", "sched_getattr",
	"sched_setattr", "getpriority", "setpriority", "personality", "getrusage", "sysinfo",
	"mlock", "mlock2", "munlock", "mlockall", "munlockall", "msync", "mincore", "madvise",
	"membarrier", "rseq",
	// Unix-domain sockets between the processes of a run.
	"socketpair", "socket", "bind", "connect", "listen", "accept", "accept4", "sendmsg", "recvmsg",
	"sendto", "recvfrom", "getsockname", "getpeername", "getsockopt", "setsockopt", "shutdown",
}

// TestBreadth checks that no call of the breadth list stops the run on
// an arch that has it, and that each is in the table under that name.
func TestBreadth(t *testing.T) {
	byName := map[string]Call{}
	for _, c := range Calls() {
		byName[c.Name] = c
	}
	for _, name := range breadth {
		c, ok := byName[name]
		if !ok {
			t.Errorf("%s: not in the table", name)
			continue
		}
		for _, arch := range []emu.Arch{emu.X86_64, emu.ARM64} {
			if c.Nr(arch) >= 0 && c.Support == None {
				t.Errorf("%s (%s %d): stops the run", name, arch, c.Nr(arch))
			}
		}
	}
}

// TestAnswered checks issue 15's floor: x86-64 emulates or answers on
// purpose at least 230 calls (aarch64 answers the same set, of the calls
// it has: a row's support is the same on both arches).
func TestAnswered(t *testing.T) {
	answered := map[emu.Arch]int{}
	for _, c := range Calls() {
		for _, arch := range []emu.Arch{emu.X86_64, emu.ARM64} {
			if c.Nr(arch) >= 0 && c.Support != None {
				answered[arch]++
			}
		}
	}
	if answered[emu.X86_64] < 230 {
		t.Errorf("x86-64 answers %d calls, want at least 230", answered[emu.X86_64])
	}
}
