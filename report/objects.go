package report

import (
	"fmt"
	"io"
	"sort"

	"github.com/icount-dev/icount/profile"
)

// Object is what ran in one mapped object: the executable, its
// interpreter, a library, or anonymous memory (code the program wrote).
type Object struct {
	Module       string // as functions name it
	File         string // "" for anonymous memory
	Instructions uint64
	Blocks       uint64
}

// Objects sums the Profile's mappings by object, most instructions first
// (then in the order they were mapped). Their instructions sum to the
// total.
func Objects(p *profile.Profile) []Object {
	type key struct{ module, file string }
	var out []Object
	at := map[key]int{}
	for _, m := range p.Mappings {
		module := m.Module
		if module == "" { // a Profile from before modules were recorded
			module = m.File
		}
		k := key{module, m.File}
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, Object{Module: module, File: m.File})
		}
		out[i].Instructions += m.Instructions
		out[i].Blocks += m.Blocks
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Instructions > out[j].Instructions })
	return out
}

// objectLines writes the instructions of each object that ran code, when
// more than one did (a dynamically linked program, code it generated).
func objectLines(w io.Writer, p *profile.Profile) {
	var ran []Object
	for _, o := range Objects(p) {
		if o.Instructions > 0 {
			ran = append(ran, o)
		}
	}
	total := p.Totals.Instructions
	if len(ran) < 2 || total == 0 {
		return
	}
	fmt.Fprintf(w, "%sinstructions by object:\n", Prefix)
	for _, o := range ran {
		file := ""
		if o.File != "" && o.File != o.Module {
			file = " (" + o.File + ")"
		}
		fmt.Fprintf(w, "%s%16s %5.1f%%  %s%s\n", Prefix, Group(o.Instructions), 100*float64(o.Instructions)/float64(total), o.Module, file)
	}
}
