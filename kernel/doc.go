// Package kernel emulates Linux as a guest process tree sees it, in three
// layers, as gVisor's sentry has them:
//
//   - the Kernel (kernel.go, sched.go, futex.go, sys_wait.go): what every
//     process of a run shares: one scheduler over every task of every
//     process, guest time and the fixed clock, pids and tids in creation
//     order, futex queues keyed by address space and address, the record
//     of each program a process ran (Image) for the Profile;
//   - the Process (process.go, sys_fork.go, fd.go, sys_cwd.go, signal.go):
//     a thread group: its address space (a CPU, the mappings and what they
//     hold), descriptor table, working directory, umask, signal
//     dispositions, parent and children, exit status;
//   - the Task (task.go, sys_thread.go): one thread: its registers (an
//     emu.Context on its process's CPU), signal mask and pending signals,
//     tid, and what it waits for.
//
// One system-call table (calls.go, with sys_absent.go's refusals), a row
// per call with its number on each guest arch, maps numbers to handlers
// grouped by family (sys_*.go); a handler takes the calling Task
// (t.proc is its process, t.proc.k the Kernel) and the call's arguments.
// The package drives each CPU only through the narrow CPU interface, and
// gets a CPU for each new address space from its Host (count.Run).
package kernel
