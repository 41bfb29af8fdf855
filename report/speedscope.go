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

// speedscopeProfile is a sampled profile: one sample per node of the call
// tree with a self count, weighted by it ("unit": "none", counts).
type speedscopeProfile struct {
	Type       string   `json:"type"`
	Name       string   `json:"name"`
	Unit       string   `json:"unit"`
	StartValue uint64   `json:"startValue"`
	EndValue   uint64   `json:"endValue"`
	Samples    [][]int  `json:"samples"`
	Weights    []uint64 `json:"weights"`
}

// WriteSpeedscope writes the Profile in speedscope's file format: a
// sampled profile of the whole run's instructions, one per process when
// the run had more than one, and one of the whole run's block executions
// (shared among a function's contexts as --pprof shares them). Each
// sample is a node of the calling-context tree with its full stack,
// weighted by its self count; of several processes, each stack starts
// with a frame "pid PID NAME". A Profile without a call tree (--count-only)
// has one sample per function.
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
	procFrame := make([]int, len(p.Processes))
	for i, pr := range p.Processes {
		if multi {
			procFrame[i] = len(f.Shared.Frames)
			f.Shared.Frames = append(f.Shared.Frames, speedscopeFrame{Name: fmt.Sprintf("pid %d %s", pr.PID, processName(pr))})
		}
	}
	// Each node's stack, root first.
	stacks := make([][]int, len(p.CallTree))
	for i, n := range p.CallTree {
		fr := frame(n.Module, n.Function)
		switch {
		case n.Parent >= 0:
			stacks[i] = append(append(make([]int, 0, len(stacks[n.Parent])+1), stacks[n.Parent]...), fr)
		case multi && n.Process >= 0 && n.Process < len(procFrame):
			stacks[i] = []int{procFrame[n.Process], fr}
		default:
			stacks[i] = []int{fr}
		}
	}
	blocks := contextBlocks(p)
	// sampled is a profile of the nodes in process (-1: all) weighted by
	// weight.
	sampled := func(name string, process int, weight func(i int) uint64, flat func(pr int, fc profile.FunctionCount) uint64) speedscopeProfile {
		sp := speedscopeProfile{Type: "sampled", Name: name, Unit: "none", Samples: [][]int{}, Weights: []uint64{}}
		add := func(stack []int, v uint64) {
			if v == 0 {
				return
			}
			sp.Samples = append(sp.Samples, stack)
			sp.Weights = append(sp.Weights, v)
			sp.EndValue += v
		}
		if len(p.CallTree) == 0 {
			for i, pr := range p.Processes {
				if process >= 0 && i != process {
					continue
				}
				for _, fc := range pr.Functions {
					stack := []int{frame(fc.Module, fc.Name)}
					if multi {
						stack = append([]int{procFrame[i]}, stack...)
					}
					add(stack, flat(i, fc))
				}
			}
			return sp
		}
		for i, n := range p.CallTree {
			if process < 0 || n.Process == process {
				add(stacks[i], weight(i))
			}
		}
		return sp
	}
	selfOf := func(i int) uint64 { return p.CallTree[i].Self }
	blocksOf := func(i int) uint64 { return blocks[i] }
	flatSelf := func(_ int, fc profile.FunctionCount) uint64 { return fc.Self }
	flatBlocks := func(_ int, fc profile.FunctionCount) uint64 { return fc.Blocks }
	f.Profiles = append(f.Profiles, sampled("instructions: the whole run", -1, selfOf, flatSelf))
	if multi {
		for i, pr := range p.Processes {
			f.Profiles = append(f.Profiles, sampled(fmt.Sprintf("instructions: pid %d %s", pr.PID, argvLine(pr)), i, selfOf, flatSelf))
		}
	}
	f.Profiles = append(f.Profiles, sampled("block executions: the whole run", -1, blocksOf, flatBlocks))
	enc := json.NewEncoder(w)
	if err := enc.Encode(&f); err != nil {
		return fmt.Errorf("encoding the speedscope profile: %w", err)
	}
	return nil
}
