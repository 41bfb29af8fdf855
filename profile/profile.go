package profile

import (
	"fmt"
	"sort"
	"strings"
)

// Schema names the version of the Profile's JSON form.
const Schema = "icount/3"

// Profile is everything one run produced: counts and the metadata needed
// to tell whether two runs can be compared. It is immutable once built;
// every report format and every diff is a function of Profiles.
type Profile struct {
	Schema    string            `json:"schema"`
	Meta      Meta              `json:"meta"`
	Totals    Totals            `json:"totals"`
	Syscalls  map[string]uint64 `json:"syscalls"`
	Functions []FunctionCount   `json:"functions"`
	CallTree  []CallNode        `json:"call_tree,omitempty"`
	Region    *Region           `json:"region,omitempty"`
	Mix       *Mix              `json:"mix,omitempty"`
	HotBlocks []BlockCount      `json:"hot_blocks"`
	// Mappings are the executable segments of the objects the guest ran,
	// as loaded.
	Mappings []Mapping `json:"mappings,omitempty"`
	// Lines, Blocks and Positions are filled only when the run was asked
	// for per-line attribution (Options.Lines): self costs by function and
	// source line, every block that ran with its instructions, their
	// source positions and, with a call tree, its runs in each context, so
	// that a saved run can be annotated instruction by instruction.
	Lines     []LineCount `json:"lines,omitempty"`
	Blocks    []BlockRuns `json:"blocks,omitempty"`
	Positions []Position  `json:"positions,omitempty"`
	Exit      Exit        `json:"exit"`
	Warnings  []string    `json:"warnings,omitempty"`
	// Threads are the guest's threads in creation order with the
	// instructions each ran, for a program that made more than one. They
	// count everything a thread ran, inside a region collected (--collect)
	// or not: with a region they sum to more than Totals.
	Threads []ThreadCount `json:"threads,omitempty"`
	// Processes are the programs the run's processes ran, in the order
	// they started: the first process, each child a process forked, and
	// each program a process exec'd. Their Totals sum to the run's; the
	// run's Functions, Mix and Syscalls are theirs merged (by module and
	// name), and its CallTree, HotBlocks, Lines, Blocks and Mappings theirs
	// side by side, each item naming its entry (Process). A run of one
	// program has one entry.
	Processes []Process `json:"processes"`
	// Parts are the stretches of the run counted apart (see Part), in
	// the order they ended, process by process.
	Parts []Part `json:"parts,omitempty"`
}

// Process is one program one process ran: from its start (the first
// process's, a fork, or an exec) to its exit, its death, or the exec that
// replaced it.
type Process struct {
	PID  int `json:"pid"`
	PPID int `json:"ppid"` // its parent's pid; 0 for the first process
	// Parent is the index in Profile.Processes of the entry this one came
	// from: the program that forked it, or with Exec the one it replaced
	// in the same process; -1 for the first.
	Parent int         `json:"parent"`
	Exec   bool        `json:"exec,omitempty"`
	Argv   []string    `json:"argv"`
	Binary Binary      `json:"binary"`
	Exit   ProcessExit `json:"exit"`
	// Totals are its own counts (not its children's). A child made with
	// CLONE_VM (vfork, posix_spawn) runs in its parent's memory until it
	// execs or exits: until then its instructions and blocks are its
	// parent entry's, and its own entry has only its system calls.
	Totals    Totals            `json:"totals"`
	Syscalls  map[string]uint64 `json:"syscalls,omitempty"`
	Threads   []ThreadCount     `json:"threads,omitempty"`
	Functions []FunctionCount   `json:"functions"`
}

