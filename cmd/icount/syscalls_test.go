package main

// The system-call conformance suite (issue 15): C programs that make the
// calls icount emulates with ordinary and edge arguments and print one
// line per case, run natively and under icount with equal output
// required; together they must make every call the tables answer.

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/icount-dev/icount/emu"
	"github.com/icount-dev/icount/kernel"
	"golang.org/x/sys/unix"
)

// conformanceProgram is one program of the suite, built musl- and
// glibc-static for amd64 and glibc-static for arm64.
type conformanceProgram struct {
	name string // testdata/c/NAME.c, or proc/NAME for testdata/proc/NAME.c
	// complete says the judge's output is whole (it ran to its end).
	complete func(out string) bool
	// asUser: the judge runs it natively as uid 1000 (it does not drop
	// privileges itself, as conformance.h's start does).
	asUser bool
	// amd64Judged: the arm64 build is held to the amd64 glibc build's
	// native output, which it prints alike (qemu-aarch64 is no judge of
	// these calls); oneOutput: so are the amd64 builds, whose native runs
	// must print it too.
	amd64Judged, oneOutput bool
	flags                  []string // icount's
	args                   []string // the program's, under icount only
	// twice: a second run under icount does the same work (sameRun).
	twice bool
	// alone: its native run sleeps and counts timer expiries, which the
	// load of other runs beside it would change: its builds run one at a
	// time, before the others.
	alone bool
	// want is what icount must print given what the judge printed (nil:
	// the same).
	want func(t *testing.T, judged string, arm64 bool) string
}

// endsWith is a complete func: the output ends with last and has at least
// lines lines.
func endsWith(last string, lines int) func(string) bool {
	return func(out string) bool { return strings.HasSuffix(out, last) && strings.Count(out, "\n") >= lines }
}

// fixedClock is the flag of the programs whose timers run in guest time.
var fixedClock = []string{"--fixed-clock"}

