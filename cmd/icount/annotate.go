package main

import (
	"bufio"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"

	"github.com/icount-dev/icount/count"
	"github.com/icount-dev/icount/profile"
	"github.com/icount-dev/icount/report"
	"github.com/icount-dev/icount/symbolize"
	"github.com/spf13/cobra"
)

type annotateFlags struct {
	context int
	top     int
}

func newAnnotateCmd() *cobra.Command {
	var f annotateFlags
	cmd := &cobra.Command{
		Use:   "annotate [flags] PROFILE.json [FUNC...]",
		Short: "Show source lines and instructions with their counts from a saved run",
		Long: `Annotate a Profile saved by 'icount run --lines --json PROFILE.json': every
source file with executed lines, each line with the instructions executed at it,
then the disassembly of functions with each instruction's count, like
callgrind_annotate --auto=yes.

With FUNC names (raw or demangled), only their lines and their disassembly;
otherwise every file with counts and the disassembly of the top functions by
self cost. Sources are read from the paths in the binary's DWARF, the binary
from the path the run was given; icount says when one is missing, and when the
binary's SHA-256 is no longer the one the run recorded (then no disassembly).`,
		Example: `  icount run --lines --json prof.json ./bench
  icount annotate prof.json
  icount annotate prof.json main crc32`,
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: completeAnnotate,
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := profile.Read(args[0])
			if err != nil {
				return &exitError{exitUsage, err}
			}
			if len(p.Lines) == 0 && len(p.Blocks) == 0 {
				return &exitError{exitUsage, fmt.Errorf("%s has no per-line counts: save the run with icount run --lines --json", args[0])}
			}
			w := bufio.NewWriter(cmd.OutOrStdout())
			err = annotate(w, p, args[0], args[1:], f)
			if ferr := w.Flush(); err == nil {
				err = ferr
			}
			return err
		},
	}
	cmd.Flags().IntVar(&f.context, "context", 3, "show `N` lines around each executed source line")
	cmd.Flags().IntVar(&f.top, "top", 5, "without FUNC, disassemble the top `N` functions by self cost")
	return cmd
}

// annotation is a saved run with the functions chosen.
type annotation struct {
	p       *profile.Profile
	total   uint64
	want    map[string]bool  // raw names of the functions chosen; nil for all
	objects *symbolize.Cache // the files read, with their debug files
}

func annotate(w io.Writer, p *profile.Profile, path string, funcs []string, f annotateFlags) error {
	a := &annotation{p: p, total: p.Totals.Instructions,
		objects: symbolize.NewCache(symbolize.SystemDebugDirs(p.Meta.Settings.Sysroot), true)}
	if len(funcs) > 0 {
		a.want = map[string]bool{}
		for _, name := range funcs {
			found := false
			for _, fn := range p.Functions {
				if fn.Name == name || report.DisplayName(fn.Name) == name {
					a.want[fn.Name], found = true, true
				}
			}
			if !found {
				return &exitError{exitUsage, fmt.Errorf("%s: no function %q ran", path, name)}
			}
		}
	}
	rule := strings.Repeat("-", 80)
	fmt.Fprintf(w, "%s\n%s: %s instructions, %s (%s)\n%s\n", rule, path, report.Group(a.total),
		strings.Join(p.Meta.Args, " "), p.Meta.Arch, rule)
	a.sources(w, f.context)
	a.disassembly(w, f.top)
	return nil
}

// chosen says whether the function named raw is one to show.
func (a *annotation) chosen(raw string) bool { return a.want == nil || a.want[raw] }

// share is n as a share of the run's total.
func (a *annotation) share(n uint64) string {
	if a.total == 0 {
		return "0.0%"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(a.total))
}

