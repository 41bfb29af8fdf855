package kernel

// namesAArch64 names the arm64 system calls (the generic numbering) icount
// does not emulate, so that a guest stopped by one is told which.
var namesAArch64 = map[uint64]string{
	0: "io_setup", 1: "io_destroy", 2: "io_submit", 3: "io_cancel", 4: "io_getevents", 5: "setxattr",
	6: "lsetxattr", 7: "fsetxattr", 14: "removexattr", 15: "lremovexattr", 16: "fremovexattr",
	18: "lookup_dcookie",
	26: "inotify_init1", 27: "inotify_add_watch", 28: "inotify_rm_watch", 30: "ioprio_set",
	31: "ioprio_get", 32: "flock",
	39: "umount2", 40: "mount", 41: "pivot_root",
	45: "truncate", 47: "fallocate", 51: "chroot",
	58: "vhangup", 60: "quotactl",
	69: "preadv", 70: "pwritev", 72: "pselect6",
	74: "signalfd4", 75: "vmsplice", 76: "splice", 77: "tee", 81: "sync", 84: "sync_file_range",
	85: "timerfd_create", 86: "timerfd_settime", 87: "timerfd_gettime", 89: "acct",
	90: "capget", 91: "capset", 92: "personality", 97: "unshare",
	100: "get_robust_list", 104: "kexec_load", 105: "init_module",
	106: "delete_module", 107: "timer_create", 108: "timer_gettime", 109: "timer_getoverrun",
	110: "timer_settime", 111: "timer_delete", 112: "clock_settime", 116: "syslog", 117: "ptrace",
	118: "sched_setparam", 119: "sched_setscheduler", 120: "sched_getscheduler",
	121: "sched_getparam", 125: "sched_get_priority_max",
	126: "sched_get_priority_min", 127: "sched_rr_get_interval", 128: "restart_syscall",

	138: "rt_sigqueueinfo", 140: "setpriority", 141: "getpriority",
	142: "reboot", 143: "setregid", 145: "setreuid",
	151: "setfsuid", 152: "setfsgid",
	159: "setgroups", 161: "sethostname", 162: "setdomainname", 168: "getcpu", 170: "settimeofday", 171: "adjtimex", 180: "mq_open",
	181: "mq_unlink", 182: "mq_timedsend", 183: "mq_timedreceive", 184: "mq_notify",
	185: "mq_getsetattr", 186: "msgget", 187: "msgctl", 188: "msgrcv", 189: "msgsnd", 190: "semget",
	191: "semctl", 192: "semtimedop", 193: "semop", 194: "shmget", 195: "shmctl", 196: "shmat",
	197: "shmdt", 199: "socketpair", 200: "bind", 201: "listen", 202: "accept",
	203: "connect", 206: "sendto", 207: "recvfrom",
	208: "setsockopt", 209: "getsockopt", 210: "shutdown", 211: "sendmsg", 212: "recvmsg",
	213: "readahead", 217: "add_key", 218: "request_key", 219: "keyctl", 224: "swapon", 225: "swapoff", 227: "msync", 228: "mlock", 229: "munlock",
	230: "mlockall", 231: "munlockall", 234: "remap_file_pages", 235: "mbind",
	236: "get_mempolicy", 237: "set_mempolicy", 238: "migrate_pages", 239: "move_pages",
	240: "rt_tgsigqueueinfo", 241: "perf_event_open", 242: "accept4", 243: "recvmmsg", 262: "fanotify_init", 263: "fanotify_mark", 264: "name_to_handle_at", 265: "open_by_handle_at",
	266: "clock_adjtime", 267: "syncfs", 268: "setns", 269: "sendmmsg", 270: "process_vm_readv",
	271: "process_vm_writev", 272: "kcmp", 273: "finit_module", 274: "sched_setattr",
	275: "sched_getattr", 277: "seccomp", 279: "memfd_create", 280: "bpf",
	282: "userfaultfd", 284: "mlock2",
	286: "preadv2", 287: "pwritev2", 288: "pkey_mprotect", 289: "pkey_alloc", 290: "pkey_free",
	292: "io_pgetevents", 294: "kexec_file_load", 424: "pidfd_send_signal", 425: "io_uring_setup",
	426: "io_uring_enter", 427: "io_uring_register", 428: "open_tree", 429: "move_mount",
	430: "fsopen", 431: "fsconfig", 432: "fsmount", 433: "fspick", 434: "pidfd_open",
	437: "openat2", 438: "pidfd_getfd", 440: "process_madvise",
	442: "mount_setattr", 443: "quotactl_fd", 444: "landlock_create_ruleset",
	445: "landlock_add_rule", 446: "landlock_restrict_self", 447: "memfd_secret",
	448: "process_mrelease", 449: "futex_waitv", 450: "set_mempolicy_home_node",
}

// lacksAArch64 names the numbers of Linux 6.1's generic table that have
// no call behind them on arm64: Linux answers ENOSYS, and so does icount.
// A number in no table is answered so too.
var lacksAArch64 = map[uint64]string{42: "nfsservctl"}
