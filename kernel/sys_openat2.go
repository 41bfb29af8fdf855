package kernel

import (
	"encoding/binary"
	"path/filepath"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// openat2: openat with a struct open_how, whose flags and mode Linux
// checks strictly and whose resolve flags restrict the lookup. The host's
// openat2 does the lookup, after icount's own path mapping (the run's
// /tmp, the sysroot, its executable and /proc's files) for a lookup not
// scoped to the directory; a lookup scoped by RESOLVE_BENEATH or
// RESOLVE_IN_ROOT passes to the host as the guest gives it, as long as
// no path icount maps lies in its reach, and stops the run when one does.

// open_how's resolve flags (include/uapi/linux/openat2.h).
const (
	resolveNoXdev       = 0x01
	resolveNoMagiclinks = 0x02
	resolveNoSymlinks   = 0x04
	resolveBeneath      = 0x08
	resolveInRoot       = 0x10
	resolveCached       = 0x20
)

// Sizes of struct open_how: its first version (flags, mode, resolve),
// which is also today's, and the most openat2 reads (PAGE_SIZE).
const (
	openHowSize    = 24
	openHowMaxSize = 4096
)

// mappedDirs are the guest's directories icount gives other host files:
// the private /tmp, its executable's directory, and the files it answers
// itself (/proc, /dev's random devices, /sys's CPU files).
var mappedDirs = []string{"/tmp", "/var/tmp", "/icount", "/proc", "/dev", "/sys"}

func sysOpenat2(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	how, err := p.readOpenHow(a[2], a[3])
	if err != nil {
		return 0, err
	}
	// The host checks the flags, mode and resolve flags as the guest's
	// Linux does, before it reads the path: given none, it answers
	// EFAULT once they pass.
	atCWD := int(unix.AT_FDCWD)
	probe := how
	probe.Flags = uint64(p.abi.openFlags(how.Flags))
	if _, _, e := unix.Syscall6(unix.SYS_OPENAT2, uintptr(atCWD), 0, uintptr(unsafe.Pointer(&probe)), openHowSize, 0, 0); e != unix.EFAULT {
		return 0, e
	}
	dir, path, err := p.pathAt(a[0], a[1])
	if err != nil {
		return 0, err
	}
	if how.Resolve&resolveCached != 0 {
		// What the host's caches hold is no input of the program's:
		// this is Linux's answer when they do not hold the path, on
		// which the caller opens again without RESOLVE_CACHED.
		return 0, unix.EAGAIN
	}
	open := func(dir int, host string, flags int, mode uint32) (int, error) {
		return unix.Openat2(dir, host, &unix.OpenHow{Flags: uint64(flags), Mode: uint64(mode), Resolve: how.Resolve})
	}
	inRoot := how.Resolve&resolveInRoot != 0
	if scoped := how.Resolve&(resolveBeneath|resolveInRoot) != 0; scoped || how.Resolve != 0 {
		if m := p.mappedInReach(a[0], path, scoped, inRoot); m != "" {
			return 0, errUnsupported("openat2 of " + path + " with resolve flags " + itoa(how.Resolve) + ", whose lookup reaches " + m + " (icount gives it other host files, or answers it itself)")
		}
		if scoped {
			// The directory scopes an absolute path too.
			if dir, err = p.hostDir(a[0]); err != nil {
				return 0, err
			}
			asGiven := func(path string, op func(host string) error) (string, error) { return path, op(path) }
			return p.openHost(dir, a[0], path, how.Flags, how.Mode, asGiven, open)
		}
	}
	return p.openPath(dir, a[0], path, how.Flags, how.Mode, open)
}

// readOpenHow reads the guest's struct open_how of size bytes at addr as
// openat2 does: EINVAL for a size below the first version's, E2BIG above
// a page or for bytes past today's struct that are not zero, EFAULT for
// memory not readable. Its flags are the guest's.
func (p *Process) readOpenHow(addr, size uint64) (unix.OpenHow, error) {
	var how unix.OpenHow
	if size < openHowSize {
		return how, unix.EINVAL
	}
	if size > openHowMaxSize {
		return how, unix.E2BIG
	}
	raw, err := p.readMem(addr, size)
	if err != nil {
		return how, err
	}
	for _, b := range raw[openHowSize:] {
		if b != 0 {
			return how, unix.E2BIG
		}
	}
	le := binary.LittleEndian
	how.Flags, how.Mode, how.Resolve = le.Uint64(raw), le.Uint64(raw[8:]), le.Uint64(raw[16:])
	return how, nil
}

// mappedInReach names the directory of mappedDirs an openat2 lookup of
// path from dirfd with resolve flags could reach where the host's files
// are not what the guest sees there ("" for none). A lookup the host
// makes from a directory (a relative path, or a scoped one) sees the
// host's files beneath it, as openat relative to it does: it must not
// enter a mapped directory from above, nor look into /proc, /dev or /sys
// (whose host files are icount's, or not the ones it answers); with
// RESOLVE_IN_ROOT, whose absolute symbolic links lead anywhere beneath
// the root, the root must hold none. An absolute path, unscoped, is
// icount's mapping, whose host files have other mounts and links than
// Linux's there, except the run's /tmp's; with RESOLVE_BENEATH it is the
// host's EXDEV.
func (p *Process) mappedInReach(dirfd uint64, path string, scoped, inRoot bool) string {
	host := p.dirPath(dirfd)
	if host == "" {
		host = p.cwdPath()
	}
	dir := p.k.tmpGuest(host)
	if root := p.k.opts.Sysroot; root != "" {
		if rest, ok := strings.CutPrefix(dir, root); ok && (rest == "" || rest[0] == '/') {
			dir = "/" + strings.TrimPrefix(rest, "/") // the guest's root is the sysroot
		}
	}
	absolute := filepath.IsAbs(path)
	if scoped && !inRoot && absolute {
		return ""
	}
	target := filepath.Clean(filepath.Join(dir, path))
	if absolute {
		target = filepath.Clean(path)
	}
	under := func(a, m string) bool { return a == m || strings.HasPrefix(a, m+"/") }
	for _, m := range mappedDirs {
		icountsOwn := m == "/proc" || m == "/dev" || m == "/sys"
		var reached bool
		switch {
		case inRoot:
			reached = dir == "/" || strings.HasPrefix(m, dir+"/") || icountsOwn && under(dir, m)
		case absolute:
			reached = under(target, m) && m != "/tmp" && m != "/var/tmp"
		default:
			reached = under(target, m) && (!under(dir, m) || icountsOwn)
		}
		if reached {
			return m
		}
	}
	return ""
}
