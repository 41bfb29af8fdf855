package kernel

// namesX86_64 names the x86-64 system calls icount does not emulate, so
// that a guest stopped by one is told which.
var namesX86_64 = map[uint64]string{
	134: "uselib", 154: "modify_ldt", 205: "set_thread_area", 211: "get_thread_area",
	216: "remap_file_pages", 219: "restart_syscall", 253: "inotify_init", 254: "inotify_add_watch",
	255: "inotify_rm_watch", 278: "vmsplice", 294: "inotify_init1", 299: "recvmmsg", 307: "sendmmsg",
	437: "openat2",
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
