package kernel

import "golang.org/x/sys/unix"

// Network system calls. A guest has no network, not even local sockets:
// what it could reach would make its count depend on other processes.
// socket fails as under a sandbox that forbids it, and libc falls back (the
// name-service cache daemon, nscd, is skipped for the files it would
// answer from).

func sysSocket(t *Task, a [6]uint64) (uint64, error) { return 0, unix.EACCES }
