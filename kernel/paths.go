package kernel

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/icount-dev/icount/emu"
	"golang.org/x/sys/unix"
)

// Paths the guest names, and the host files they are. The guest sees its
// executable at /icount/exe/NAME (see exePath), so that opening that path,
// or a file beside it (ld.so's $ORIGIN), reaches the binary's real
// directory. A guest of another arch than the host's finds its libraries
// under the sysroot: a path is looked up there first, and on the host
// when the sysroot lacks it.

// DefaultSysroot is where an arm64 guest's interpreter and libraries are
// found when --sysroot is not given: Debian's cross packages (libc6-arm64-cross)
// install them there. It is "" when the directory does not exist, and for
// x86-64 guests, whose libraries are the host's.
func DefaultSysroot(arch emu.Arch) string {
	const debianARM64 = "/usr/aarch64-linux-gnu"
	if arch != emu.ARM64 {
		return ""
	}
	if st, err := os.Stat(debianARM64); err == nil && st.IsDir() {
		return debianARM64
	}
	return ""
}

// InterpPath is the host file of the interpreter interp for a guest with
// sysroot ("" for none): under the sysroot when there is one.
func InterpPath(interp, sysroot string) string {
	if sysroot == "" {
		return interp
	}
	return filepath.Join(sysroot, interp)
}

// hostPath maps a path the guest names onto the host: /tmp and /var/tmp
// to the run's own (tmpdir.go), its own executable's aliases to the binary, what lies under /icount/exe/ to the binary's
// directory, and /proc/PID/fd/N of an emulated process to the host
// descriptor of its N, a path not found when N is not open (libc's
// fchmodat with AT_SYMLINK_NOFOLLOW chmods /proc/self/fd/N of an O_PATH
// descriptor).
func (p *Process) hostPath(path string) string {
	if host, ok := p.k.tmpHost(path); ok {
		return host
	}
	if p.isExe(path) {
		return p.exe.Path
	}
	if q, file := p.procFile(path); q != nil {
		if n, ok := strings.CutPrefix(file, "fd/"); ok {
			if fd, err := strconv.Atoi(n); err == nil {
				if f, err := q.fds.get(uint64(fd)); err == nil {
					return "/proc/self/fd/" + itoa(uint64(f.host))
				}
				return "/proc/self/fd/-1" // not open: ENOENT, as Linux's
			}
		}
	}
	dir := strings.TrimSuffix(exeDir, "/")
	if path == dir {
		return filepath.Dir(p.exe.Path)
	}
	if rest, ok := strings.CutPrefix(path, exeDir); ok {
		return filepath.Join(filepath.Dir(p.exe.Path), rest)
	}
	return path
}

// resolve runs op on the host file of path: for an absolute path the
// guest names as it is (not one hostPath maps) and a guest with a
// sysroot, the file under the sysroot when there is one there (as
// qemu-aarch64 -L looks a path up: the sysroot first), else the host path
// of path (see hostPath). It returns the host path op ran on.
func (p *Process) resolve(path string, op func(host string) error) (string, error) {
	host := p.hostPath(path)
	if root := p.k.opts.Sysroot; root != "" && host == path && filepath.IsAbs(path) {
		if under := filepath.Join(root, path); unix.Access(under, unix.F_OK) == nil {
			host = under
		}
	}
	return host, op(host)
}

// dirPath is the host path of the directory a guest descriptor for *at
// calls names, for naming the files opened relative to it.
func (p *Process) dirPath(dirfd uint64) string {
	if dirfd == guestFDCWD || int32(dirfd) == -100 {
		if p.cwd != nil {
			return p.cwd.path
		}
		return ""
	}
	if f, err := p.fds.get(dirfd); err == nil {
		return f.path
	}
	return ""
}

// cwdRelative makes host, a host path of hostPath or resolve, one the host
// resolves from p's working directory when it is relative, for the calls
// that take no directory descriptor (truncate, statfs, the xattr calls):
// through the host's /proc/self/fd link of the directory's descriptor.
func (p *Process) cwdRelative(host string) string {
	if p.cwd == nil || host == "" || filepath.IsAbs(host) { // "" is ENOENT, not the directory
		return host
	}
	return "/proc/self/fd/" + itoa(uint64(p.cwd.fd)) + "/" + host
}
