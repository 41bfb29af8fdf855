package report

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/icount-dev/icount/profile"
)

// A comparison is of code: two runs' counts can be compared when nothing
// but the code differs between them. Comparability checks the rest: the
// settings, field by field; the inputs the program read (its standard
// descriptors' kinds, its working directory if it read it, the files it
// opened); that both runs were pinned, complete and ended alike.

// setting is one field of profile.Settings as a comparison sees it.
type setting struct {
	key   string // its JSON name
	words string // what the message calls it
	value func(s *profile.Settings) any
}

// settings are every field of profile.Settings (a test checks that none
// is missing); the clock's are compared one by one (clockSettings).
var settings = []setting{
	{"icount_version", "icount versions", func(s *profile.Settings) any { return s.IcountVersion }},
	{"unicorn_version", "Unicorn versions", func(s *profile.Settings) any { return s.UnicornVersion }},
	{"arch", "guest architectures", func(s *profile.Settings) any { return s.Arch }},
	{"cpu_model", "CPU models", func(s *profile.Settings) any { return s.CPUModel }},
	{"args", "arguments", func(s *profile.Settings) any { return s.Args }},
	{"env", "environments (--env)", func(s *profile.Settings) any { return s.Env }},
	{"seed", "seeds (--seed)", func(s *profile.Settings) any { return s.Seed }},
	{"clock", "", nil},
	{"cpus", "CPU counts (--cpus)", func(s *profile.Settings) any { return s.CPUs }},
	{"quantum", "quanta (--quantum)", func(s *profile.Settings) any { return s.Quantum }},
	{"sysroot", "sysroots (--sysroot)", func(s *profile.Settings) any { return s.Sysroot }},
	{"host_tmp", "guests' /tmp (--host-tmp)", func(s *profile.Settings) any { return s.HostTmp }},
}

// clockSettings are every field of profile.Clock but the table's path: a
// table is known by its digest, so the same table in two places compares
// equal.
var clockSettings = []struct {
	key, words string
	value      func(c *profile.Clock) any
}{
	{"mode", "clock modes", func(c *profile.Clock) any { return c.Mode }},
	{"start_ns", "clock starts (--clock-start)", func(c *profile.Clock) any { return c.StartNs }},
	{"step_ns", "clock steps (--clock-step)", func(c *profile.Clock) any { return c.StepNs }},
	{"table", "", nil},
	{"table_sha256", "clock tables (by SHA-256)", func(c *profile.Clock) any { return c.TableSHA256 }},
	{"table_values", "clock tables' lengths", func(c *profile.Clock) any { return c.TableValues }},
	{"counter_hz", "counter frequencies", func(c *profile.Clock) any { return c.CounterHz }},
}

// Comparability lists why two Profiles' counts cannot be compared: the
// settings that differ, the inputs that differ, a side not pinned (it
// read the host clock), a side stopped early, runs that ended
// differently. Notes are what differs without preventing a verdict:
// files of the code compared (under roots, the directories holding the
// code: the working directory both ran in, ab's tree) that changed.
func Comparability(b, h *profile.Profile, roots []string) (why, notes []string) {
	bs, hs := &b.Meta.Settings, &h.Meta.Settings
	for _, s := range settings {
		if s.value == nil {
			continue
		}
		if bv, hv := s.value(bs), s.value(hs); !reflect.DeepEqual(bv, hv) {
			why = append(why, differ(s.words, bv, hv))
		}
	}
	for _, c := range clockSettings {
		if c.value == nil {
			continue
		}
		if bv, hv := c.value(&bs.Clock), c.value(&hs.Clock); !reflect.DeepEqual(bv, hv) {
			why = append(why, differ(c.words, bv, hv))
		}
	}
	if !reflect.DeepEqual(regionOf(b), regionOf(h)) {
		why = append(why, differ("the regions collected (--collect)", regionOf(b), regionOf(h)))
	}
	in, inNotes := inputDiffs(&b.Meta.Inputs, &h.Meta.Inputs, roots)
	why, notes = append(why, in...), append(notes, inNotes...)
	for _, s := range []struct {
		side string
		p    *profile.Profile
	}{{"base", b}, {"head", h}} {
		if s.p.Meta.Clock.Mode == "host" && s.p.Meta.ClockUse.Reads > 0 {
			from := ""
			if len(s.p.Meta.ClockUse.ReadsBySource) > 0 {
				from = ": " + s.p.Meta.ClockUse.Sources()
			}
			why = append(why, fmt.Sprintf("the %s run is not pinned: it read the host clock %d times%s (pin it with --fixed-clock)",
				s.side, s.p.Meta.ClockUse.Reads, from))
		}
		if !s.p.Exit.Complete {
			why = append(why, fmt.Sprintf("the %s run was stopped early (%s): its counts are partial", s.side, s.p.Exit.Reason))
		}
	}
	if b.Exit.Complete && h.Exit.Complete && (b.Exit.Status != h.Exit.Status || b.Exit.Signal != h.Exit.Signal) {
		why = append(why, fmt.Sprintf("the runs ended differently: base %s, head %s", identify(b).Exit, identify(h).Exit))
	}
	return why, notes
}

