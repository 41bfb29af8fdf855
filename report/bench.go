package report

import (
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/icount-dev/icount/count"
)

// goArch names a guest architecture as Go does.
var goArch = map[string]string{"x86_64": "amd64", "aarch64": "arm64"}

// WriteBench writes the Profile as one result in the Go benchmark format, for
// benchstat: "BenchmarkNAME 1 N instructions M blocks". The units are
// declared exact (a rerun gives the same count) and lower-is-better. The
// name loses any white space, which the format does not allow.
func WriteBench(w io.Writer, p *count.Profile, name string) error {
	name = strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return '_'
		}
		return r
	}, name)
	arch := goArch[p.Meta.Arch]
	if arch == "" {
		arch = p.Meta.Arch
	}
	_, err := fmt.Fprintf(w, `goos: linux
goarch: %s
cpu: %s (emulated by icount %s)
Unit instructions assume=exact better=lower
Unit blocks assume=exact better=lower
Benchmark%s 1 %d instructions %d blocks
`, arch, oneLine(p.Meta.CPUModel), oneLine(p.Meta.IcountVersion), name, p.Totals.Instructions, p.Totals.Blocks)
	return err
}
