package main

// The one directory where icount ab builds and runs both sides, so that
// nothing about the two runs differs but the code: not the working
// directory a program reads (getcwd, realpath, an interpreter's sys.path),
// not the paths a build embeds (__FILE__, debug information). Its path is
// derived from the repository's, not random: $TMPDIR/icount-ab-HASH/tree,
// HASH the first 16 hex digits of the SHA-256 of the repository's top
// directory. The base is checked out there as a git worktree, built and
// run, and removed; then the head's working tree is put at the same path
// as a worktree of HEAD holding the working tree's files, built and run,
// and removed. A lock in icount-ab-HASH keeps a second ab of the same
// repository waiting until the first is done; whatever the lock's holder
// finds in the directory was left by an ab that was killed, and is
// removed. The directory is removed when ab is done.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/icount-dev/icount/report"
)

// abTree is the fixed directory of one repository's ab, held locked.
type abTree struct {
	top  string   // the repository's top directory
	root string   // $TMPDIR/icount-ab-HASH, icount's own
	dir  string   // root/tree, where each side is put in turn
	lock *os.File // root/lock, flocked while this ab runs
}

// claimTree takes the fixed directory of the repository at top: it makes
// it (or checks that it is icount's: a directory of this user's, not a
// link), waits for the lock while another ab holds it, and removes what
// a killed ab left behind.
func claimTree(ctx context.Context, top string) (*abTree, error) {
	sum := sha256.Sum256([]byte(top))
	root := filepath.Join(os.TempDir(), "icount-ab-"+hex.EncodeToString(sum[:8]))
	t := &abTree{top: top, root: root, dir: filepath.Join(root, "tree")}
	for said := false; ; {
		held, err := t.lockOnce(ctx, &said)
		if err != nil {
			return nil, err
		}
		if held {
			break
		}
	}
	if err := t.clear(); err != nil {
		t.release()
		return nil, err
	}
	return t, nil
}

// lockOnce makes the directory and takes its lock, saying once that it
// waits for another ab. The kernel drops a flock when its holder dies, so
// a killed ab never holds it. held is false when the lock was taken on a
// file a finishing ab had removed: the caller tries again.
func (t *abTree) lockOnce(ctx context.Context, said *bool) (held bool, err error) {
	if err := os.Mkdir(t.root, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return false, &exitError{exitInternal, fmt.Errorf("making ab's directory: %w", err)}
	}
	if !ownDir(t.root) {
		return false, &exitError{exitInternal, fmt.Errorf("%s is not icount's (not a directory of this user's): remove it, or set TMPDIR", t.root)}
	}
	path := filepath.Join(t.root, "lock")
	lock, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return false, &exitError{exitInternal, fmt.Errorf("ab's lock: %w", err)}
	}
	for {
		err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			lock.Close()
			return false, &exitError{exitInternal, fmt.Errorf("ab's lock: %w", err)}
		}
		if !*said {
			pid, _ := io.ReadAll(io.NewSectionReader(lock, 0, 32))
			fmt.Fprintf(os.Stderr, "%swaiting for another icount ab of this repository (pid %s) to finish with %s\n",
				report.Prefix, strings.TrimSpace(string(pid)), t.dir)
			*said = true
		}
		select {
		case <-ctx.Done():
			lock.Close()
			return false, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	if fi, err := lock.Stat(); err != nil || !sameFile(fi, path) {
		lock.Close()
		return false, nil
	}
	lock.Truncate(0)
	lock.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	t.lock = lock
	return true, nil
}

// sameFile says fi is the file at path.
func sameFile(fi fs.FileInfo, path string) bool {
	at, err := os.Stat(path)
	return err == nil && os.SameFile(fi, at)
}

// release removes the lock and the directory, now empty, and drops the
// lock: an ab waiting for it finds its file gone and makes them anew.
func (t *abTree) release() {
	os.Remove(t.lock.Name())
	os.Remove(t.root)
	t.lock.Close()
}

