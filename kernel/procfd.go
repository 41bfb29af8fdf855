package kernel

import (
	"encoding/binary"
	"io/fs"
	"os"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// The directories /proc/PID/fd and /proc/PID/task of an emulated process
// list the guest's descriptors and threads, not icount's, and /proc lists
// the guest's processes, not the host's: Python's
// subprocess reads fd in a child to close every descriptor before exec,
// and a listing of the host's would leave the guest's open (and task
// would list the Go runtime's threads). As Linux's, a listing is made
// afresh by a read from its start (so fd names the descriptor it is read
// through); fd's entries are symbolic links (DT_LNK) named by the number,
// task's directories named by the thread id. The files in them are the
// guest's too (hostPath, procFile).

// procFDDir is what a guest descriptor open on /proc/PID/fd or
// /proc/PID/task holds: the process listed, and the listing being read.
type procFDDir struct {
	proc    *Process
	tasks   bool // /proc/PID/task, not fd
	root    bool // /proc itself
	entries []procFDEntry
	next    int // the index of the next entry to read
}

type procFDEntry struct {
	name string
	typ  uint8 // DT_DIR or DT_LNK
}

// procFDDirAt returns the listing open at file ("fd/N", a file of p's
// /proc/PID) if p's descriptor N is a /proc/PID/fd directory, else nil;
// p may be nil.
func (p *Process) procFDDirAt(file string) *procFDDir {
	n, ok := strings.CutPrefix(file, "fd/")
	if p == nil || !ok {
		return nil
	}
	fd, err := strconv.Atoi(n)
	if err != nil {
		return nil
	}
	if f, err := p.fds.get(uint64(fd)); err == nil {
		return f.fdDir
	}
	return nil
}

// openProcFD opens path if it is /proc itself, or /proc/PID/fd or
// /proc/PID/task of an emulated process: on the host, a directory (so
// that fstat and fchdir see one), listed from the guest's processes. ok is false for every other
// path.
func (p *Process) openProcFD(path string, flags uint64) (f *file, ok bool, err error) {
	q, name := p.procFile(path)
	name = strings.TrimSuffix(name, "/")
	root := path == "/proc" || path == "/proc/"
	if !root && (q == nil || (name != "fd" && name != "task")) {
		return nil, false, nil
	}
	if q != nil && q.exited {
		return nil, true, unix.ENOENT
	}
	if flags&(unix.O_WRONLY|unix.O_RDWR) != 0 {
		return nil, true, unix.EISDIR
	}
	host := "/proc/self/fd"
	if root {
		q, host = p, "/proc"
	}
	fd, err := unix.Open(host, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, true, errnoOf(err)
	}
	return &file{host: fd, path: path, fdDir: &procFDDir{proc: q, tasks: name == "task", root: root}}, true, nil
}

// list makes the listing afresh, from the process's descriptor table or
// threads as they are now.
func (d *procFDDir) list() {
	if d.root {
		d.listRoot()
		return
	}
	var ids []int
	typ := uint8(unix.DT_LNK)
	if d.tasks {
		for _, t := range d.proc.tasks {
			ids = append(ids, t.tid)
		}
		typ = unix.DT_DIR
	} else {
		for fd := range d.proc.fds.fds {
			ids = append(ids, fd)
		}
	}
	sort.Ints(ids)
	d.entries = append(d.entries[:0], procFDEntry{".", unix.DT_DIR}, procFDEntry{"..", unix.DT_DIR})
	for _, id := range ids {
		d.entries = append(d.entries, procFDEntry{strconv.Itoa(id), typ})
	}
}

// listRoot lists /proc: the host's entries but its processes' (the
// system-wide files and directories, self and thread-self), then the
// emulated processes' directories by pid.
func (d *procFDDir) listRoot() {
	d.entries = append(d.entries[:0], procFDEntry{".", unix.DT_DIR}, procFDEntry{"..", unix.DT_DIR})
	host, _ := os.ReadDir("/proc")
	for _, e := range host {
		if _, err := strconv.Atoi(e.Name()); err == nil {
			continue
		}
		typ := uint8(unix.DT_REG)
		switch {
		case e.IsDir():
			typ = unix.DT_DIR
		case e.Type()&fs.ModeSymlink != 0:
			typ = unix.DT_LNK
		}
		d.entries = append(d.entries, procFDEntry{e.Name(), typ})
	}
	var pids []int
	for pid, q := range d.proc.k.procs {
		if !q.exited {
			pids = append(pids, pid)
		}
	}
	sort.Ints(pids)
	for _, pid := range pids {
		d.entries = append(d.entries, procFDEntry{strconv.Itoa(pid), unix.DT_DIR})
	}
}

// dirents reads up to size bytes of linux_dirent64 records from the
// listing: d_ino is the entry's place (Linux numbers /proc's inodes as it
// likes), d_off the place of the next. EINVAL when not one fits.
func (d *procFDDir) dirents(size uint64) ([]byte, error) {
	if d.next == 0 {
		d.list()
	}
	var buf []byte
	for ; d.next < len(d.entries); d.next++ {
		e := d.entries[d.next]
		reclen := (19 + len(e.name) + 1 + 7) &^ 7 // header, name, NUL, aligned to 8
		if uint64(len(buf)+reclen) > size {
			break
		}
		rec := make([]byte, reclen)
		binary.LittleEndian.PutUint64(rec[0:], uint64(d.next+1))
		binary.LittleEndian.PutUint64(rec[8:], uint64(d.next+1))
		binary.LittleEndian.PutUint16(rec[16:], uint16(reclen))
		rec[18] = e.typ
		copy(rec[19:], e.name)
		buf = append(buf, rec...)
	}
	if len(buf) == 0 && d.next < len(d.entries) {
		return nil, unix.EINVAL
	}
	return buf, nil
}

// seek moves the listing as lseek moves a /proc directory's position
// (generic_file_llseek, the directory's size 0): to a place dirents gave
// (its d_off), by an offset from the place now or from 0 for SEEK_END;
// EINVAL below 0. At 0 the next read lists afresh.
func (d *procFDDir) seek(off int64, whence int) (uint64, error) {
	var pos int64
	switch whence {
	case unix.SEEK_SET, unix.SEEK_END:
		pos = off
	case unix.SEEK_CUR:
		pos = int64(d.next) + off
	default:
		return 0, unix.EINVAL
	}
	if pos < 0 {
		return 0, unix.EINVAL
	}
	if pos > 0 && len(d.entries) == 0 {
		d.list()
	}
	d.next = int(min(pos, int64(len(d.entries))))
	return uint64(pos), nil
}