// conformancePrograms are the programs of the suite.
var conformancePrograms = []conformanceProgram{
	// kernel/sys_fsops.go: rename, link, symlink, rmdir, creat, mknod,
	// chmod, chown, the timestamps, close_range.
	{name: "fsops", complete: endsWith("close_range 1st..1st: ok\n  fd 0: EBADF\n", 200)},
	// truncate, fallocate, the syncs, readahead, the vectored and v2
	// transfers, splice and tee, the xattr setters, x86-64's getdents,
	// memfd_create and its seals.
	{name: "fileops2", complete: func(out string) bool {
		return strings.Contains(out, "F_ADD_SEALS on a file: EINVAL\n") && strings.Contains(out, "  eventfd: FD_CLOEXEC 1\n") &&
			endsWith("F_GETPIPE_SZ bad fd: EBADF\ndone\n", 160)(out)
	}},
	// fcntl's POSIX and OFD locks and flock between processes.
	{name: "proc/locks", complete: func(out string) bool {
		return endsWith("\ndone\n", 140)(out) && strings.Contains(out, "parent: a cycle of waits: one EDEADLK, the other ok\n")
	}},
	// /proc/self/fd and /proc/self/task (qemu-aarch64 lists a thread of
	// its own).
	{name: "procfd", amd64Judged: true, complete: func(out string) bool {
		return strings.Contains(out, "opened: 2 dot directories, descriptors 0 1 2 3 4 5 6 9\n")
	}},
	// /proc/PID/status line by line as a process starts, changes its
	// umask, dispositions and mask, makes a thread, and as its child sees
	// it waiting (qemu-aarch64 catches signals of its own).
	{name: "procstatus", amd64Judged: true, complete: func(out string) bool {
		// SIGPIPE ignored, whatever else the judge inherited ignored.
		return regexp.MustCompile(`\n  SigIgn:\t[0-9a-f]{12}[13579bdf]000\n`).MatchString(out)
	}},
	// /proc/PID's state files and the machine's, checked against the
	// system calls (under qemu-aarch64, /proc/self/status is qemu's).
	{name: "procstate", amd64Judged: true, complete: func(out string) bool {
		return endsWith("VmSize is given: yes\n", 79)(out) && !strings.Contains(out, ": NO\n") && strings.Contains(out, "fields: 52\n")
	}},
	// O_NONBLOCK by F_SETFL and FIONBIO, F_GETFL, read, write, poll,
	// select and epoll on a pipe, a FIFO opened by path at both ends and
	// stdout (a host stream under icount), bad descriptors and pointers.
	{name: "nonblock", complete: func(out string) bool {
		return strings.HasSuffix(out, "\ndone\n") && strings.Count(out, "\n") >= 60
	}},
	// inotify: instances, watches, the events file operations queue,
	// blocking and non-blocking reads, a buffer too small, FIONREAD, poll
	// and epoll, the errors Linux gives.
	{name: "inotify", complete: func(out string) bool {
		return strings.Contains(out, "a blocking read, the child's rename: read 4096: 64 bytes\n") &&
			strings.HasSuffix(out, "delete, blocking again: read 4096: 64 bytes\n  wd 1 DELETE cookie #0 len 16 name \"fourth\"\n  wd 1 DELETE cookie #0 len 16 name \"file\"\n") &&
			strings.Count(out, "\n") >= 80
	}},
	// openat2: open_how's sizes, the flags, modes and resolve flags Linux
	// rejects and in what order, lookups with each resolve flag
	// (qemu-aarch64 7.2 has no openat2).
	{name: "openat2", amd64Judged: true, complete: endsWith("unlink f: ok\n", 54)},
	// uselib, modify_ldt, set_thread_area and get_thread_area on amd64;
	// remap_file_pages and restart_syscall on both (qemu-aarch64 answers
	// ENOSYS to both: the arm64 build prints the amd64 output from
	// remap_file_pages on).
	{name: "oldcalls", amd64Judged: true, want: fromLine("remap_file_pages private:"), complete: func(out string) bool {
		return strings.Contains(out, "modify_ldt read default: 128\n") && strings.HasSuffix(out, "restart_syscall: EINTR\n")
	}},
	// sendmmsg and recvmmsg on Unix datagram and stream sockets (several
	// messages a call, msg_len, MSG_WAITFORONE, recvmmsg's timeout on
	// amd64, a first message that waits, short counts, errors); vmsplice
	// from a pipe and into one with SPLICE_F_GIFT.
	{name: "mmsg", complete: func(out string) bool {
		return strings.Contains(out, "vmsplice 20 pieces of 10 bytes (GIFT): 160\n") && strings.HasSuffix(out, "done: ok\n") &&
			strings.Count(out, "\n") >= 45
	}},
	// Numbers Linux has no call for: ENOSYS.
	{name: "enosys", complete: func(out string) bool { return strings.Count(out, "Function not implemented") == 7 }},
	// EFAULT and short counts (qemu-aarch64 checks whole buffers, and
	// departs from Linux elsewhere: clock_getres, nanosleep, getrandom...).
	{name: "efault", amd64Judged: true, oneOutput: true, complete: func(out string) bool {
		return endsWith("read 0 bytes into NULL: 0\n", 100)(out) && strings.Contains(out, "read into a buffer 100 bytes before a hole: 100\n")
	}},
	// The privileged and absent calls of kernel/sys_absent.go, and under
	// icount the section whose native answer depends on the host kernel
	// (x86-64's ends with ustat, arm64's with pkey_free).
	{name: "absent", args: []string{"configured"}, want: absentWant, complete: func(out string) bool {
		last := out[strings.LastIndex(strings.TrimSuffix(out, "\n"), "\n")+1:]
		return endsWith("ustat no device: EINVAL\n", 100)(out) || strings.Count(out, "\n") >= 100 && strings.Contains(last, "pkey_free -1: ")
	}},
	// Unix-domain sockets between processes (qemu-user passes socketpair
	// types Linux refuses).
	{name: "proc/unixsock", amd64Judged: true, oneOutput: true, flags: fixedClock, twice: true, complete: endsWith("\ndone\n", 150)},
	// The time, scheduling and process-attribute calls: qemu-aarch64 has
	// its own timer ids, loses sigev_value, answers the robust lists
	// ENOSYS, converts siginfo and sched_attr its own way, has a thread of
	// its own that keeps its nice value and writes back no pselect6 time.
	timesched("posixtimers", "parent's timer still armed: 1\ndone\n", 80),
	timesched("timerthread", "one-shot ran: 1\ntimer_delete one-shot: 0\n", 8),
	timesched("sched", "tgsigqueueinfo SI_USER to the parent: EPERM; handler: sig 0 code 0 pid 0 value 0\ndone\n", 170),
	timesched("select", "select cut by SIGALRM: EINTR 0\n  handled 14, left in (4 s, 5 s): 1\ndone\n", 40),
	timesched("timerfd", "parent: read after the child: EAGAIN -1 count 0\nclosed: gettime EBADF\ndone\n", 45),
	timesched("signalfd", "  signo 17 errno 0 code 1 pid ok 1 uid 1000 tid 0 overrun 0 status 7 int 0 ptr 0 addr 0\ndone\n", 35),
	timesched("mlock", "msync across the hole to a locked page, MS_INVALIDATE: EBUSY\ndone\n", 50),
	// The credentials and sessions.
	bothArches("ids", 70),
	// access and faccessat2, chdir and fchdir, mkdirat, the syncs,
	// fadvise, the xattr getters, statfs, copy_file_range, sendfile,
	// fchmodat2, preadv2 and pwritev2 (qemu-aarch64 7.2 has neither),
	// dup3.
	bothArches("fsmore", 200),
	// mremap, mincore of pages touched, membarrier.
	bothArches("vm", 30),
	// Private and shared read-only file mappings (kernel/filemap.go): the
	// file's bytes, writes kept private, the file's changes shown, SIGBUS
	// past the end and after a truncation, fork, a file past 1 GiB.
	bothArches("mapfile", 35),
	// waitid, execveat, tkill, rt_sigsuspend, getitimer, sched_yield,
	// sched_setaffinity, epoll_pwait2; x86-64's alarm, pause, time,
	// eventfd and epoll_create.
	bothArches("procs", 40),
}

