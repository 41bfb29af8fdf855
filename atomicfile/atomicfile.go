// Package atomicfile writes a file whole or not at all: the contents go to
// a temporary file in the file's own directory, are synced to the disk,
// and the temporary file is renamed over the file. A write that fails
// (ENOSPC, EFBIG, EDQUOT...) or a process killed while it writes leaves
// the previous file as it was; a reader never sees half a file.
//
// A path naming something other than a regular file (/dev/null, a FIFO,
// /dev/stdout) is written in place, since renaming over it would replace
// it; a symbolic link is followed, so that the file it names is replaced
// and the link kept.
package atomicfile

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// Perm is the mode a new file gets, before the umask.
const Perm fs.FileMode = 0o644

// WriteFile writes data to path, whole or not at all.
func WriteFile(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Write writes what produce writes to path, whole or not at all: when
// produce or the write fails, path keeps what it held.
func Write(path string, produce func(io.Writer) error) error {
	target, special, err := resolve(path)
	if err != nil {
		return err
	}
	if special {
		return writeInPlace(target, produce)
	}
	tmp, err := create(target)
	if err != nil {
		return err
	}
	if err := fill(tmp, target, produce); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return syncDir(filepath.Dir(target))
}

// Check says whether Write could write path, without changing it: path is
// not a directory, and a file can be made in its directory (which exists,
// is a directory, is writable and not on a read-only file system), or,
// for a device or FIFO, it opens for writing.
func Check(path string) error {
	target, special, err := resolve(path)
	if err != nil {
		return err
	}
	if special {
		// Not blocking for a FIFO's reader: with none yet (ENXIO), the
		// write will wait for one.
		f, err := os.OpenFile(target, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if errors.Is(err, syscall.ENXIO) {
			return nil
		}
		if err != nil {
			return err
		}
		return f.Close()
	}
	tmp, err := create(target)
	if err != nil {
		return err
	}
	tmp.Close()
	return os.Remove(tmp.Name())
}

// resolve follows a symbolic link at path and says whether the file there
// is something other than a regular file (special), to be written in
// place. A directory is an error.
func resolve(path string) (target string, special bool, err error) {
	target = path
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if t, err := filepath.EvalSymlinks(path); err == nil {
			target = t
		}
	}
	fi, err := os.Stat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return target, false, nil
	case err != nil:
		return "", false, err
	case fi.IsDir():
		return "", false, &fs.PathError{Op: "write", Path: path, Err: syscall.EISDIR}
	}
	return target, !fi.Mode().IsRegular(), nil
}

// create makes a new temporary file beside target, with target's mode if
// it exists.
func create(target string) (*os.File, error) {
	perm := Perm
	if fi, err := os.Stat(target); err == nil {
		perm = fi.Mode().Perm()
	}
	dir, base := filepath.Split(target)
	for i := 0; ; i++ {
		name := filepath.Join(dir, "."+base+".tmp"+strconv.FormatInt(time.Now().UnixNano()+int64(i), 36))
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) && i < 100 {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "create a file in", Path: filepath.Clean(dir), Err: underlying(err)}
		}
		if perm != Perm {
			// The umask applied at creation: the old file's mode exactly.
			if err := f.Chmod(perm); err != nil {
				f.Close()
				os.Remove(name)
				return nil, err
			}
		}
		return f, nil
	}
}

// fill writes the contents to the temporary file, syncs and closes it.
func fill(tmp *os.File, target string, produce func(io.Writer) error) error {
	w := bufio.NewWriterSize(tmp, 1<<16)
	if err := produce(w); err != nil {
		return writeError(target, err)
	}
	if err := w.Flush(); err != nil {
		return writeError(target, err)
	}
	if err := tmp.Sync(); err != nil {
		return writeError(target, err)
	}
	if err := tmp.Close(); err != nil {
		return writeError(target, err)
	}
	return nil
}

// writeInPlace writes to a device or FIFO.
func writeInPlace(target string, produce func(io.Writer) error) error {
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	err = produce(w)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return writeError(target, err)
	}
	return nil
}

// syncDir makes the rename durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return &fs.PathError{Op: "sync", Path: dir, Err: underlying(err)}
	}
	return nil
}

// writeError names the file a write to its temporary file failed for.
func writeError(target string, err error) error {
	return &fs.PathError{Op: "write", Path: target, Err: underlying(err)}
}

// underlying is the errno (or other cause) under a *fs.PathError, which
// would name the temporary file.
func underlying(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