// ProcessExit is how one program of the run ended.
type ProcessExit struct {
	// Status is its exit status, or 128+signal when a signal killed it.
	Status int    `json:"status"`
	Signal string `json:"signal,omitempty"` // the signal that killed it
	// Exec says that it ended by exec'ing another program (the later
	// entry with its pid and Exec set); Running that it still ran when the
	// first process's exit ended the run (icount then stopped it).
	Exec    bool `json:"exec,omitempty"`
	Running bool `json:"running,omitempty"`
	// Message and Backtrace say how a fault killed it (a process other
	// than the first: its parent sees the signal, the run goes on).
	Message    string  `json:"message,omitempty"`
	Backtrace  []Frame `json:"backtrace,omitempty"`
	FramesMore int     `json:"frames_more,omitempty"`
}

// ThreadCount is one guest thread's share of the run.
type ThreadCount struct {
	TID          int    `json:"tid"`
	Name         string `json:"name,omitempty"` // prctl PR_SET_NAME, else the program's
	Instructions uint64 `json:"instructions"`
}

// Totals are the run's counts.
type Totals struct {
	Instructions   uint64 `json:"instructions"`
	Blocks         uint64 `json:"blocks"`          // block executions
	DistinctBlocks uint64 `json:"distinct_blocks"` // translated blocks seen
	Syscalls       uint64 `json:"syscalls"`
}

// BlockCount is one translated block's share of the run.
type BlockCount struct {
	Addr         uint64 `json:"addr"`
	Size         uint32 `json:"size"`
	Executions   uint64 `json:"executions"`
	Instructions uint64 `json:"instructions"` // over all executions
	Function     string `json:"function,omitempty"`
	Process      int    `json:"process,omitempty"` // its entry in Profile.Processes
}

// BlockRuns is a block that ran, with the executions cut short by the
// first instruction that did not complete.
type BlockRuns struct {
	BlockCount
	Cuts []Cut `json:"cuts,omitempty"`
	// Length is its number of instructions; Offsets, when the block was
	// decoded, their offsets from Addr, and Positions their source
	// positions (indexes in Profile.Positions), one per instruction.
	Length    int      `json:"length,omitempty"`
	Offsets   []uint32 `json:"offsets,omitempty"`
	Positions []int    `json:"positions,omitempty"`
	// Contexts are its runs in each context of the call tree (a node of
	// Profile.CallTree) it ran in: they sum to its Executions and Cuts.
	Contexts []BlockContext `json:"contexts,omitempty"`
}

// BlockContext is a block's runs in one context of the call tree: its
// executions there, and those cut short.
type BlockContext struct {
	Node       int    `json:"node"` // index in Profile.CallTree
	Executions uint64 `json:"executions"`
	Cuts       []Cut  `json:"cuts,omitempty"`
}

// Position is where the code of an instruction comes from: the source
// line DWARF's line table gives it (an empty File and Line 0 when it has
// none) and the calls inlined there, outermost first: the innermost is the
// function whose inlined body holds the line.
type Position struct {
	File    string        `json:"file,omitempty"`
	Line    int           `json:"line,omitempty"`
	Inlined []InlinedCall `json:"inlined,omitempty"`
}

// InlinedCall is a call the compiler inlined: the function called, and the
// line of the call in the function it was inlined into.
type InlinedCall struct {
	Function string `json:"function"`
	CallFile string `json:"call_file,omitempty"`
	CallLine int    `json:"call_line,omitempty"`
}

// Cut is a number of executions of a block that stopped before its
// instruction Index (counted from 0): that instruction and those after it
// did not complete.
type Cut struct {
	Index      int    `json:"index"`
	Executions uint64 `json:"executions"`
}

// FunctionCount is one function's share of the run.
type FunctionCount struct {
	Name      string `json:"name"`             // as in the symbol table (mangled names kept)
	Module    string `json:"module,omitempty"` // the mapped object holding it
	Addr      uint64 `json:"addr,omitempty"`   // entry address, as loaded
	Size      uint64 `json:"size,omitempty"`   // bytes of its code, as its symbol gives them (0: unknown)
	File      string `json:"file,omitempty"`   // source file, from DWARF
	Line      int    `json:"line,omitempty"`   // its declaration, else its first line
	Self      uint64 `json:"self"`             // instructions executed in its own code
	Inclusive uint64 `json:"inclusive"`        // self plus everything it called
	Calls     uint64 `json:"calls"`            // times it was called
	Blocks    uint64 `json:"blocks,omitempty"` // block executions in its own code
	Mix       *Mix   `json:"mix,omitempty"`    // its self instructions by kind
}