// bothArches is a program that prints alike on both arches but for its
// lines marked "x86 " (the calls only x86-64 has), judged by the amd64
// builds' native runs, which must print the same: qemu-aarch64 is no judge
// of every call, and an amd64 Linux is.
func bothArches(name string, lines int) conformanceProgram {
	return conformanceProgram{name: name, complete: endsWith("\ndone\n", lines), amd64Judged: true, oneOutput: true, want: withoutX86Lines}
}

// withoutX86Lines is what the arm64 build prints of the judge's output:
// every line but those marked "x86 ".
func withoutX86Lines(t *testing.T, judged string, arm64 bool) string {
	if !arm64 {
		return judged
	}
	var b strings.Builder
	for _, line := range strings.SplitAfter(judged, "\n") {
		if !strings.HasPrefix(line, "x86 ") {
			b.WriteString(line)
		}
	}
	return b.String()
}

// fromLine is a want func: the arm64 build prints the judge's output from
// the line starting with first on.
func fromLine(first string) func(t *testing.T, judged string, arm64 bool) string {
	return func(t *testing.T, judged string, arm64 bool) string {
		if i := strings.Index(judged, first); arm64 && i >= 0 {
			return judged[i:]
		}
		return judged
	}
}

// timesched is a program of the time, scheduling and process-attribute
// calls: judged natively as uid 1000 on amd64, alone, timers in guest
// time, the same work on a second run.
func timesched(name, last string, lines int) conformanceProgram {
	return conformanceProgram{name: name, complete: endsWith(last, lines), asUser: true, amd64Judged: true, flags: fixedClock, twice: true, alone: true}
}

// conformanceExempt are the calls the tables answer that no conformance
// program makes, each with the reason (none: every one is made).
var conformanceExempt = map[string]string{}

// builds are the paths of p's builds under testdata/build.
func (p conformanceProgram) builds() []string {
	dir, name := "c", p.name
	if rest, ok := strings.CutPrefix(name, "proc/"); ok {
		dir, name = "proc", rest
	}
	arm64 := "arm64/c/"
	if dir == "proc" {
		arm64 = "proc/arm64/"
	}
	return []string{dir + "/" + name + "-musl", dir + "/" + name + "-glibc", arm64 + name + "-glibc"}
}

// isArm64Build says build is an arm64 program.
func isArm64Build(build string) bool { return strings.Contains(build, "arm64/") }