func regionOf(p *profile.Profile) []string {
	if p.Region == nil {
		return nil
	}
	return p.Region.Functions
}

// stdioNames name the standard descriptors.
var stdioNames = []string{"stdin", "stdout", "stderr"}

// maxInputsNamed bounds the changed files a comparison names.
const maxInputsNamed = 5

// inputDiffs compares what the two runs read: what their standard
// descriptors were, their working directories when either read its own,
// and each file both opened that existed before (by digest). A changed
// file under one of roots is code, not input: it gives a note.
func inputDiffs(b, h *profile.Inputs, roots []string) (why, notes []string) {
	for fd := range min(len(b.Stdio), len(h.Stdio)) {
		if b.Stdio[fd] != h.Stdio[fd] {
			why = append(why, fmt.Sprintf("%s differs: base %s, head %s (a program may work differently on each: glibc buffers a terminal's output by lines, a file's by blocks)",
				stdioNames[fd], kindWords(b.Stdio[fd]), kindWords(h.Stdio[fd])))
		}
	}
	if b.Cwd != h.Cwd && (b.CwdRead || h.CwdRead) {
		why = append(why, fmt.Sprintf("the working directories differ and the program read its own (getcwd): base %s, head %s; run both at one path (icount ab does)", b.Cwd, h.Cwd))
	}
	if b.Cwd == h.Cwd && b.Cwd != "" {
		roots = append(roots, b.Cwd)
	}
	head := map[string]profile.InputFile{}
	for _, f := range h.Files {
		head[f.Path] = f
	}
	var inputs, code []string
	for _, bf := range b.Files {
		hf, ok := head[bf.Path]
		if !ok || bf.SHA256 == "" || hf.SHA256 == "" || bf.SHA256 == hf.SHA256 {
			continue
		}
		if under(bf.Path, roots) {
			code = append(code, bf.Path)
			continue
		}
		inputs = append(inputs, fmt.Sprintf("%s (base %d bytes, SHA-256 %.12s; head %d bytes, %.12s)", bf.Path, bf.Size, bf.SHA256, hf.Size, hf.SHA256))
	}
	if len(inputs) > 0 {
		why = append(why, fmt.Sprintf("%s the program read changed: %s", plural(len(inputs), "input file", "input files"), listSome(inputs)))
	}
	if len(code) > 0 {
		notes = append(notes, fmt.Sprintf("%s of the code compared changed: %s", plural(len(code), "file", "files"), listSome(code)))
	}
	return why, notes
}

// under says whether path lies in one of the directories roots.
func under(path string, roots []string) bool {
	for _, r := range roots {
		if rel, err := filepath.Rel(r, path); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return true
		}
	}
	return false
}

func kindWords(kind string) string {
	switch kind {
	case profile.StdioTerminal, profile.StdioPipe, profile.StdioSocket, profile.StdioFile, profile.StdioDevice, profile.StdioDirectory:
		return "a " + kind
	case "":
		return "(unknown)"
	}
	return kind
}

// listSome joins the first maxInputsNamed items and counts the rest.
func listSome(items []string) string {
	s := strings.Join(items[:min(len(items), maxInputsNamed)], "; ")
	if n := len(items) - maxInputsNamed; n > 0 {
		s += fmt.Sprintf("; and %d more", n)
	}
	return s
}

// differ is the line saying that a setting, named by words, differs
// between the sides.
func differ(words string, base, head any) string {
	return fmt.Sprintf("%s differ: base %s, head %s", words, show(base), show(head))
}

// show prints a metadata value briefly: JSON, cut at 80 characters;
// "(none)" for nothing (nil, an empty string).
func show(v any) string {
	if rv := reflect.ValueOf(v); v == nil || v == "" || (rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Slice) && rv.IsNil() {
		return "(none)"
	}
	b, _ := json.Marshal(v)
	s := string(b)
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}
