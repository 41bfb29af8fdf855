package kernel

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/icount-dev/icount/emu"
)

// Files of /proc/self the guest reads about itself, answered from the
// guest: the host's would describe icount, and differ from run to run.
// libsigsegv (in GNU grep, diff, ...) reads maps to find the stack.

// procFile returns the process a path of /proc names (/proc/self, or
// /proc/PID of an emulated process, and their task directories) and the
// name of the file within it ("maps" for /proc/self/maps), or nil.
func (p *Process) procFile(path string) (*Process, string) {
	rest, ok := strings.CutPrefix(path, "/proc/")
	if !ok {
		return nil, ""
	}
	dir, file, _ := strings.Cut(rest, "/")
	var q *Process
	switch dir {
	case "self", "thread-self":
		q = p
	default:
		pid, err := strconv.Atoi(dir)
		if err != nil || p.k.procs[pid] == nil {
			return nil, ""
		}
		q = p.k.procs[pid]
	}
	if task, ok := strings.CutPrefix(file, "task/"); ok {
		tid, f, _ := strings.Cut(task, "/")
		if n, err := strconv.Atoi(tid); err != nil || q.threadByTID(n) == nil {
			return nil, ""
		}
		file = f
	}
	return q, file
}

// procSelfAbsent reports whether path is a /proc file the guest is told
// does not exist: a /proc/PID of a pid no emulated process has (the host's
// process of that number is a stranger), and every file of an emulated
// process's /proc/PID that icount neither answers from the guest nor
// passes to the host on purpose (procHostFiles), since the host's would
// describe icount. Among them is cgroup, as in a kernel built without
// control groups: the host's names icount's control group, whose CPU limit
// Go's runtime (1.25 and later) would read to choose GOMAXPROCS; without
// it Go follows the CPU count, --cpus.
func (p *Process) procSelfAbsent(path string) bool {
	if p.procStranger(path) {
		return true
	}
	q, file := p.procFile(path)
	if q == nil {
		return false
	}
	name, _, _ := strings.Cut(strings.TrimSuffix(file, "/"), "/")
	return !procGuestFiles[name] && !procHostFiles[name]
}

// procGuestFiles are the files of /proc/PID answered from the guest
// (procSelf, procfd.go, readlinkat, hostPath); "" is the directory itself.
var procGuestFiles = map[string]bool{"": true, "maps": true, "cmdline": true, "environ": true,
	"status": true, "stat": true, "limits": true, "statm": true, "comm": true, "exe": true, "cwd": true, "fd": true, "task": true}

// procHostFiles are the files of /proc/PID the host answers for the
// guest: the file systems mounted, which are the program's input (icount
// runs its guest in its own mount namespace), and the root directory.
var procHostFiles = map[string]bool{"mountinfo": true, "mounts": true, "mountstats": true, "root": true}

// procStranger reports whether path lies in /proc/PID for a PID no
// emulated process has.
func (p *Process) procStranger(path string) bool {
	rest, ok := strings.CutPrefix(path, "/proc/")
	if !ok {
		return false
	}
	dir, _, _ := strings.Cut(rest, "/")
	pid, err := strconv.Atoi(dir)
	return err == nil && p.k.procs[pid] == nil
}

// procSelf returns the contents of the /proc/PID file at path, if it is
// one icount answers: maps, cmdline, environ and the state files
// (procstatus.go) of an emulated process.
func (p *Process) procSelf(path string) (string, bool) {
	q, file := p.procFile(path)
	if q == nil || q.exited {
		return "", false
	}
	switch file {
	case "maps":
		return q.procMaps(), true
	case "status":
		return q.procStatus(), true
	case "cmdline":
		return strings.Join(q.argv, "\x00") + "\x00", true
	case "environ":
		if len(q.env) == 0 {
			return "", true
		}
		return strings.Join(q.env, "\x00") + "\x00", true
	}
	return p.procStateFile(q, file)
}

// procMaps writes the guest's mappings as Linux does: range, permissions
// (all private), file offset, device and inode (0: the count must not
// depend on them) and the file or [heap]/[stack], named as the guest
// knows it.
func (p *Process) procMaps() string {
	var b strings.Builder
	for v := range p.mm.vmas.all() {
		perms := []byte("---p")
		for i, bit := range []emu.Prot{emu.ProtRead, emu.ProtWrite, emu.ProtExec} {
			if v.prot&bit != 0 {
				perms[i] = "rwx"[i]
			}
		}
		name, off := v.name, uint64(0)
		if r, ok := p.prov.at(v.start); ok && r.path != "" {
			name, off = p.guestName(r.path), r.offset+(v.start-r.start)
		} else if name != "" && !strings.HasPrefix(name, "[") {
			name = p.guestName(name)
		}
		line := fmt.Sprintf("%08x-%08x %s %08x 00:00 0 ", v.start, v.end, perms, off)
		if name != "" {
			line += strings.Repeat(" ", max(0, 73-len(line))) + name
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// guestName is the path the guest knows a mapped host file by: its
// executable at /icount/exe/NAME, its interpreter by PT_INTERP, a file
// found under the sysroot by its path there, one in the private /tmp by
// its path in /tmp.
func (p *Process) guestName(host string) string {
	switch {
	case host == p.exe.Path:
		return p.exePath()
	case p.interp != nil && host == p.interp.Path:
		return p.exe.Interp
	case p.k.opts.Sysroot != "" && strings.HasPrefix(host, p.k.opts.Sysroot+"/"):
		return strings.TrimPrefix(host, p.k.opts.Sysroot)
	}
	if abs, err := filepath.Abs(host); err == nil {
		return p.k.tmpGuest(abs)
	}
	return p.k.tmpGuest(host)
}