// native is what build prints outside icount: natively (as uid 1000 if
// asUser, in "/": it writes no file) or under qemu-aarch64, in a new
// directory; it must exit 0 with output complete says is whole.
func (p conformanceProgram) native(t *testing.T, build string) string {
	t.Helper()
	bin := testProgram(t, build)
	var out string
	var status int
	if p.asUser {
		out, status = runNativeWith(t, "/", nil, unprivileged(t), bin)
	} else {
		out, status = runJudge(t, nil, bin)
	}
	if status != 0 || !p.complete(out) {
		t.Fatalf("%s natively: exit %d, output:\n%s", build, status, out)
	}
	return out
}

// judged is what build must print under icount.
func (p conformanceProgram) judged(t *testing.T, build string) string {
	t.Helper()
	arm64 := isArm64Build(build)
	amd64Glibc := p.builds()[1]
	var want string
	switch {
	case p.oneOutput:
		want = p.native(t, amd64Glibc)
		if !arm64 && build != amd64Glibc {
			if out := p.native(t, build); out != want {
				t.Fatalf("%s natively:\n%s\nwant (%s):\n%s", build, out, amd64Glibc, want)
			}
		}
	case p.amd64Judged && arm64:
		want = p.native(t, amd64Glibc)
	default:
		want = p.native(t, build)
	}
	if p.want != nil {
		want = p.want(t, want, arm64)
	}
	return want
}

// compare runs build under icount in a new directory and requires the
// judged output and exit 0 (and, if p.twice, the same work on a second
// run); it returns the run.
func (p conformanceProgram) compare(t *testing.T, build string) result {
	t.Helper()
	want := p.judged(t, build)
	bin := testProgram(t, build)
	r := runIcountIn(t, t.TempDir(), nil, p.flags, bin, p.args...)
	if r.status != 0 || r.stdout != want || r.profile == nil {
		t.Fatalf("under icount: exit %d, output:\n%s\nwant:\n%s\nstderr:\n%s", r.status, r.stdout, want, r.stderr)
	}
	if p.twice {
		if diff := sameRun(r, runIcountIn(t, t.TempDir(), nil, p.flags, bin, p.args...)); diff != "" {
			t.Fatalf("a second run differs: %s", diff)
		}
	}
	return r
}

// conformanceCoverage gathers, per arch, what the suite's runs compared.
type conformanceCoverage struct {
	mu    sync.Mutex
	runs  int
	archs map[emu.Arch]*archCoverage
}

// archCoverage is what the runs of one arch's builds compared.
type archCoverage struct {
	builds, cases, errnoLines int
	calls                     map[string]bool    // made, by the Profiles
	pairs                     map[[2]string]bool // (call, errno) of the errno lines that name their call first
}

// add counts a run of build whose output (equal to Linux's) was out.
func (c *conformanceCoverage) add(build string, r result, errnos *errnoNames) {
	arch := emu.X86_64
	if isArm64Build(build) {
		arch = emu.ARM64
	}
	names := map[string]bool{}
	for _, c := range kernel.Calls() {
		if c.Nr(arch) >= 0 {
			names[c.Name] = true
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.runs++
	a := c.archs[arch]
	if a == nil {
		a = &archCoverage{calls: map[string]bool{}, pairs: map[[2]string]bool{}}
		c.archs[arch] = a
	}
	a.builds++
	for name := range r.profile.Syscalls {
		a.calls[name] = true
	}
	for _, line := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
		a.cases++
		e := errnos.in(line)
		if e == "" {
			continue
		}
		a.errnoLines++
		if call := firstWord(line); names[call] {
			a.pairs[[2]string{call, e}] = true
		}
	}
}

// firstWord is the word a case line starts with, which names the call it
// makes when it is one (the lines of some programs are marked "~ " or
// "x86 ").
func firstWord(line string) string {
	line = strings.TrimPrefix(strings.TrimPrefix(line, "~ "), "x86 ")
	end := strings.IndexAny(line, " :(")
	if end < 0 {
		return line
	}
	return line[:end]
}

// errnoNames recognises the errnos the programs print, by the names of
// testdata/c/errname.h or by their strerror text.
type errnoNames struct {
	names   map[string]bool
	word    *regexp.Regexp
	strings map[string]string // lower-cased strerror text -> name
}

// loadErrnoNames reads the names errname.h prints.
func loadErrnoNames(t *testing.T) *errnoNames {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, "testdata", "c", "errname.h"))
	if err != nil {
		t.Fatal(err)
	}
	e := &errnoNames{names: map[string]bool{}, word: regexp.MustCompile(`\bE[A-Z0-9]+\b`), strings: map[string]string{}}
	for _, m := range regexp.MustCompile(`return "(E[A-Z0-9]+)";`).FindAllStringSubmatch(string(b), -1) {
		e.names[m[1]] = true
	}
	for n := syscall.Errno(1); n < 134; n++ {
		if name := unix.ErrnoName(n); name != "" {
			e.strings[strings.ToLower(n.Error())] = name
		}
	}
	return e
}

