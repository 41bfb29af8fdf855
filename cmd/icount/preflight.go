package main

// The checks icount run makes before the guest starts, so that a run
// whose results could not be kept, or whose baseline or gate file is
// missing or malformed, fails at once (status 2, one line) instead of
// after the whole program ran.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/icount-dev/icount/atomicfile"
	"github.com/icount-dev/icount/profile"
)

// preflight checks every file a lone run will write or read once the
// guest has run: each output can be written and no two name the same
// file, the --baseline Profile loads, and the gate file parses.
func (f *runFlags) preflight() error {
	seen := map[string]string{} // absolute path -> its flag
	for _, o := range f.outputs() {
		abs, err := filepath.Abs(o.path)
		if err != nil {
			return fmt.Errorf("%s %s: %w", o.flag, o.path, err)
		}
		if other, ok := seen[abs]; ok {
			return fmt.Errorf("%s %s: %s names the same file", o.flag, o.path, other)
		}
		seen[abs] = o.flag
		if err := atomicfile.Check(o.path); err != nil {
			return fmt.Errorf("%s %s: cannot write it: %w", o.flag, o.path, err)
		}
	}
	return f.ci.preflight()
}

// output is a file a flag asks for.
type output struct{ flag, path string }

// outputs lists the files a lone run writes, but the one --save keeps
// (see ciFlags.preflight).
func (f *runFlags) outputs() []output {
	var out []output
	for _, o := range []output{{"--json", f.jsonPath}, {"--pprof", f.out.pprof}, {"--callgrind", f.out.callgrind}, {"--bench-out", f.out.benchOut}} {
		if o.path != "" {
			out = append(out, o)
		}
	}
	return out
}

// preflight checks what afterRun will need: the directory --save keeps
// Profiles in can hold one, the --baseline Profile loads, and the gates
// (of --config, or ./icount.toml with --baseline) parse.
func (c *ciFlags) preflight() error {
	if c.save != "" {
		file := filepath.Join(baselineDir, c.save+".json")
		fi, err := os.Stat(baselineDir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			// --save makes it: the current directory must take it.
			if err := atomicfile.Check(baselineDir); err != nil {
				return fmt.Errorf("--save %s: cannot make %s: %w", c.save, baselineDir, err)
			}
		case err != nil:
			return fmt.Errorf("--save %s: %w", c.save, err)
		case !fi.IsDir():
			return fmt.Errorf("--save %s: %s is not a directory (--save keeps Profiles in %s/)", c.save, baselineDir, baselineDir)
		default:
			if err := atomicfile.Check(file); err != nil {
				return fmt.Errorf("--save %s: cannot write %s: %w", c.save, file, err)
			}
		}
	}
	if c.baseline != "" {
		file := filepath.Join(baselineDir, c.baseline+".json")
		if _, err := profile.Read(file); errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("no baseline %q: %s does not exist (keep one with --save %s)", c.baseline, file, c.baseline)
		} else if err != nil {
			return fmt.Errorf("--baseline %s: %w", c.baseline, err)
		}
	}
	if c.baseline != "" || c.gate.config != "" {
		if _, err := c.gate.gates(); err != nil {
			var ee *exitError
			if errors.As(err, &ee) {
				return ee.err
			}
			return err
		}
	}
	return nil
}
