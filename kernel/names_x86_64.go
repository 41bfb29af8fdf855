package kernel

// namesX86_64 names the x86-64 system calls icount does not emulate, so
// that a guest stopped by one is told which.
var namesX86_64 = map[uint64]string{
	23: "select", 26: "msync", 42: "connect", 43: "accept", 44: "sendto", 45: "recvfrom",
	46: "sendmsg", 47: "recvmsg", 48: "shutdown", 49: "bind", 50: "listen", 53: "socketpair",
	54: "setsockopt", 55: "getsockopt", 125: "capget", 126: "capset", 129: "rt_sigqueueinfo",
	134: "uselib", 135: "personality", 140: "getpriority", 141: "setpriority", 142: "sched_setparam",
	143: "sched_getparam", 144: "sched_setscheduler", 145: "sched_getscheduler",
	146: "sched_get_priority_max", 147: "sched_get_priority_min", 148: "sched_rr_get_interval",
	149: "mlock", 150: "munlock", 151: "mlockall", 152: "munlockall", 154: "modify_ldt",
	205: "set_thread_area", 211: "get_thread_area", 216: "remap_file_pages", 219: "restart_syscall",
	222: "timer_create", 223: "timer_settime", 224: "timer_gettime", 225: "timer_getoverrun",
	226: "timer_delete", 253: "inotify_init", 254: "inotify_add_watch", 255: "inotify_rm_watch",
	270: "pselect6", 274: "get_robust_list", 278: "vmsplice", 282: "signalfd", 283: "timerfd_create",
	286: "timerfd_settime", 287: "timerfd_gettime", 288: "accept4", 289: "signalfd4",
	294: "inotify_init1", 297: "rt_tgsigqueueinfo", 299: "recvmmsg", 307: "sendmmsg", 309: "getcpu",
	314: "sched_setattr", 315: "sched_getattr", 325: "mlock2", 437: "openat2",
}

// lacksX86_64 names the numbers of Linux 6.1's x86-64 table (the kernel
// icount's uname reports) that have no call behind them, removed or never
// implemented: Linux answers ENOSYS, and so does icount. A number in no
// table is answered so too.
var lacksX86_64 = map[uint64]string{
	156: "_sysctl", 174: "create_module", 177: "get_kernel_syms", 178: "query_module",
	180: "nfsservctl", 181: "getpmsg", 182: "putpmsg", 183: "afs_syscall", 184: "tuxcall",
	185: "security", 214: "epoll_ctl_old", 215: "epoll_wait_old", 236: "vserver",
}
