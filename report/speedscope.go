package report

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/icount-dev/icount/profile"
)

// SpeedscopeSchema is the file format speedscope reads
// (its file-format-spec.ts, published as a JSON schema at this address).
const SpeedscopeSchema = "https://www.speedscope.app/file-format-schema.json"

// speedscopeFile is a speedscope file: frames shared by its profiles, each
// profile a list of stacks (outermost frame first) with their weights.
type speedscopeFile struct {
	Schema             string              `json:"$schema"`
	Shared             speedscopeShared    `json:"shared"`
	Profiles           []speedscopeProfile `json:"profiles"`
	Name               string              `json:"name"`
	ActiveProfileIndex int                 `json:"activeProfileIndex"`
	Exporter           string              `json:"exporter"`
}

type speedscopeShared struct {
	Frames []speedscopeFrame `json:"frames"`
}

type speedscopeFrame struct {
	Name string `json:"name"`
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
}

// speedscopeProfile is an evented profile: frames opened and closed at
// running counts ("unit": "none"), each node of the call tree opened, its
// self count run, its children opened and closed in turn, and closed.
type speedscopeProfile struct {
	Type       string            `json:"type"`
	Name       string            `json:"name"`
	Unit       string            `json:"unit"`
	StartValue uint64            `json:"startValue"`
	EndValue   uint64            `json:"endValue"`
	Events     []speedscopeEvent `json:"events"`
}

type speedscopeEvent struct {
	Type  string `json:"type"` // "O" opens, "C" closes
	Frame int    `json:"frame"`
	At    uint64 `json:"at"`
}

// WriteSpeedscope writes the Profile in speedscope's file format: an
// evented profile of the whole run's instructions, one per process when the
// run had more than one, and one of the whole run's block executions
// (shared among a function's contexts as --pprof shares them). Each node
// of the calling-context tree is a frame open for its inclusive count, its
// children in the tree's order; of several processes, each process's tree
// is under a frame "pid PID NAME". A Profile without a call tree
// (--count-only) has each function open for its self count.
func WriteSpeedscope(w io.Writer, p *profile.Profile) error {
	f := speedscopeFile{Schema: SpeedscopeSchema, Name: "icount: " + oneLine(strings.Join(p.Meta.Args, " ")),
		Exporter: "icount " + p.Meta.IcountVersion}
	type fkey struct{ module, name string }
	info := map[fkey]profile.FunctionCount{}
	for _, fc := range p.Functions {
		info[fkey{fc.Module, fc.Name}] = fc
	}
	main := filepath.Base(p.Meta.Binary.Path)
	frames := map[fkey]int{}
	frame := func(module, name string) int {
		k := fkey{module, name}
		if i, ok := frames[k]; ok {
			return i
		}
		fc := info[k]
		label := DisplayName(name)
		if module != "" && module != main {
			label += " (" + module + ")"
		}
		frames[k] = len(f.Shared.Frames)
		f.Shared.Frames = append(f.Shared.Frames, speedscopeFrame{Name: label, File: fc.File, Line: fc.Line})
		return frames[k]
	}
	multi := len(p.Processes) > 1
	// The tree as speedscope gets it: the processes' frames (of several),
	// then the call tree's nodes, each with its frame, weight and children.
	type node struct {
		frame    int
		self     [2]uint64 // instructions, block executions
		children []int
	}
	var nodes []node
	var roots []int
	procNode := make([]int, len(p.Processes))
	for i, pr := range p.Processes {
		if multi {
			procNode[i] = len(nodes)
			roots = append(roots, len(nodes))
			f.Shared.Frames = append(f.Shared.Frames, speedscopeFrame{Name: fmt.Sprintf("pid %d %s", pr.PID, processName(pr))})
			nodes = append(nodes, node{frame: len(f.Shared.Frames) - 1})
		}
	}
	attach := func(n node, parent int) {
		nodes = append(nodes, n)
		if parent < 0 {
			roots = append(roots, len(nodes)-1)
		} else {
			nodes[parent].children = append(nodes[parent].children, len(nodes)-1)
		}
	}
	if len(p.CallTree) == 0 {
		for i, pr := range p.Processes {
			for _, fc := range pr.Functions {
				parent := -1
				if multi {
					parent = procNode[i]
				}
				attach(node{frame: frame(fc.Module, fc.Name), self: [2]uint64{fc.Self, fc.Blocks}}, parent)
			}
		}
	} else {
		blocks := contextBlocks(p)
		at := make([]int, len(p.CallTree))
		for i, n := range p.CallTree {
			parent := -1
			switch {
			case n.Parent >= 0:
				parent = at[n.Parent]
			case multi && n.Process >= 0 && n.Process < len(procNode):
				parent = procNode[n.Process]
			}
			attach(node{frame: frame(n.Module, n.Function), self: [2]uint64{n.Self, blocks[i]}}, parent)
			at[i] = len(nodes) - 1
		}
	}
	// evented is the profile of metric (0 instructions, 1 blocks) of the
	// trees under roots.
	evented := func(name string, metric int, roots []int) speedscopeProfile {
		sp := speedscopeProfile{Type: "evented", Name: name, Unit: "none", Events: []speedscopeEvent{}}
		var at uint64
		type step struct {
			n    int
			next int // the next child to open; -1: not opened yet
		}
		for _, r := range roots {
			stack := []step{{r, -1}}
			for len(stack) > 0 {
				top := &stack[len(stack)-1]
				n := &nodes[top.n]
				if top.next < 0 {
					sp.Events = append(sp.Events, speedscopeEvent{"O", n.frame, at})
					at += n.self[metric]
					top.next = 0
				}
				if top.next < len(n.children) {
					top.next++
					stack = append(stack, step{n.children[top.next-1], -1})
					continue
				}
				sp.Events = append(sp.Events, speedscopeEvent{"C", n.frame, at})
				stack = stack[:len(stack)-1]
			}
		}
		sp.EndValue = at
		return sp
	}
	f.Profiles = append(f.Profiles, evented("instructions: the whole run", 0, roots))
	if multi {
		for i, pr := range p.Processes {
			f.Profiles = append(f.Profiles, evented(fmt.Sprintf("instructions: pid %d %s", pr.PID, argvLine(pr)), 0, roots[i:i+1]))
		}
	}
	f.Profiles = append(f.Profiles, evented("block executions: the whole run", 1, roots))
	enc := json.NewEncoder(w)
	if err := enc.Encode(&f); err != nil {
		return fmt.Errorf("encoding the speedscope profile: %w", err)
	}
	return nil
}
