package main

// Temporary directories that a later icount removes when the icount that
// made one was killed (SIGKILL leaves no chance to clean up): each holds
// a file "lock" that its maker holds flocked for as long as it lives; the
// kernel drops the lock when it dies.

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockedTempDir makes a new directory $TMPDIR/PREFIX-XXXX holding its
// lock, after removing the PREFIX-* directories of this user's whose lock
// no one holds. done removes it.
func lockedTempDir(prefix string) (dir string, done func(), err error) {
	sweepStale(prefix)
	dir, err = os.MkdirTemp("", prefix+"-")
	if err != nil {
		return "", nil, err
	}
	// Locked before it takes its name, so that no sweep finds it unlocked.
	f, err := os.CreateTemp(dir, ".lock-")
	if err == nil {
		if err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err == nil {
			err = os.Rename(f.Name(), filepath.Join(dir, "lock"))
		}
	}
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("locking %s: %w", dir, err)
	}
	return dir, func() { os.RemoveAll(dir); f.Close() }, nil
}

// sweepStale removes the PREFIX-* directories under $TMPDIR that are this
// user's and hold a lock no one holds: their makers died.
func sweepStale(prefix string) {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), prefix+"-*"))
	for _, d := range dirs {
		if !ownDir(d) {
			continue
		}
		f, err := os.Open(filepath.Join(d, "lock"))
		if err != nil {
			continue // not one of these, or one being made
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			removeAll(d)
		}
		f.Close()
	}
}

// ownDir says path is a directory of this user's, not a link to one.
func ownDir(path string) bool {
	fi, err := os.Lstat(path)
	if err != nil {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return fi.IsDir() && ok && int(st.Uid) == os.Getuid()
}
