package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/icount-dev/icount/profile"
)

// dumpParts are the parts testdata/c/dumps.c ends with
// CALLGRIND_DUMP_STATS_AT, in order, and the one its exit ends.
var dumpParts = []string{"sort", "hash", "fib", "exit"}

// partSelf returns the self costs of a part's functions by name.
func partSelf(pt profile.Part) map[string]uint64 {
	out := map[string]uint64{}
	for _, f := range pt.Functions {
		out[f.Name] += f.Self
	}
	return out
}

// TestCallgrindDumps runs testdata/c/dumps.c, a program written for
// callgrind, under icount and under callgrind. icount ends a part at each
// of its three CALLGRIND_DUMP_STATS_AT and at its exit, named as the dumps
// are, and leaves out what ran before CALLGRIND_ZERO_STATS, between its
// two CALLGRIND_TOGGLE_COLLECT and between CALLGRIND_STOP_INSTRUMENTATION
// and CALLGRIND_START_INSTRUMENTATION. Each named part's functions other
// than main count exactly what callgrind's dump of the same name counts
// for them; the parts' totals differ by a few dozen instructions of main,
// the code of the requests themselves, which the two count differently:
//   - valgrind decodes a request's special sequence (four rotations and
//     the marker, five instructions) as one instruction;
//   - callgrind charges a block's instructions when the block ends, after
//     the request that ends it took effect: the block that sets up a dump
//     goes to the next dump, and one that turns collection off is left out.
//
// icount charges each instruction to the part in which it runs.
func TestCallgrindDumps(t *testing.T) {
	t.Parallel()
	for _, prog := range []string{"c/dumps-musl", "arm64/c/dumps-glibc"} {
		t.Run(strings.ReplaceAll(prog, "/", "_"), func(t *testing.T) {
			t.Parallel()
			bin := testProgram(t, prog)
			r := runIcount(t, nil, nil, bin)
			if r.status != 0 || r.profile == nil {
				t.Fatalf("icount: status %d\n%s", r.status, r.stderr)
			}
			if !strings.HasPrefix(r.stdout, "running on valgrind: 0,") {
				t.Errorf("RUNNING_ON_VALGRIND under icount: want 0 (the program runs as natively):\n%s", r.stdout)
			}
			parts := r.profile.Parts
			var names []string
			for _, pt := range parts {
				names = append(names, pt.Name)
			}
			if fmt.Sprint(names) != fmt.Sprint(dumpParts) {
				t.Fatalf("parts %q, want %q", names, dumpParts)
			}
			// What counting left out is in no part: the hash part holds
			// two calls of hash (noise's, between the toggles, is not
			// there), the fib part none (noise's is between stop and
			// start).
			if c := callsOf(parts[1], "hash"); c != 2 {
				t.Errorf("the hash part calls hash %d times, want 2 (the toggled one left out)", c)
			}
			if c := callsOf(parts[2], "hash"); c != 0 {
				t.Errorf("the fib part calls hash %d times, want 0 (instrumentation stopped around it)", c)
			}
			var sum uint64
			for _, pt := range parts {
				sum += pt.Totals.Instructions
			}
			if sum >= r.profile.Totals.Instructions {
				t.Errorf("the parts sum to %d, the run counts %d: the start-up before CALLGRIND_ZERO_STATS should be in none", sum, r.profile.Totals.Instructions)
			}
			if strings.HasPrefix(prog, "arm64/") {
				return // valgrind here runs amd64 guests only
			}
			if _, err := exec.LookPath("valgrind"); err != nil {
				t.Skip("valgrind is not installed: run `make deps`")
			}
			dumps := callgrindDumps(t, bin)
			for i, name := range dumpParts[:3] {
				d := dumps[i]
				if d.trigger != "Client Request: "+name {
					t.Fatalf("callgrind's dump %d: trigger %q, want the request %q", i+1, d.trigger, name)
				}
				pt := parts[i]
				diff := int64(pt.Totals.Instructions) - int64(d.totals)
				t.Logf("part %s: icount %d, callgrind %d, difference %+d", name, pt.Totals.Instructions, d.totals, diff)
				ic := partSelf(pt)
				for fn, cg := range d.self {
					if fn != "main" && cg != 0 && ic[fn] != cg {
						t.Errorf("part %s, function %s: icount %d, callgrind %d", name, fn, ic[fn], cg)
					}
				}
				// Three requests border a part at most: 4 instructions of
				// each sequence, and the blocks that set up a request
				// (at most 20 instructions each) moved by callgrind.
				if diff < -64 || diff > 64 {
					t.Errorf("part %s: icount %d and callgrind %d differ by more than the requests' code", name, pt.Totals.Instructions, d.totals)
				}
			}
		})
	}
}

