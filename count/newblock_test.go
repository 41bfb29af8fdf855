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
// ns/block (wall) and cpu-ns/block (the process's CPU time, which a
// machine busy with other work disturbs less), with and without
// attribution.
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
				var many0, base0 cost
				for i := 0; i < b.N; i++ {
					many0 = many0.add(timeRun(b, Options{Path: many, Attribution: attr}))
					base0 = base0.add(timeRun(b, Options{Path: base, Attribution: attr}))
				}
				const blocks = 20000
				per := float64(b.N) * blocks
				b.ReportMetric(float64(many0.wall-base0.wall)/per, "ns/block")
				b.ReportMetric(float64(many0.cpu-base0.cpu)/per, "cpu-ns/block")
			})
		}
	}
}

// cost is the wall and CPU time (of the whole process) something took.
type cost struct{ wall, cpu time.Duration }

func (c cost) add(d cost) cost { return cost{c.wall + d.wall, c.cpu + d.cpu} }

// timeRun runs a program to its end and says how long it took.
func timeRun(b *testing.B, opts Options) cost {
	start, cpu := time.Now(), processCPU(b)
	prof, err := Run(opts)
	d := cost{time.Since(start), processCPU(b) - cpu}
	if err != nil {
		b.Fatalf("%s: %v", opts.Path, err)
	}
	if !prof.Exit.Complete {
		b.Fatalf("%s: %+v", opts.Path, prof.Exit)
	}
	return d
}
