package count

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkNewBlock measures what a block icount sees for the first time
// costs: the emulator's translation of it, icount's decoding, naming and
// classifying, and its one execution. manyblocks runs 20,000 distinct
// blocks once each; loop, three blocks, the same start-up and exit. The
// difference over 20,000 is the cost of one first-seen block, reported as
// ns/block, with and without attribution.
func BenchmarkNewBlock(b *testing.B) {
	for _, arch := range []string{"amd64", "arm64"} {
		many := filepath.Join("..", "testdata", "build", arch, "manyblocks")
		base := filepath.Join("..", "testdata", "build", arch, "loop")
		for _, p := range []string{many, base} {
			if _, err := os.Stat(p); err != nil {
				b.Skipf("%s is not built (make testprogs)", p)
			}
		}
		for _, attr := range []bool{false, true} {
			name := arch + "/count-only"
			if attr {
				name = arch + "/attribution"
			}
			b.Run(name, func(b *testing.B) {
				var dmany, dbase time.Duration
				for i := 0; i < b.N; i++ {
					dmany += timeRun(b, Options{Path: many, Attribution: attr})
					dbase += timeRun(b, Options{Path: base, Attribution: attr})
				}
				const blocks = 20000
				b.ReportMetric(float64((dmany-dbase).Nanoseconds())/float64(b.N)/blocks, "ns/block")
			})
		}
	}
}

// timeRun runs a program to its end and says how long it took.
func timeRun(b *testing.B, opts Options) time.Duration {
	start := time.Now()
	prof, err := Run(opts)
	d := time.Since(start)
	if err != nil {
		b.Fatalf("%s: %v", opts.Path, err)
	}
	if !prof.Exit.Complete {
		b.Fatalf("%s: %+v", opts.Path, prof.Exit)
	}
	return d
}