// in is the errno line names as its result ("" for none).
func (e *errnoNames) in(line string) string {
	for _, w := range e.word.FindAllString(line, -1) {
		if e.names[w] {
			return w
		}
	}
	lower := strings.ToLower(line)
	for text, name := range e.strings {
		if strings.HasSuffix(lower, ": "+text) {
			return name
		}
	}
	return ""
}

// TestSyscallConformance runs each conformance program's builds (amd64
// musl- and glibc-static, arm64 glibc-static) natively (under
// qemu-aarch64 for arm64, where it is a judge) and under icount: the
// output and exit status must be the same. The Profiles' system calls,
// unioned per arch, must hold every call the arch's table answers (full,
// partial or refused) but those of conformanceExempt. It logs per arch
// the calls covered, the cases (lines compared) and the errno paths.
func TestSyscallConformance(t *testing.T) {
	errnos := loadErrnoNames(t)
	cov := &conformanceCoverage{archs: map[emu.Arch]*archCoverage{}}
	total := 0
	t.Run("programs", func(t *testing.T) {
		for _, p := range conformancePrograms {
			for _, build := range p.builds() {
				total++
				t.Run(build, func(t *testing.T) {
					if !p.alone {
						t.Parallel()
					}
					cov.add(build, p.compare(t, build), errnos)
				})
			}
		}
	})
	if t.Failed() || cov.runs != total {
		t.Logf("%d of %d builds compared: coverage not checked", cov.runs, total)
		return
	}
	for _, arch := range []emu.Arch{emu.X86_64, emu.ARM64} {
		checkCoverage(t, arch, cov.archs[arch])
	}
}

// checkCoverage fails the test naming each call arch's table answers that
// a's runs did not make, and logs what they compared.
func checkCoverage(t *testing.T, arch emu.Arch, a *archCoverage) {
	t.Helper()
	var emulated, covered int
	var missing []string
	for _, sc := range kernel.Calls() {
		if sc.Nr(arch) < 0 || sc.Support != kernel.Full && sc.Support != kernel.Partial && sc.Support != kernel.Refused {
			continue
		}
		emulated++
		switch {
		case a.calls[sc.Name]:
			covered++
		case conformanceExempt[sc.Name] == "":
			missing = append(missing, sc.Name)
		}
	}
	sort.Strings(missing)
	t.Logf("%s: %d of %d emulated calls made (%d exempt); %d builds: %d cases compared, %d errno paths, %d distinct (call, errno) pairs",
		arch, covered, emulated, len(conformanceExempt), a.builds, a.cases, a.errnoLines, len(a.pairs))
	if len(missing) > 0 {
		t.Errorf("%s: no conformance program makes %d emulated calls: %s", arch, len(missing), strings.Join(missing, " "))
	}
}

// absentWant is what testdata/c/absent.c prints under icount given its
// judge's output: for arm64 the lines marked "~ " (cases qemu-user does
// not answer as Linux) are the amd64 glibc build's native ones; then the
// configured section, icount's documented choices.
func absentWant(t *testing.T, judged string, arm64 bool) string {
	if arm64 {
		amd64 := map[string]string{}
		native, status := runJudge(t, nil, testProgram(t, "c/absent-glibc"))
		if status != 0 {
			t.Fatalf("c/absent-glibc natively: exit %d", status)
		}
		for _, line := range strings.SplitAfter(native, "\n") {
			if name, _, ok := strings.Cut(line, ": "); ok {
				amd64[name] = line
			}
		}
		judged = amd64Answers(t, judged, amd64)
	}
	return judged + configuredFor(arm64)
}
