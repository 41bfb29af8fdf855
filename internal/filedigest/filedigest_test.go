package filedigest

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestOf(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	write := func(s string, mtime time.Time) {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	check := func(want string) {
		t.Helper()
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.Seek(3, 0); err != nil {
			t.Fatal(err)
		}
		size, sum, err := Of(int(f.Fd()))
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256([]byte(want))
		if size != int64(len(want)) || sum != hex.EncodeToString(h[:]) {
			t.Errorf("Of = %d %s, want %d %x", size, sum, len(want), h)
		}
		if off, _ := unix.Seek(int(f.Fd()), 0, 1); off != 3 {
			t.Errorf("offset moved to %d", off)
		}
	}
	when := time.Unix(1_000_000, 0)
	write("first contents", when)
	check("first contents")
	check("first contents") // from the cache
	// Same size and modification time, new contents: the change time
	// differs, so the file is read again.
	time.Sleep(10 * time.Millisecond)
	write("other contents", when)
	check("other contents")
}