// LineCount is the self cost of one source line within one function: the
// instructions executed at addresses DWARF's line table gives to File:Line.
// Code without line information has an empty File and Line 0. Inlined names
// the function whose inlined body the line lies in (the innermost), when
// DWARF says the code was inlined into Function.
type LineCount struct {
	Function string `json:"function"`
	Module   string `json:"module,omitempty"`
	Inlined  string `json:"inlined,omitempty"`
	Process  int    `json:"process,omitempty"` // its entry in Profile.Processes
	File     string `json:"file,omitempty"`
	Line     int    `json:"line,omitempty"`
	Self     uint64 `json:"self"`
}

// Mix is a set of instructions by what they do, from the decoded blocks.
// The properties overlap: a load into an SSE or NEON register is a load and
// SIMD/FP; an instruction that reads and writes memory (add to memory,
// movs, push of a memory operand) is a load and a store. Push, enter and
// string stores are stores, pop and leave loads; the return address a call
// stores and a return loads is not counted as data. Other counts the
// instructions with none of the properties.
type Mix struct {
	Loads    uint64 `json:"loads"`
	Stores   uint64 `json:"stores"`
	Branches uint64 `json:"branches"` // jumps, conditional or not; not calls or returns
	Calls    uint64 `json:"calls"`
	Returns  uint64 `json:"returns"`
	Syscalls uint64 `json:"syscalls"`
	SIMDFP   uint64 `json:"simd_fp"` // operates on x87, MMX, SSE or NEON/FP registers
	Other    uint64 `json:"other"`
}

// Meta describes what ran, where and how, in three parts: the Settings
// two runs must share for their counts to be compared, the Inputs the
// program read that icount cannot pin (compared too, and named when they
// differ), and the Record of facts that may differ between comparable
// runs (which binary ran, what it did).
type Meta struct {
	Settings `json:"settings"`
	Inputs   `json:"inputs"`
	Record   `json:"record"`
}

// Settings are how icount ran the program: two runs are comparable only if
// every one of them is equal (see Differences).
type Settings struct {
	IcountVersion  string   `json:"icount_version"`
	UnicornVersion string   `json:"unicorn_version"`
	Arch           string   `json:"arch"`
	CPUModel       string   `json:"cpu_model"`
	Args           []string `json:"args"` // argv as the guest saw it
	Env            []string `json:"env"`
	Seed           uint64   `json:"seed"`
	Clock          Clock    `json:"clock"`
	CPUs           int      `json:"cpus"` // the CPU count the guest was told
	// Quantum is the instructions a thread runs before the next one's
	// turn (--quantum): the count of a program with threads depends on it.
	Quantum uint64 `json:"quantum,omitempty"`
	// Sysroot is the directory the interpreter and the guest's files were
	// taken from where it had them (--sysroot, or the arm64 default).
	Sysroot string `json:"sysroot,omitempty"`
	// HostTmp says that the guest saw the host's own /tmp and /var/tmp
	// (--host-tmp) rather than the run's own empty ones.
	HostTmp bool `json:"host_tmp,omitempty"`
}

// Inputs are what the program read that icount does not pin: the working
// directory, what its standard descriptors were, and the files it opened.
type Inputs struct {
	// Cwd is the working directory the first process started in; CwdRead
	// says whether the guest learnt it (getcwd, /proc/self/cwd), so that a
	// count may depend on it.
	Cwd     string `json:"cwd"`
	CwdRead bool   `json:"cwd_read,omitempty"`
	// Stdio is what descriptors 0, 1 and 2 were when the run started
	// (see the Stdio* kinds): glibc, for one, buffers a terminal's output
	// by lines and a file's by blocks.
	Stdio []string `json:"stdio"`
	// Files are the files the guest opened that existed before it did,
	// first open first, once each, with their contents' digest as they
	// were opened.
	Files []InputFile `json:"files,omitempty"`
}

