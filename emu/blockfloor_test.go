package emu

import (
	"errors"
	"testing"
	"time"
)

// BenchmarkBlockHook runs a loop of 100 one-jump blocks and reports what
// a block's execution costs (ns/block) with the block hook of each kind
// in place: none (the emulator alone: icount's floor, counting nothing),
// one that does nothing (the floor plus Unicorn's call of a hook, whose
// cost no hook can go under), and icount's own, counting alone and with
// the call tree. The loop's code is translated in the first round, which
// the timing leaves out.
func BenchmarkBlockHook(b *testing.B) {
	const n, rounds = 100, 20000
	for _, kind := range []string{"none", "empty", "count", "attribution"} {
		b.Run(kind, func(b *testing.B) {
			c, _ := newJumpLoop(b, n, Options{Attribution: kind == "attribution"})
			switch kind {
			case "none", "empty":
				if err := c.floorBlockHook(kind == "empty"); err != nil {
					b.Fatal(err)
				}
			}
			run := func(r uint64) time.Duration {
				c.SetReg(X86RCX, r)
				start := time.Now()
				var f *Fault
				if err := c.Run(0x10000, nil); !errors.As(err, &f) {
					b.Fatalf("the loop ended with %v, want its ud2's fault", err)
				}
				return time.Since(start)
			}
			run(1)
			b.ResetTimer()
			var d time.Duration
			for i := 0; i < b.N; i++ {
				d += run(rounds)
			}
			b.ReportMetric(float64(d.Nanoseconds())/float64(b.N)/float64(rounds*(n+1)), "ns/block")
		})
	}
}