// sources writes each source file with executed lines, most executed
// first, every line with its count, with context lines around them.
func (a *annotation) sources(w io.Writer, context int) {
	byFile := map[string]map[int]uint64{}
	sums := map[string]uint64{}
	var unknown uint64
	unknownIn := map[string]uint64{}
	for _, l := range a.p.Lines {
		if !a.chosen(l.Function) {
			continue
		}
		if l.File == "" {
			unknown += l.Self
			unknownIn[l.Function] += l.Self
			continue
		}
		if byFile[l.File] == nil {
			byFile[l.File] = map[int]uint64{}
		}
		byFile[l.File][l.Line] += l.Self
		sums[l.File] += l.Self
	}
	for _, file := range byCount(sums) {
		fmt.Fprintf(w, "-- Source: %s (%s instructions, %s)\n", file, report.Group(sums[file]), a.share(sums[file]))
		counts := byFile[file]
		text, err := readRegular(file, maxSource)
		if err != nil {
			what := "not shown"
			if errors.Is(err, fs.ErrNotExist) {
				what = "not found"
			}
			fmt.Fprintf(w, "-- %s: %v; the counts by line:\n", what, err)
			lines := make([]int, 0, len(counts))
			for l := range counts {
				lines = append(lines, l)
			}
			sort.Ints(lines)
			for _, l := range lines {
				fmt.Fprintf(w, "%14s  line %d\n", report.Group(counts[l]), l)
			}
			fmt.Fprintln(w)
			continue
		}
		src := strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
		show := make([]bool, len(src)+2)
		for l := range counts {
			for k := max(1, l-context); k <= min(len(src), l+context); k++ {
				show[k] = true
			}
		}
		if n := counts[0]; n > 0 {
			fmt.Fprintf(w, "%14s  (no line: code the compiler gave line 0)\n", report.Group(n))
		}
		gap := true
		for i, text := range src {
			l := i + 1
			if !show[l] {
				gap = true
				continue
			}
			if gap {
				fmt.Fprintf(w, "-- line %d ----\n", l)
				gap = false
			}
			c := "."
			if n, ok := counts[l]; ok {
				c = report.Group(n)
			}
			fmt.Fprintf(w, "%14s  %s\n", c, text)
		}
		for l := range counts {
			if l > len(src) {
				fmt.Fprintf(w, "-- line %d is past the end of the file (%d lines): the source changed since the build\n", l, len(src))
			}
		}
		fmt.Fprintln(w)
	}
	if unknown > 0 {
		names := byCount(unknownIn)
		if len(names) > 8 {
			names = append(names[:8], "...")
		}
		for i, n := range names {
			names[i] = report.DisplayName(n)
		}
		fmt.Fprintf(w, "-- No source line information: %s instructions (%s), in %s\n\n", report.Group(unknown), a.share(unknown), strings.Join(names, ", "))
	}
}

// What annotate reads of a source file and of a module, at most.
const (
	maxSource = 64 << 20
	maxModule = 4 << 30
)

// readRegular reads the file at path, which a Profile names: only a
// regular file of at most limit bytes, so that a Profile naming a device,
// a FIFO or a directory neither hangs annotate nor grows it without bound.
// It opens without waiting for a FIFO's writer, and checks what it opened.
func readRegular(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	switch {
	case err != nil:
		return nil, err
	case !st.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a regular file (%s)", path, fileKind(st.Mode()))
	case st.Size() > limit:
		return nil, fmt.Errorf("%s is larger than annotate reads (%d MiB)", path, limit>>20)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(b)) > limit {
		err = fmt.Errorf("%s grew past what annotate reads (%d MiB)", path, limit>>20)
	}
	return b, err
}

// fileKind names the kind of file a mode is.
func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a block device"
	}
	return "not a regular file"
}

// byCount returns the keys of m, largest count first, then by name.
func byCount(m map[string]uint64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return keys
}

