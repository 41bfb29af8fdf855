package kernel

// lacksX86_64 names the numbers of Linux 6.1's x86-64 table (the kernel
// icount's uname reports) that have no call behind them, removed or never
// implemented: Linux answers ENOSYS, and so does icount. A number in no
// table is answered so too.
var lacksX86_64 = map[uint64]string{
	156: "_sysctl", 174: "create_module", 177: "get_kernel_syms", 178: "query_module",
	180: "nfsservctl", 181: "getpmsg", 182: "putpmsg", 183: "afs_syscall", 184: "tuxcall",
	185: "security", 214: "epoll_ctl_old", 215: "epoll_wait_old", 236: "vserver",
}
