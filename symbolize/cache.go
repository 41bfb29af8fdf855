package symbolize

import (
	"os"
	"sync"
)

// Cache opens object files, each once: an Object is kept by the SHA-256
// of its contents (and its name), and a path is read again only when its
// file changes. A Cache is safe for concurrent use.
type Cache struct {
	dirs  DebugDirs
	lines bool

	mu     sync.Mutex
	byPath map[string]opened
	bySum  map[string]*Object // by SHA-256 and name
}

// opened is the Object a path gave, and the file it was then.
type opened struct {
	st  os.FileInfo // nil if it could not be read
	obj *Object
}

// NewCache returns a Cache whose Objects look for their debug files in
// dirs and, with lines, read DWARF line tables and inlined calls as well
// as functions' declarations, and the DWARF of their debug files (without
// lines, a debug file gives its symbols only).
func NewCache(dirs DebugDirs, lines bool) *Cache {
	return &Cache{dirs: dirs, lines: lines, byPath: map[string]opened{}, bySum: map[string]*Object{}}
}

// Open returns the Object of the file at path. A file that cannot be read
// gives an Object without identity, symbols or DWARF.
func (c *Cache) Open(path string) *Object {
	st, err := os.Stat(path)
	if err != nil {
		st = nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if o, ok := c.byPath[path]; ok && sameFile(o.st, st) {
		return o.obj
	}
	obj := openObject(path, c.dirs, c.lines)
	if obj.SHA256 != "" {
		key := obj.SHA256 + " " + obj.Name
		if seen := c.bySum[key]; seen != nil {
			obj = seen
		} else {
			c.bySum[key] = obj
		}
	}
	c.byPath[path] = opened{st, obj}
	return obj
}

// sameFile reports whether a and b are the same file, unchanged (or both
// unreadable).
func sameFile(a, b os.FileInfo) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}