// disassembly writes the chosen functions' instructions with the times
// each completed, from the blocks the run saved and the bytes of the file
// each function's module was mapped from.
func (a *annotation) disassembly(w io.Writer, top int) {
	if len(a.p.Blocks) == 0 {
		fmt.Fprintf(w, "-- No disassembly: the profile has no blocks (save the run with --lines)\n")
		return
	}
	codes := map[string]*moduleCode{}
	var fns []profile.FunctionCount
	for _, f := range a.p.Functions {
		if a.want != nil && a.want[f.Name] || a.want == nil && len(fns) < top && f.Self > 0 {
			fns = append(fns, f)
		}
	}
	for _, f := range fns {
		mc := codes[f.Module]
		if mc == nil {
			mc = a.openModule(f.Module)
			codes[f.Module] = mc
			if mc.err != "" {
				of := ""
				if f.Module != filepath.Base(a.p.Meta.Binary.Path) {
					of = " of " + f.Module
				}
				fmt.Fprintf(w, "-- No disassembly%s: %s\n", of, mc.err)
			}
		}
		if mc.code == nil {
			continue
		}
		code, runs := mc.code, mc.runs
		start, end, ok := code.Function(f.Name)
		if !ok {
			fmt.Fprintf(w, "-- Disassembly of %s: not in the symbols of %s\n\n", report.DisplayName(f.Name), f.Module)
			continue
		}
		fmt.Fprintf(w, "-- Disassembly of %s (%s), %s instructions (%s)\n", report.DisplayName(f.Name), f.Module, report.Group(f.Self), a.share(f.Self))
		lastPos := ""
		for _, in := range code.Disassemble(start, end) {
			c := "."
			if n, ok := runs[in.Addr]; ok {
				c = report.Group(n)
			}
			pos := ""
			if in.File != "" {
				pos = fmt.Sprintf("%s:%d", in.File[strings.LastIndexByte(in.File, '/')+1:], in.Line)
			}
			if pos == lastPos {
				pos = ""
			} else {
				lastPos = pos
			}
			fmt.Fprintf(w, "%14s  %8x:  %-40s %s\n", c, in.Addr, in.Text, pos)
		}
		fmt.Fprintln(w)
	}
}

// moduleCode is the code of one module of a run, with the times each of
// its instructions completed; err says why there is none.
type moduleCode struct {
	code *count.Code
	runs map[uint64]uint64
	err  string
}

// openModule reads the file a module was mapped from, if it is still the
// one the run mapped (its SHA-256), and counts its instructions' runs from
// the blocks that ran in its mappings.
func (a *annotation) openModule(module string) *moduleCode {
	bin := a.p.Meta.Binary
	var ranges []profile.Mapping
	for _, m := range a.p.Mappings {
		// (Profiles from before mappings named their module name none.)
		if m.Module == module || m.Module == "" && filepath.Base(m.File) == module {
			ranges = append(ranges, m)
		}
	}
	path, sum, bias := bin.Path, bin.SHA256, uint64(0)
	if len(ranges) > 0 {
		path, bias = ranges[0].File, ranges[0].Bias
		if path != bin.Path {
			sum = ranges[0].SHA256
		}
		// The processes that mapped the file where the first did.
		ranges = slices.DeleteFunc(ranges, func(m profile.Mapping) bool { return m.File != path || m.Bias != bias })
	}
	what := "the binary " + path
	if path != bin.Path {
		what = "the file " + path
	}
	mc := &moduleCode{}
	data, err := readRegular(path, maxModule)
	switch {
	case path == "":
		mc.err = "no file was mapped there"
	case err != nil:
		mc.err = fmt.Sprintf("%s cannot be read: %v", what, err)
	case sum != "" && fmt.Sprintf("%x", sha256.Sum256(data)) != sum:
		mc.err = fmt.Sprintf("%s changed since the run (SHA-256 %x, the run's %s)", path, sha256.Sum256(data), sum)
	}
	if mc.err != "" {
		return mc
	}
	if mc.code, err = count.OpenCode(a.objects.Open(path), bias); err != nil {
		mc.err = err.Error()
		return mc
	}
	mc.runs = map[uint64]uint64{}
	for i := range a.p.Blocks {
		b := &a.p.Blocks[i]
		in := len(ranges) == 0
		for _, m := range ranges {
			in = in || b.Process == m.Process && b.Addr >= m.Start && b.Addr < m.Limit
		}
		if !in {
			continue
		}
		starts := mc.code.Starts(b.Addr, b.Size)
		for j, n := range b.Runs(len(starts)) {
			mc.runs[starts[j]] += n
		}
	}
	return mc
}