// Kinds of a standard descriptor.
const (
	StdioTerminal  = "terminal"
	StdioPipe      = "pipe"
	StdioSocket    = "socket"
	StdioFile      = "file"
	StdioDevNull   = "/dev/null"
	StdioDevice    = "device" // another character or block device
	StdioDirectory = "directory"
	StdioClosed    = "closed"
)

// InputFile is a file the guest opened: its host path and what it held
// when the guest first opened it. SHA256 is empty for what is not a
// regular file (a directory, a device).
type InputFile struct {
	Path   string `json:"path"`
	Size   int64  `json:"size,omitempty"`
	SHA256 string `json:"sha256,omitempty"`
}

// Record are the facts of the run that comparable runs need not share.
type Record struct {
	Binary Binary `json:"binary"`
	// Interpreter is the dynamic linker (PT_INTERP) a dynamically linked
	// executable ran under, as loaded; nil for a static one.
	Interpreter *Binary `json:"interpreter,omitempty"`
	// Tmp is the host directory of the run whose tmp and var/tmp the guest
	// saw as /tmp and /var/tmp, removed when the run ended; "" when the
	// guest saw the host's own (--host-tmp).
	Tmp string `json:"tmp,omitempty"`
	// ClockUse is how the guest used its clock.
	ClockUse ClockUse `json:"clock_use"`
	// CountOnly says that the run counted without the call tree
	// (--count-only): its functions have self costs only, no inclusive
	// costs or calls, and it has no call tree.
	CountOnly bool `json:"count_only,omitempty"`
}

// Mapping is an executable segment of a mapped object: [Start, Limit)
// holds the bytes of the file from Offset on. Bias is what loading added to
// the file's own addresses (its symbols and DWARF): 0 for a fixed-address
// executable, the load base for a PIE or a shared library. Every range the
// guest made executable is one, in order: the executable's segments first,
// then its interpreter's, then what the guest mapped (the libraries ld.so
// loads), including code it replaced later. Code in memory no file was
// mapped at has an empty File and Module "[anonymous]".
type Mapping struct {
	Start   uint64 `json:"start"`
	Limit   uint64 `json:"limit"`
	Offset  uint64 `json:"offset"`
	Bias    uint64 `json:"bias"`
	File    string `json:"file"`
	BuildID string `json:"build_id,omitempty"`
	Size    int64  `json:"size,omitempty"`   // the file's size in bytes
	SHA256  string `json:"sha256,omitempty"` // the file's SHA-256 when the run ended
	// Module is the name functions in the mapping are reported under (the
	// file's base name).
	Module string `json:"module,omitempty"`
	// Instructions and Blocks are what completed, and the block executions,
	// in code first seen in this mapping.
	Instructions uint64 `json:"instructions,omitempty"`
	Blocks       uint64 `json:"blocks,omitempty"`
	Process      int    `json:"process,omitempty"` // its entry in Profile.Processes
}

// Binary identifies the executable.
type Binary struct {
	Path    string `json:"path"`
	Size    int64  `json:"size"`
	SHA256  string `json:"sha256"`
	BuildID string `json:"build_id,omitempty"`
	Base    uint64 `json:"base,omitempty"` // the load bias: a PIE's or an interpreter's fixed base
}

// Clock says where the guest's time came from.
type Clock struct {
	Mode string `json:"mode"` // "host" or "fixed" (--fixed-clock)
	// Under a fixed clock: the first value and the step in nanoseconds (a
	// table's last step), or the table's file, SHA-256 and length.
	StartNs     *int64 `json:"start_ns,omitempty"`
	StepNs      int64  `json:"step_ns,omitempty"`
	Table       string `json:"table,omitempty"`
	TableSHA256 string `json:"table_sha256,omitempty"`
	TableValues int    `json:"table_values,omitempty"`
	// CounterHz is the nominal frequency of the CPU's counter (rdtsc on
	// x86-64, CNTVCT_EL0 on arm64).
	CounterHz uint64 `json:"counter_hz"`
}

