package main

// The privileged system calls and absent facilities of
// kernel/sys_absent.go, which icount refuses as Linux refuses an
// unprivileged process, or as a kernel built without them does (issue 15).

import (
	"strings"
	"testing"
)

// absentConfigured is what icount answers in the configured section of
// testdata/c/absent.c: the calls whose native answer depends on how the
// host's kernel was built and set up (this one has no modules, kexec or
// iopl, and has io_uring, SysV IPC, NUMA...), each with the choice
// kernel/sys_absent.go documents. A line starting with "x86 " is printed
// by the amd64 builds only.
const absentConfigured = `-- configured
init_module: EPERM
finit_module: EPERM
delete_module: EPERM
kexec_load: EPERM
kexec_file_load: EPERM
x86 iopl 0: 0
x86 iopl 3: EPERM
x86 iopl 4: EINVAL
x86 ioperm off: 0
x86 ioperm on: EPERM
x86 ioperm past the end: EINVAL
x86 ioperm wrap: EINVAL
ioprio_get own user: 16388
io_setup: ENOSYS
io_destroy: ENOSYS
io_submit: ENOSYS
io_cancel: ENOSYS
io_getevents: ENOSYS
io_pgetevents: ENOSYS
io_uring_setup: ENOSYS
io_uring_enter: ENOSYS
io_uring_register: ENOSYS
shmget size 0: ENOSYS
shmat: ENOSYS
shmctl: ENOSYS
shmdt: ENOSYS
semget nsems -1: ENOSYS
semop: ENOSYS
semctl: ENOSYS
semtimedop: ENOSYS
msgget missing key: ENOSYS
msgsnd: ENOSYS
msgrcv: ENOSYS
msgctl: ENOSYS
mq_open: ENOSYS
mq_unlink: ENOSYS
mq_timedsend: ENOSYS
mq_timedreceive: ENOSYS
mq_notify: ENOSYS
mq_getsetattr: ENOSYS
add_key: ENOSYS
request_key: ENOSYS
keyctl: ENOSYS
mbind: ENOSYS
set_mempolicy: ENOSYS
get_mempolicy: ENOSYS
migrate_pages: ENOSYS
move_pages: ENOSYS
set_mempolicy_home_node: ENOSYS
landlock_create_ruleset: ENOSYS
landlock_add_rule: ENOSYS
landlock_restrict_self: ENOSYS
seccomp: ENOSYS
memfd_secret: ENOSYS
futex_waitv: ENOSYS
pidfd_open: ENOSYS
pidfd_send_signal: ENOSYS
pidfd_getfd: ENOSYS
process_madvise: ENOSYS
process_mrelease: ENOSYS
process_vm_readv: ENOSYS
process_vm_writev: ENOSYS
kcmp: ENOSYS
fanotify_init: ENOSYS
fanotify_mark: ENOSYS
name_to_handle_at: ENOSYS
open_by_handle_at: ENOSYS
quotactl: ENOSYS
quotactl_fd: ENOSYS
userfaultfd: ENOSYS
bpf: EPERM
perf_event_open: EACCES
syslog SIZE_BUFFER: EPERM
syslog READ_ALL: EPERM
syslog OPEN: EPERM
pkey_alloc: ENOSPC
pkey_alloc bad flags: EINVAL
pkey_alloc bad rights: EINVAL
x86 sysfs: ENOSYS
ptrace ATTACH to a child: EPERM
ptrace TRACEME: EPERM
unshare NEWUSER: EPERM
`

// configuredFor is absentConfigured as the build for arm64 or amd64
// prints it.
func configuredFor(arm64 bool) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(absentConfigured, "\n") {
		rest, x86 := strings.CutPrefix(line, "x86 ")
		if !x86 || !arm64 {
			b.WriteString(rest)
		}
	}
	return b.String()
}

// amd64Answers replaces each line of judged marked "~ " (a case qemu-user
// does not answer as Linux) by the amd64 build's native line for it.
func amd64Answers(t *testing.T, judged string, amd64 map[string]string) string {
	t.Helper()
	var b strings.Builder
	for _, line := range strings.SplitAfter(judged, "\n") {
		if rest, ok := strings.CutPrefix(line, "~ "); ok {
			name, _, _ := strings.Cut(rest, ": ")
			if amd64[name] == "" {
				t.Fatalf("the amd64 build printed no %q", name)
			}
			line = "~ " + amd64[name]
		}
		b.WriteString(line)
	}
	return b.String()
}

// TestAbsentStops runs the forms of sys_absent.go's calls icount does not
// answer (a read of the host's NTP state, open_tree's O_PATH descriptor):
// each stops the run with status 125, naming the call and the form.
func TestAbsentStops(t *testing.T) {
	t.Parallel()
	bin := testProgram(t, "c/absent-musl")
	for call, what := range map[string]string{
		"adjtimex":      "a read of the clock's NTP state",
		"clock_adjtime": "a read of the clock's NTP state",
		"open_tree":     "flags without OPEN_TREE_CLONE",
	} {
		r := runIcount(t, nil, nil, bin, "stop", call)
		if r.status != 125 || r.stdout != "" || !strings.Contains(r.stderr, "system call "+call+" (") || !strings.Contains(r.stderr, what) {
			t.Errorf("%s: exit %d, stdout %q, stderr:\n%s", call, r.status, r.stdout, r.stderr)
		}
	}
}
