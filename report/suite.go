package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"
)

// Suite is a set of benchmarks gated together, read from a TOML file:
//
//	[[bench]]
//	name = "crunch"              # letters, digits, . _ -; unique
//	binary = "build/crunch"      # relative to the suite file's directory
//	args = ["-n", "1000"]        # optional
//	stdin = "data/input.txt"     # optional; default: empty
//	env = ["MODE=fast"]          # optional, added to the run's --env
type Suite struct {
	Benches []Bench
}

// Bench is one member of a Suite. Paths are as written in the file.
type Bench struct {
	Name   string   `toml:"name"`
	Binary string   `toml:"binary"`
	Args   []string `toml:"args"`
	Stdin  string   `toml:"stdin"`
	Env    []string `toml:"env"`
}

// MaxSuite bounds the number of benchmarks in a suite.
const MaxSuite = 1000

var benchName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]*$`)

// ValidName reports whether s may name a benchmark or a saved baseline:
// it becomes a file name under .icount/.
func ValidName(s string) bool { return len(s) <= 100 && benchName.MatchString(s) }

// ReadSuite loads a suite file; errors name it.
func ReadSuite(file string) (*Suite, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return ParseSuite(file, b)
}

// ParseSuite reads a suite; name labels it in errors. Unknown keys,
// missing or duplicate names, a missing binary and malformed env entries
// are refused.
func ParseSuite(name string, data []byte) (*Suite, error) {
	var sf struct {
		Bench []Bench `toml:"bench"`
	}
	md, err := toml.Decode(string(data), &sf)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, tomlError(err))
	}
	if un := md.Undecoded(); len(un) > 0 {
		return nil, fmt.Errorf("%s: unknown key %q (a suite has [[bench]] entries with name, binary, args, stdin, env)", name, un[0].String())
	}
	if len(sf.Bench) == 0 {
		return nil, fmt.Errorf("%s: no benchmarks: add [[bench]] entries with a name and a binary", name)
	}
	if len(sf.Bench) > MaxSuite {
		return nil, fmt.Errorf("%s: %d benchmarks, at most %d", name, len(sf.Bench), MaxSuite)
	}
	seen := map[string]int{}
	for i, b := range sf.Bench {
		where := fmt.Sprintf("%s: benchmark %d", name, i+1)
		if b.Name != "" {
			where = fmt.Sprintf("%s: benchmark %q", name, b.Name)
		}
		switch {
		case b.Name == "":
			return nil, fmt.Errorf("%s: no name", where)
		case !ValidName(b.Name):
			return nil, fmt.Errorf("%s: the name may hold only letters, digits, '.', '_' and '-' (it names a file)", where)
		case seen[b.Name] > 0:
			return nil, fmt.Errorf("%s: the name is used twice (benchmarks %d and %d)", where, seen[b.Name], i+1)
		case b.Binary == "":
			return nil, fmt.Errorf("%s: no binary", where)
		case strings.ContainsRune(b.Binary+b.Stdin, 0):
			return nil, fmt.Errorf("%s: a path holds a NUL byte", where)
		}
		for _, kv := range b.Env {
			if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
				return nil, fmt.Errorf("%s: env entry %q: want K=V", where, kv)
			}
		}
		seen[b.Name] = i + 1
	}
	return &Suite{Benches: sf.Bench}, nil
}

// How a benchmark of a suite ended, by who ended it.
const (
	OutcomeOK      = "ok"      // the program exited 0
	OutcomeExit    = "exit"    // the program exited with another status
	OutcomeSignal  = "signal"  // a signal killed the program (a fault)
	OutcomeStopped = "stopped" // icount stopped the program early (Reason)
	OutcomeRefused = "refused" // icount did not start it (not found, not runnable, bad arguments)
	OutcomeError   = "error"   // icount itself failed (an internal error, a crash)
)

// Outcome is how one run of a suite's benchmark ended. Status is the
// status the run exited with: the program's own for OutcomeOK,
// OutcomeExit and OutcomeSignal (128+N), icount's for the others.
type Outcome struct {
	Name    string `json:"name"`
	Side    string `json:"side,omitempty"` // "base" or "head" in ab
	Class   string `json:"class"`
	Status  int    `json:"status"`
	Signal  string `json:"signal,omitempty"`
	Reason  string `json:"reason,omitempty"` // a stopped run's exit.reason
	Message string `json:"message,omitempty"`
}

// OK says the benchmark ran to its end and exited 0.
func (o Outcome) OK() bool { return o.Class == OutcomeOK }

// Short is the outcome in a table cell: "ok", "exit 3", "SIGSEGV",
// "stopped: timeout", "refused (127)", "error (70)".
func (o Outcome) Short() string {
	switch o.Class {
	case OutcomeExit:
		return fmt.Sprintf("exit %d", o.Status)
	case OutcomeSignal:
		return o.Signal
	case OutcomeStopped:
		return "stopped: " + o.Reason
	case OutcomeRefused, OutcomeError:
		return fmt.Sprintf("%s (%d)", o.Class, o.Status)
	}
	return o.Class
}

// String is the outcome on one line, for a message: the benchmark, its
// side, the outcome and what the run said.
func (o Outcome) String() string {
	who := o.Name
	if o.Side != "" {
		who = o.Side + " " + who
	}
	if strings.HasPrefix(o.Message, o.Short()) {
		return who + ": " + o.Message // a fault's message names the signal
	}
	s := who + ": " + o.Short()
	if o.Message != "" {
		s += ": " + o.Message
	}
	return s
}

// OutcomesFile is the file of a saved suite's directory that records
// every benchmark's outcome, one JSON object a line in the suite's order
// (it does not end in .json: the directory's *.json are the Profiles of
// the benchmarks that ran to their end).
const OutcomesFile = "outcomes.jsonl"

// WriteOutcomes writes outs as an OutcomesFile.
func WriteOutcomes(w io.Writer, outs []Outcome) error {
	enc := json.NewEncoder(w)
	for _, o := range outs {
		if err := enc.Encode(o); err != nil {
			return err
		}
	}
	return nil
}

// ReadOutcomes reads an OutcomesFile; errors name it.
func ReadOutcomes(file string) ([]Outcome, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return ParseOutcomes(file, b)
}

// ParseOutcomes reads an OutcomesFile's data; name labels it in errors.
// Each line is an Outcome of a known class naming a benchmark.
func ParseOutcomes(name string, data []byte) ([]Outcome, error) {
	var out []Outcome
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	for dec.More() {
		var o Outcome
		if err := dec.Decode(&o); err != nil {
			return nil, fmt.Errorf("%s: outcome %d: %v", name, len(out)+1, err)
		}
		switch o.Class {
		case OutcomeOK, OutcomeExit, OutcomeSignal, OutcomeStopped, OutcomeRefused, OutcomeError:
		default:
			return nil, fmt.Errorf("%s: outcome %d: class %q", name, len(out)+1, o.Class)
		}
		if !ValidName(o.Name) {
			return nil, fmt.Errorf("%s: outcome %d: benchmark name %q", name, len(out)+1, o.Name)
		}
		if len(out) == MaxSuite {
			return nil, fmt.Errorf("%s: more than %d outcomes", name, MaxSuite)
		}
		out = append(out, o)
	}
	return out, nil
}
