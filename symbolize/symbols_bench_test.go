package symbolize

import (
	"os"
	"testing"
)

// BenchmarkSymbols measures what a run pays to read the symbols of the
// host's glibc, alone and with those of its debug file (libc6-dbg): every
// dynamic program's first lookup in libc.
func BenchmarkSymbols(b *testing.B) {
	const libc = "/lib/x86_64-linux-gnu/libc.so.6"
	if _, err := os.Stat(libc); err != nil {
		b.Skip("no x86-64 glibc on this host")
	}
	for _, c := range []struct {
		name string
		dirs DebugDirs
	}{{"alone", DebugDirs{}}, {"debugfile", SystemDebugDirs("")}} {
		b.Run(c.name, func(b *testing.B) {
			if c.dirs.Roots != nil && openObject(libc, c.dirs, false).DebugFile() == "" {
				b.Skip("libc6-dbg is not installed")
			}
			for b.Loop() {
				openObject(libc, c.dirs, false).symbols()
			}
		})
	}
}
