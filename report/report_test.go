package report

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/icount-dev/icount/profile"
)

func sample() *profile.Profile {
	return &profile.Profile{
		Schema: profile.Schema,
		Meta: profile.Meta{
			Settings: profile.Settings{IcountVersion: "test", Arch: "x86_64", Args: []string{"prog", "-n", "3"}, Env: []string{}, Clock: profile.Clock{Mode: "host"}},
			Inputs:   profile.Inputs{Stdio: []string{"pipe", "pipe", "pipe"}},
			Record:   profile.Record{Binary: profile.Binary{Path: "prog", Size: 1234, SHA256: "ab"}}},
		Totals:    profile.Totals{Instructions: 1234567, Blocks: 2345, DistinctBlocks: 12, Syscalls: 3},
		Syscalls:  map[string]uint64{"write": 2, "exit_group": 1},
		Functions: []profile.FunctionCount{{Name: "main", Self: 1000000}, {Name: "helper", Self: 234567}},
		HotBlocks: []profile.BlockCount{{Addr: 0x401000, Size: 12, Executions: 100, Instructions: 400, Function: "main"}},
		Exit:      profile.Exit{Status: 0, Complete: true},
		Processes: []profile.Process{{PID: 1000, Parent: -1, Argv: []string{"prog", "-n", "3"}, Binary: profile.Binary{Path: "prog", Size: 1234, SHA256: "ab"},
			Totals:    profile.Totals{Instructions: 1234567, Blocks: 2345, DistinctBlocks: 12, Syscalls: 3},
			Functions: []profile.FunctionCount{{Name: "main", Self: 1000000}, {Name: "helper", Self: 234567}}}},
	}
}

func TestJSONRoundTrip(t *testing.T) {
	p := sample()
	var b bytes.Buffer
	if err := profile.Encode(&b, p); err != nil {
		t.Fatal(err)
	}
	back, err := profile.Parse("p.json", b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p, back) {
		t.Errorf("reloaded profile differs:\n%+v\n%+v", p, back)
	}
}

func TestSummary(t *testing.T) {
	var b bytes.Buffer
	Summary(&b, sample(), 1)
	want := `icount: 1,234,567 instructions (x86_64, exit 0)
icount: 2,345 block executions, 12 distinct blocks, 3 system calls
icount: top 1 functions by self cost:
icount:             self  share  module  function
icount:        1,000,000  81.0%          main
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestGroup(t *testing.T) {
	for n, want := range map[uint64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567"} {
		if got := Group(n); got != want {
			t.Errorf("Group(%d) = %q, want %q", n, got, want)
		}
	}
}

// oneProcess gives a Profile built by hand the one process a run of one
// program has, made of the run's own fields, as count makes it.
func oneProcess(p *profile.Profile) *profile.Profile {
	exit := profile.ProcessExit{Status: p.Exit.Status, Signal: p.Exit.Signal, Running: !p.Exit.Complete}
	p.Processes = []profile.Process{{PID: 1000, Parent: -1, Argv: p.Meta.Args, Binary: p.Meta.Binary, Exit: exit,
		Totals: p.Totals, Syscalls: p.Syscalls, Threads: p.Threads, Functions: p.Functions}}
	return p
}