// clear removes whatever is at the fixed path and git's record of it as a
// worktree, and the side's Profiles: a side done with, or one a killed ab
// left. git's records of other worktrees, whose directories may be gone
// for a while (an unmounted disk), are left alone: 'git worktree prune',
// which drops every record whose directory is missing, runs only when
// the tree's own record outlived its directory.
func (t *abTree) clear() error {
	ctx := context.Background()
	if _, err := os.Lstat(t.dir); err == nil {
		gitWith(ctx, t.top, worktreeEnv(), "worktree", "remove", "--force", "--force", t.dir)
	}
	for _, dir := range []string{t.dir, filepath.Join(t.root, "profiles")} {
		if err := removeAll(dir); err != nil {
			return &exitError{exitInternal, fmt.Errorf("removing %s: %w", dir, err)}
		}
	}
	list, err := git(ctx, t.top, "worktree", "list", "--porcelain")
	if err != nil {
		return &exitError{exitInternal, err}
	}
	for _, line := range strings.Split(list, "\n") {
		if wt, ok := strings.CutPrefix(line, "worktree "); ok && t.isTree(wt) {
			if _, err := git(ctx, t.top, "worktree", "prune"); err != nil {
				return &exitError{exitInternal, err}
			}
			break
		}
	}
	return nil
}

// isTree says a worktree's path is the fixed path (as git recorded it,
// perhaps with $TMPDIR's links resolved).
func (t *abTree) isTree(path string) bool {
	return filepath.Base(path) == filepath.Base(t.dir) && filepath.Base(filepath.Dir(path)) == filepath.Base(t.root)
}

// removeAll removes a tree also when a build left directories in it
// without write permission (Go's module cache does).
func removeAll(dir string) error {
	if os.RemoveAll(dir) == nil {
		return nil
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}

// checkout puts commit at the fixed path as a detached worktree.
func (t *abTree) checkout(ctx context.Context, commit string) error {
	if _, err := gitWith(ctx, t.top, worktreeEnv(), "worktree", "add", "--detach", "--quiet", t.dir, commit); err != nil {
		return &exitError{exitInternal, fmt.Errorf("checking out the base: %v", err)}
	}
	return nil
}

// copyWorkingTree puts the working tree at the fixed path, as it is: a
// worktree of commit (HEAD) whose index is commit's and whose files are
// the working tree's, uncommitted changes and deletions included, and the
// untracked files git does not ignore (a new source file not yet added).
// Ignored files are not copied (build outputs, caches: the head is built
// from its sources, as the base is), nor are submodules' and nested
// repositories' files (git worktree add checks none out).
func (t *abTree) copyWorkingTree(ctx context.Context, commit string) error {
	if _, err := gitWith(ctx, t.top, worktreeEnv(), "worktree", "add", "--detach", "--quiet", "--no-checkout", t.dir, commit); err != nil {
		return &exitError{exitInternal, fmt.Errorf("making the head's worktree: %v", err)}
	}
	if _, err := gitWith(ctx, t.dir, treeEnv(), "read-tree", commit); err != nil {
		return &exitError{exitInternal, fmt.Errorf("making the head's worktree: %v", err)}
	}
	list, err := gitWith(ctx, t.top, nil, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	if err != nil {
		return &exitError{exitInternal, fmt.Errorf("listing the working tree: %v", err)}
	}
	seen := map[string]bool{}
	for _, rel := range strings.Split(list, "\x00") {
		if rel == "" || seen[rel] {
			continue // a conflicted file is listed once per stage
		}
		seen[rel] = true
		if err := copyEntry(filepath.Join(t.top, rel), filepath.Join(t.dir, rel)); err != nil {
			return &exitError{exitInternal, fmt.Errorf("copying the working tree: %w", err)}
		}
	}
	return nil
}

// copyEntry copies one file of the working tree with its executable bit,
// a symbolic link as a link; a directory (a submodule, a nested
// repository) becomes an empty one, and a file deleted in the working tree
// is left out.
func copyEntry(from, to string) error {
	fi, err := os.Lstat(from)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(from)
		if err != nil {
			return err
		}
		return os.Symlink(target, to)
	case fi.IsDir():
		return os.MkdirAll(to, 0o755)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%s: not a regular file", from)
	}
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644|fi.Mode().Perm()&0o111)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// worktreeEnv is the environment of 'git worktree add': icount's without
// GIT_INDEX_FILE, which a pre-commit hook sets (the new worktree has an
// index of its own), and with no hooks, which would run for the base's
// checkout only (post-checkout; git 2.31's GIT_CONFIG_COUNT).
func worktreeEnv() []string {
	return append(envWithout("GIT_INDEX_FILE", "GIT_CONFIG_COUNT"),
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.hooksPath", "GIT_CONFIG_VALUE_0=/dev/null")
}

// profiles is where the runs of a side write their Profiles: inside the
// locked directory, so a killed ab leaves nothing the next one does not
// remove.
func (t *abTree) profiles() (string, error) {
	dir := filepath.Join(t.root, "profiles")
	if err := removeAll(dir); err != nil {
		return "", &exitError{exitInternal, err}
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		return "", &exitError{exitInternal, err}
	}
	return dir, nil
}
