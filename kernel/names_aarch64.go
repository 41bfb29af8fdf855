package kernel

// namesAArch64 names the arm64 system calls (the generic numbering) icount
// does not emulate, so that a guest stopped by one is told which.
var namesAArch64 = map[uint64]string{
	26: "inotify_init1", 27: "inotify_add_watch", 28: "inotify_rm_watch", 75: "vmsplice",
	128: "restart_syscall", 234: "remap_file_pages", 243: "recvmmsg", 269: "sendmmsg", 437: "openat2",
}

// lacksAArch64 names the numbers of Linux 6.1's generic table that have
// no call behind them on arm64: Linux answers ENOSYS, and so does icount.
// A number in no table is answered so too.
var lacksAArch64 = map[uint64]string{42: "nfsservctl"}
