package kernel

// What the guest read that icount does not pin, for the Profile: the
// files it opened as they were when it first opened them, whether it
// learnt its working directory, and what its standard descriptors were.
// A diff names what differs (the determinism contract: these are the
// program's input).

import (
	"github.com/icount-dev/icount/internal/filedigest"
	"os"

	"github.com/icount-dev/icount/inherited"
	"github.com/icount-dev/icount/profile"
	"golang.org/x/sys/unix"
)

// inputs are what the guest read that icount cannot pin.
type inputs struct {
	files []profile.InputFile
	seen  map[string]bool
	// written are the files the guest made or opened for writing: what it
	// reads of them later is its own output, not its input.
	written map[fileID]bool
	cwdRead bool
	cwd     string // the first process's, when it started
	stdio   []string
}

func newInputs() inputs {
	wd, _ := os.Getwd()
	return inputs{seen: map[string]bool{}, written: map[fileID]bool{}, cwd: wd, stdio: stdioKinds()}
}

// Inputs are what the guest read that icount does not pin, for the
// Profile.
func (k *Kernel) Inputs() profile.Inputs {
	return profile.Inputs{Cwd: k.in.cwd, CwdRead: k.in.cwdRead, Stdio: k.in.stdio, Files: k.in.files}
}

// noteOpen records a file the guest opened, by the name the guest knows
// it by where that is the same in every run (the private /tmp's). fd is
// the host descriptor open (-1 for a file icount answers itself), made
// says the open created the file. The first open of each path records
// the file's digest as it was, unless the guest made it, truncated it
// or wrote it before.
func (k *Kernel) noteOpen(path string, fd, hostFlags int, made bool) {
	path = k.tmpGuest(path)
	var st unix.Stat_t
	known := fd >= 0 && unix.Fstat(fd, &st) == nil
	writes := made || hostFlags&unix.O_ACCMODE != unix.O_RDONLY || hostFlags&unix.O_TRUNC != 0
	if k.in.seen[path] {
		if known && writes {
			k.in.written[idOf(&st)] = true
		}
		return
	}
	k.in.seen[path] = true
	in := profile.InputFile{Path: path}
	if known && st.Mode&unix.S_IFMT == unix.S_IFREG && !made && hostFlags&unix.O_TRUNC == 0 && !k.in.written[idOf(&st)] {
		in.Size = st.Size
		in.SHA256 = digestAt(fd)
	}
	if known && writes {
		k.in.written[idOf(&st)] = true
	}
	k.in.files = append(k.in.files, in)
}

// digestAt is the SHA-256 of the regular file open at fd, read from its
// start without moving its offset; "" when it cannot be read.
func digestAt(fd int) string {
	_, sum, err := filedigest.Of(fd)
	if err != nil {
		return ""
	}
	return sum
}

// stdioKinds says what descriptors 0, 1 and 2 were when icount started.
func stdioKinds() []string {
	kinds := make([]string, 3)
	for fd := range kinds {
		kinds[fd] = stdioKind(fd)
	}
	return kinds
}

func stdioKind(fd int) string {
	var st unix.Stat_t
	if inherited.Closed(fd) || unix.Fstat(fd, &st) != nil {
		return profile.StdioClosed
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFIFO:
		return profile.StdioPipe
	case unix.S_IFSOCK:
		return profile.StdioSocket
	case unix.S_IFREG:
		return profile.StdioFile
	case unix.S_IFDIR:
		return profile.StdioDirectory
	case unix.S_IFCHR:
		if st.Rdev == unix.Mkdev(1, 3) {
			return profile.StdioDevNull
		}
		if _, err := unix.IoctlGetTermios(fd, unix.TCGETS); err == nil {
			return profile.StdioTerminal
		}
	}
	return profile.StdioDevice
}
