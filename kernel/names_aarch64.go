package kernel

// namesAArch64 names the arm64 system calls (the generic numbering) icount
// does not emulate, so that a guest stopped by one is told which.
var namesAArch64 = map[uint64]string{
	26: "inotify_init1", 27: "inotify_add_watch", 28: "inotify_rm_watch", 72: "pselect6",
	74: "signalfd4", 75: "vmsplice", 85: "timerfd_create", 86: "timerfd_settime",
	87: "timerfd_gettime", 90: "capget", 91: "capset", 92: "personality", 100: "get_robust_list",
	107: "timer_create", 108: "timer_gettime", 109: "timer_getoverrun", 110: "timer_settime",
	111: "timer_delete", 118: "sched_setparam", 119: "sched_setscheduler", 120: "sched_getscheduler",
	121: "sched_getparam", 125: "sched_get_priority_max", 126: "sched_get_priority_min",
	127: "sched_rr_get_interval", 128: "restart_syscall", 138: "rt_sigqueueinfo", 140: "setpriority",
	141: "getpriority", 168: "getcpu", 199: "socketpair", 200: "bind", 201: "listen", 202: "accept",
	203: "connect", 206: "sendto", 207: "recvfrom", 208: "setsockopt", 209: "getsockopt",
	210: "shutdown", 211: "sendmsg", 212: "recvmsg", 227: "msync", 228: "mlock", 229: "munlock",
	230: "mlockall", 231: "munlockall", 234: "remap_file_pages", 240: "rt_tgsigqueueinfo",
	242: "accept4", 243: "recvmmsg", 269: "sendmmsg", 274: "sched_setattr", 275: "sched_getattr",
	284: "mlock2", 437: "openat2",
}

// lacksAArch64 names the numbers of Linux 6.1's generic table that have
// no call behind them on arm64: Linux answers ENOSYS, and so does icount.
// A number in no table is answered so too.
var lacksAArch64 = map[uint64]string{42: "nfsservctl"}