// ClockUse is how often the guest read its clock and slept.
type ClockUse struct {
	// Reads of any clock, in all and by source: a system call (with the
	// clock id for clock_gettime) or a counter instruction (rdtsc, ...).
	Reads         uint64            `json:"reads"`
	ReadsBySource map[string]uint64 `json:"reads_by_source,omitempty"`
	// TableRanOut says that the guest read past a clock table's end.
	TableRanOut bool `json:"table_ran_out,omitempty"`
	// Sleeps the guest made and the virtual time they advanced the fixed
	// clock by.
	Sleeps  uint64 `json:"sleeps,omitempty"`
	SleptNs int64  `json:"slept_ns,omitempty"`
}

// Exit is how the run ended.
type Exit struct {
	// Status is the exit status icount reports for the guest: its own
	// status, or 128+signal when it was killed by a fault.
	Status   int    `json:"status"`
	Signal   string `json:"signal,omitempty"` // SIGSEGV, ... when a fault ended it
	Message  string `json:"message,omitempty"`
	Complete bool   `json:"complete"` // false when icount stopped the guest early
	// Reason says why an incomplete run stopped.
	Reason StopReason `json:"reason,omitempty"`
	// Backtrace names the callers where the guest faulted or was stopped,
	// innermost first, from the calling-context tree's call stack;
	// FramesMore counts the frames beyond it left out.
	Backtrace  []Frame `json:"backtrace,omitempty"`
	FramesMore int     `json:"frames_more,omitempty"`
}

// CallNode is one node of the calling-context tree: a function reached by
// one path of calls from the root (the function execution starts in).
type CallNode struct {
	Parent    int    `json:"parent"` // index in the tree; the root's is -1
	Function  string `json:"function"`
	Module    string `json:"module,omitempty"`
	Self      uint64 `json:"self"`      // instructions in this context's own code
	Inclusive uint64 `json:"inclusive"` // self plus every descendant's
	Calls     uint64 `json:"calls"`
	// Process is the entry of Profile.Processes whose tree this node is
	// in: each entry's tree has its own root (Parent -1).
	Process int `json:"process,omitempty"`
	// Call is where its parent called it (or jumped into it), with
	// per-line attribution: a run with it has a node for each call site
	// of a function in a context. Nil for a root, and without per-line
	// attribution, where the tree has a node per function called in a
	// context.
	Call *CallSite `json:"call,omitempty"`
}

// CallSite is the instruction that entered a function: its address and
// its source position (Position: an index in Profile.Positions, -1 if not
// known). A call, or with Jump the last instruction of the block that
// jumped (a tail call) or fell into it.
type CallSite struct {
	Addr     uint64 `json:"addr"`
	Position int    `json:"position"`
	Jump     bool   `json:"jump,omitempty"`
}

// Region says what --collect counted: only the dynamic extent of these
// functions; the rest is reported apart.
type Region struct {
	Functions           []string `json:"functions"`
	OutsideInstructions uint64   `json:"outside_instructions"`
	OutsideBlocks       uint64   `json:"outside_blocks"`
}

