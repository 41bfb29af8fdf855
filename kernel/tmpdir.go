package kernel

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// A private /tmp: each run gets a directory of its own under the host's
// temporary directory, which the guest sees as /tmp and /var/tmp (its
// tmp and var/tmp) laid over the host's, so that two runs at once, or a
// file a crashed run left behind, do not meet in the names mkstemp picks
// (the same in every run: the generator is seeded), while files made in
// the host's before the run stay in reach. Paths the guest names are
// mapped in (hostPath), and host paths the guest is told (getcwd,
// readlink of /proc/PID/cwd and fd/N, /proc/PID/maps) mapped back.

// privateTmpDirs are the guest's temporary directories, each found at
// the same path under the run's directory.
var privateTmpDirs = []string{"/tmp", "/var/tmp"}

// NewPrivateTmp makes a run's directory under the host's temporary
// directory, with its tmp and var/tmp, world-writable and sticky as
// Linux's are. RemovePrivateTmp removes it.
func NewPrivateTmp() (string, error) {
	root, err := os.MkdirTemp("", "icount-tmp-")
	if err != nil {
		return "", fmt.Errorf("the run's private /tmp: %w", err)
	}
	for _, d := range privateTmpDirs {
		dir := filepath.Join(root, d)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			os.RemoveAll(root)
			return "", fmt.Errorf("the run's private /tmp: %w", err)
		}
		if err := os.Chmod(dir, 0o777|os.ModeSticky); err != nil {
			os.RemoveAll(root)
			return "", fmt.Errorf("the run's private /tmp: %w", err)
		}
	}
	return root, nil
}

// RemovePrivateTmp removes a run's directory and what the guest left in
// it, also under directories the guest made unreadable or unwritable.
func RemovePrivateTmp(root string) error {
	if os.RemoveAll(root) == nil {
		return nil
	}
	filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if d != nil && d.IsDir() {
			os.Chmod(path, 0o700)
		}
		return nil
	})
	if err := os.RemoveAll(root); err != nil {
		return fmt.Errorf("removing the run's private /tmp: %w", err)
	}
	return nil
}

// tmpHost maps a guest path in /tmp or /var/tmp (lexically: /tmp/../etc
// is /etc) into the run's directory, as an overlay on the host's: a path
// is the run's when the run's directory has it, the host's when only the
// host has it (a file or directory made before the run, such as an input
// named on the command line), and for a name neither has, the run's when
// its directory is there (so a new file in /tmp is the run's, and one in
// a host directory under /tmp the host's). ok is false for the host's
// path, for any other path, and when the run uses the host's /tmp.
func (k *Kernel) tmpHost(path string) (host string, ok bool) {
	root := k.opts.Tmp
	if root == "" || !strings.HasPrefix(path, "/") {
		return "", false
	}
	clean := filepath.Clean(path)
	for _, d := range privateTmpDirs {
		if clean != d && !strings.HasPrefix(clean, d+"/") {
			continue
		}
		own := root + clean
		var st unix.Stat_t
		switch {
		case unix.Lstat(own, &st) == nil:
		case unix.Lstat(clean, &st) == nil:
			return "", false
		case unix.Stat(filepath.Dir(own), &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR:
			return "", false
		}
		if strings.HasSuffix(path, "/") {
			own += "/" // a trailing slash asks for a directory
		}
		return own, true
	}
	return "", false
}

// tmpGuest maps a host path in the run's directory back to the path the
// guest knows it by; any other path is returned as it is.
func (k *Kernel) tmpGuest(host string) string {
	root := k.opts.Tmp
	if root == "" {
		return host
	}
	if rest, ok := strings.CutPrefix(host, root); ok && strings.HasPrefix(rest, "/") {
		return rest
	}
	return host
}
