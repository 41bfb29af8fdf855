package report

import (
	"fmt"
	"io"
	"path"
	"sort"
	"strings"

	"github.com/ianlancetaylor/demangle"

	"github.com/icount-dev/icount/profile"
)

// DisplayName is how reports show a function: C++ and Rust names
// demangled, every other name as it is. Profiles keep the raw name.
func DisplayName(name string) string {
	return demangle.Filter(name)
}

// hasTree says whether the Profile has inclusive costs: a run without
// --count-only keeps the call tree.
func hasTree(p *profile.Profile) bool { return len(p.CallTree) > 0 }

// topFunctions writes the top functions by self cost and, with a call tree,
// by inclusive cost: each with its share of the total, its calls, its
// module and, when known, where it is declared.
func topFunctions(w io.Writer, p *profile.Profile, top int) {
	total := p.Totals.Instructions
	n := min(top, len(p.Functions))
	if n <= 0 || total == 0 {
		return
	}
	bySelf := p.Functions[:n] // the Profile keeps them by self cost
	tables := []struct {
		title string
		fs    []profile.FunctionCount
	}{{"self", bySelf}}
	if hasTree(p) {
		byIncl := append([]profile.FunctionCount(nil), p.Functions...)
		sort.SliceStable(byIncl, func(i, j int) bool {
			a, b := byIncl[i], byIncl[j]
			if a.Inclusive != b.Inclusive {
				return a.Inclusive > b.Inclusive
			}
			return a.Self > b.Self
		})
		tables = append(tables, struct {
			title string
			fs    []profile.FunctionCount
		}{"inclusive", byIncl[:n]})
	}
	width := len("module")
	for _, t := range tables {
		for _, f := range t.fs {
			width = max(width, len(f.Module))
		}
	}
	share := func(v uint64) string { return fmt.Sprintf("%5.1f%%", 100*float64(v)/float64(total)) }
	for _, t := range tables {
		fmt.Fprintf(w, "%stop %d functions by %s cost:\n", Prefix, n, t.title)
		if hasTree(p) {
			fmt.Fprintf(w, "%s%16s %6s %16s %6s %12s  %-*s  %s\n", Prefix, "self", "share", "inclusive", "share", "calls", width, "module", "function")
		} else {
			fmt.Fprintf(w, "%s%16s %6s  %-*s  %s\n", Prefix, "self", "share", width, "module", "function")
		}
		for _, f := range t.fs {
			if hasTree(p) {
				fmt.Fprintf(w, "%s%16s %s %16s %s %12s  %-*s  %s%s\n", Prefix, Group(f.Self), share(f.Self),
					Group(f.Inclusive), share(f.Inclusive), Group(f.Calls), width, f.Module, DisplayName(f.Name), declaredAt(f))
			} else {
				fmt.Fprintf(w, "%s%16s %s  %-*s  %s%s\n", Prefix, Group(f.Self), share(f.Self), width, f.Module, DisplayName(f.Name), declaredAt(f))
			}
		}
	}
}

// declaredAt is where the summary says a function is declared, after its
// name: " (file.c:12)", the file by its base name; "" when unknown.
func declaredAt(f profile.FunctionCount) string {
	if f.File == "" {
		return ""
	}
	if f.Line <= 0 {
		return fmt.Sprintf(" (%s)", path.Base(f.File))
	}
	return fmt.Sprintf(" (%s:%d)", path.Base(f.File), f.Line)
}

// MixSummary writes the run's instruction mix on one line, each property as
// a share of all instructions (they overlap: a load may also be SIMD/FP).
func MixSummary(w io.Writer, p *profile.Profile) {
	m, total := p.Mix, p.Totals.Instructions
	if m == nil || total == 0 {
		return
	}
	var parts []string
	for _, x := range []struct {
		name string
		n    uint64
	}{{"loads", m.Loads}, {"stores", m.Stores}, {"branches", m.Branches}, {"calls", m.Calls},
		{"returns", m.Returns}, {"syscalls", m.Syscalls}, {"SIMD/FP", m.SIMDFP}, {"other", m.Other}} {
		parts = append(parts, fmt.Sprintf("%s %.1f%%", x.name, 100*float64(x.n)/float64(total)))
	}
	fmt.Fprintf(w, "%smix: %s\n", Prefix, strings.Join(parts, ", "))
}