// Sources lists the reads by source, most first:
// "clock_gettime(CLOCK_MONOTONIC) 4, rdtsc 2".
func (m ClockUse) Sources() string {
	keys := make([]string, 0, len(m.ReadsBySource))
	for k := range m.ReadsBySource {
		keys = append(keys, k)
	}
	by := m.ReadsBySource
	sort.Slice(keys, func(i, j int) bool {
		if by[keys[i]] != by[keys[j]] {
			return by[keys[i]] > by[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, by[k])
	}
	return strings.Join(parts, ", ")
}

// Add adds o's counts to m's.
func (m *Mix) Add(o Mix) {
	m.Loads += o.Loads
	m.Stores += o.Stores
	m.Branches += o.Branches
	m.Calls += o.Calls
	m.Returns += o.Returns
	m.Syscalls += o.Syscalls
	m.SIMDFP += o.SIMDFP
	m.Other += o.Other
}

// Runs returns how many times each of the block's n instructions
// completed: every execution ran it, except those cut short at or before
// it.
func (b *BlockRuns) Runs(n int) []uint64 { return runs(b.Executions, b.Cuts, n) }

// Runs returns how many times each of the block's n instructions
// completed in the context.
func (c *BlockContext) Runs(n int) []uint64 { return runs(c.Executions, c.Cuts, n) }

func runs(executions uint64, cuts []Cut, n int) []uint64 {
	runs := make([]uint64, n)
	for i := range runs {
		runs[i] = executions
	}
	for _, c := range cuts {
		for i := max(c.Index, 0); i < n; i++ {
			runs[i] -= min(runs[i], c.Executions)
		}
	}
	return runs
}

// InsnAddr returns the address of the block's instruction i: from its
// Offsets, or the block's own address when it has none.
func (b *BlockRuns) InsnAddr(i int) uint64 {
	if i < len(b.Offsets) {
		return b.Addr + uint64(b.Offsets[i])
	}
	return b.Addr
}

// StopReason says why icount stopped a run before its end (Exit.Reason).
type StopReason string

// The reasons a run is incomplete.
const (
	StopInstructionLimit StopReason = "max-instructions" // --max-instructions
	StopTimeout          StopReason = "timeout"          // --timeout
	StopSIGINT           StopReason = "SIGINT"           // icount got SIGINT
	StopSIGTERM          StopReason = "SIGTERM"          // icount got SIGTERM
	StopUnsupported      StopReason = "unsupported"      // the guest needed what icount does not emulate
	StopDeadlock         StopReason = "deadlock"         // every guest thread waits for what none can do
	StopError            StopReason = "error"            // icount could not go on (an I/O error, ...)
	StopInternal         StopReason = "internal error"   // a Go panic in icount stopped the run (a bug)
)

// stopReasons are the reasons a saved Profile may give.
var stopReasons = map[StopReason]bool{StopInstructionLimit: true, StopTimeout: true, StopSIGINT: true,
	StopSIGTERM: true, StopUnsupported: true, StopDeadlock: true, StopError: true, StopInternal: true}

// Location is an address of the guest's code as icount names it: the
// function holding it (a symbol, or one found by the unwind tables and
// named module+0xoffset) and the offset into it, in its object.
type Location struct {
	Addr     uint64 `json:"addr"`
	Function string `json:"function,omitempty"` // "" when no function covers it
	Offset   uint64 `json:"offset,omitempty"`
	Module   string `json:"module,omitempty"`
}

// String is "function+0xoffset (module)", "function (module)" at its
// entry, "0xaddr (module)" where no function covers it.
func (l Location) String() string {
	var s string
	switch {
	case l.Function == "":
		s = fmt.Sprintf("%#x", l.Addr)
	case l.Offset == 0:
		s = l.Function
	default:
		s = fmt.Sprintf("%s+%#x", l.Function, l.Offset)
	}
	if l.Module != "" {
		s += " (" + l.Module + ")"
	}
	return s
}

// Frame is one line of a backtrace: the call site in a caller (the call
// before the return address it left), or innermost where the guest was.
type Frame struct {
	Location
	Jump   bool `json:"jump,omitempty"`   // the callee was entered by a jump (a tail call): Location is its caller's function
	Repeat int  `json:"repeat,omitempty"` // identical frames in a row (recursion), when more than one
}

// String is the location, with ", by a jump" and ", N times" as they apply.
func (f Frame) String() string {
	s := f.Location.String()
	if f.Jump {
		s += ", by a jump"
	}
	if f.Repeat > 1 {
		s += fmt.Sprintf(", %d times", f.Repeat)
	}
	return s
}