// callsOf returns the calls a part counts of the function named name or
// one of its clones (name.constprop.0).
func callsOf(pt profile.Part, name string) uint64 {
	var n uint64
	for _, f := range pt.Functions {
		if f.Name == name || strings.HasPrefix(f.Name, name+".") {
			n += f.Calls
		}
	}
	return n
}

// cgDump is one of callgrind's dumps: what triggered it, its totals and
// its functions' self costs.
type cgDump struct {
	trigger string
	totals  uint64
	self    map[string]uint64
}

// callgrindDumps runs bin under callgrind and reads its numbered dumps.
func callgrindDumps(t *testing.T, bin string) []cgDump {
	t.Helper()
	out := filepath.Join(t.TempDir(), "callgrind.out")
	cmd := exec.Command("valgrind", "--tool=callgrind", "--callgrind-out-file="+out, bin)
	cmd.Env = []string{}
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("valgrind: %v\n%s", err, b)
	}
	var dumps []cgDump
	for i := 1; ; i++ {
		f, err := os.Open(out + "." + strconv.Itoa(i))
		if os.IsNotExist(err) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		d, err := readCallgrindDump(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s.%d: %v", out, i, err)
		}
		dumps = append(dumps, d)
	}
	if len(dumps) != 3 {
		t.Fatalf("callgrind wrote %d numbered dumps, want 3", len(dumps))
	}
	return dumps
}

var cgName = regexp.MustCompile(`^\((\d+)\)(?: (.*))?$`)

// readCallgrindDump reads a callgrind file (positions: line or instr line,
// one event): its trigger, totals and each function's self cost, the
// cost lines under fn= that do not follow a calls= line (the levels of a
// recursion, NAME'2, as NAME).
func readCallgrindDump(f *os.File) (cgDump, error) {
	d := cgDump{self: map[string]uint64{}}
	names := map[string]string{}
	var fn string
	afterCalls := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "desc: Trigger: "):
			d.trigger = strings.TrimPrefix(line, "desc: Trigger: ")
		case strings.HasPrefix(line, "totals: "):
			n, err := strconv.ParseUint(strings.TrimPrefix(line, "totals: "), 10, 64)
			if err != nil {
				return d, fmt.Errorf("totals: %w", err)
			}
			d.totals = n
		case strings.HasPrefix(line, "fn="):
			fn = strings.TrimPrefix(line, "fn=")
			if m := cgName.FindStringSubmatch(fn); m != nil {
				if m[2] != "" {
					names[m[1]] = m[2]
				}
				fn = names[m[1]]
			}
			// A recursive call's frames deeper than callgrind's
			// --separate-recs are the function named NAME'2.
			if i := strings.LastIndexByte(fn, '\''); i > 0 {
				fn = fn[:i]
			}
		case strings.HasPrefix(line, "cfn="):
			if m := cgName.FindStringSubmatch(strings.TrimPrefix(line, "cfn=")); m != nil && m[2] != "" {
				names[m[1]] = m[2]
			}
		case strings.HasPrefix(line, "calls="):
			afterCalls = true
		case line != "" && strings.ContainsAny(line[:1], "0123456789+-*"):
			if afterCalls {
				afterCalls = false
				continue
			}
			fields := strings.Fields(line)
			if n, err := strconv.ParseUint(fields[len(fields)-1], 10, 64); err == nil && fn != "" {
				d.self[fn] += n
			}
		}
	}
	return d, sc.Err()
}
