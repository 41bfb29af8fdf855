package kernel

// namesX86_64 names the x86-64 system calls icount does not emulate, so
// that a guest stopped by one is told which.
var namesX86_64 = map[uint64]string{
	29: "shmget", 30: "shmat", 31: "shmctl",

	42: "connect", 43: "accept", 44: "sendto", 45: "recvfrom", 46: "sendmsg",
	47: "recvmsg", 48: "shutdown", 49: "bind", 50: "listen",
	53: "socketpair", 54: "setsockopt", 55: "getsockopt", 64: "semget", 65: "semop", 66: "semctl", 67: "shmdt",
	68: "msgget", 69: "msgsnd", 70: "msgrcv", 71: "msgctl", 73: "flock", 76: "truncate", 78: "getdents",
	101: "ptrace", 103: "syslog", 113: "setreuid", 114: "setregid", 116: "setgroups", 122: "setfsuid", 123: "setfsgid",

	136: "ustat",
	139: "sysfs",

	153: "vhangup",
	155: "pivot_root", 161: "chroot", 162: "sync", 163: "acct", 164: "settimeofday",
	165: "mount", 166: "umount2", 167: "swapon", 168: "swapoff", 169: "reboot", 170: "sethostname",
	171: "setdomainname", 172: "iopl", 173: "ioperm", 175: "init_module", 176: "delete_module",
	179: "quotactl", 187: "readahead", 188: "setxattr", 189: "lsetxattr", 190: "fsetxattr",
	197: "removexattr", 198: "lremovexattr", 199: "fremovexattr",
	205: "set_thread_area", 206: "io_setup", 207: "io_destroy",
	208: "io_getevents", 209: "io_submit", 210: "io_cancel", 211: "get_thread_area",
	212: "lookup_dcookie", 216: "remap_file_pages",
	219: "restart_syscall", 220: "semtimedop",

	227: "clock_settime",
	237: "mbind", 238: "set_mempolicy", 239: "get_mempolicy", 240: "mq_open", 241: "mq_unlink",
	242: "mq_timedsend", 243: "mq_timedreceive", 244: "mq_notify", 245: "mq_getsetattr",
	246: "kexec_load", 248: "add_key", 249: "request_key", 250: "keyctl",
	251: "ioprio_set", 252: "ioprio_get", 253: "inotify_init", 254: "inotify_add_watch",
	255: "inotify_rm_watch", 256: "migrate_pages",
	272: "unshare", 275: "splice",
	276: "tee", 277: "sync_file_range", 278: "vmsplice", 279: "move_pages",
	285: "fallocate",
	288: "accept4",
	294: "inotify_init1", 295: "preadv", 296: "pwritev",
	298: "perf_event_open", 299: "recvmmsg", 300: "fanotify_init",
	301: "fanotify_mark", 303: "name_to_handle_at", 304: "open_by_handle_at", 305: "clock_adjtime",
	306: "syncfs", 307: "sendmmsg", 308: "setns", 310: "process_vm_readv",
	311: "process_vm_writev", 312: "kcmp", 313: "finit_module",
	317: "seccomp", 319: "memfd_create",
	320: "kexec_file_load", 321: "bpf", 323: "userfaultfd",
	327: "preadv2", 328: "pwritev2", 329: "pkey_mprotect",
	330: "pkey_alloc", 331: "pkey_free", 333: "io_pgetevents", 424: "pidfd_send_signal",
	425: "io_uring_setup", 426: "io_uring_enter", 427: "io_uring_register", 428: "open_tree",
	429: "move_mount", 430: "fsopen", 431: "fsconfig", 432: "fsmount", 433: "fspick",
	434: "pidfd_open", 437: "openat2", 438: "pidfd_getfd",
	440: "process_madvise", 442: "mount_setattr", 443: "quotactl_fd",
	444: "landlock_create_ruleset", 445: "landlock_add_rule", 446: "landlock_restrict_self",
	447: "memfd_secret", 448: "process_mrelease", 449: "futex_waitv", 450: "set_mempolicy_home_node",
}
