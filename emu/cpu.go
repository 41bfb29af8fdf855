package emu

/*
#cgo pkg-config: unicorn
#cgo CFLAGS: -O2 -Wall
#cgo LDFLAGS: -l:libunicorn.a -lm -lpthread -Wl,--as-needed -Wl,--wrap=mmap64 -Wl,--wrap=munmap -Wl,--wrap=memset -Wl,--wrap=tlb_reset_dirty_by_vaddr_x86_64 -Wl,--wrap=tlb_reset_dirty_by_vaddr_aarch64 -Wl,--wrap=qht_init -Wl,--wrap=qht_reset_size -Wl,--wrap=flatview_translate_x86_64 -Wl,--wrap=flatview_translate_aarch64 -Wl,--wrap=uc_mem_map -Wl,--wrap=uc_mem_map_ptr -Wl,--wrap=uc_mem_unmap -Wl,--wrap=uc_close -Wl,--wrap=g_hash_table_new_full -Wl,--wrap=g_hash_table_lookup -Wl,--wrap=tcg_func_start_x86_64 -Wl,--wrap=tcg_func_start_aarch64 -Wl,--wrap=tb_gen_code_x86_64 -Wl,--wrap=tb_gen_code_aarch64 -Wl,--wrap=uc_add_inline_hook_x86_64 -Wl,--wrap=uc_add_inline_hook_aarch64 -Wl,--wrap=uc_del_inline_hook_x86_64 -Wl,--wrap=uc_del_inline_hook_aarch64 -Wl,--wrap=qemu_madvise -Wl,--wrap=tlb_flush_x86_64 -Wl,--wrap=tlb_flush_aarch64 -Wl,--wrap=tcg_gen_qemu_ld_i32_x86_64 -Wl,--wrap=tcg_gen_qemu_ld_i64_x86_64 -Wl,--wrap=tcg_gen_qemu_st_i32_x86_64 -Wl,--wrap=tcg_gen_qemu_st_i64_x86_64 -Wl,--wrap=tcg_gen_qemu_ld_i32_aarch64 -Wl,--wrap=tcg_gen_qemu_ld_i64_aarch64 -Wl,--wrap=tcg_gen_qemu_st_i32_aarch64 -Wl,--wrap=tcg_gen_qemu_st_i64_aarch64
#include <stdlib.h>
#include "hotpath.h"
#include "fpstatus.h"
#include "fork.h"
*/
import "C"

import (
	"cmp"
	"errors"
	"fmt"
	"runtime/cgo"
	"sort"
	"sync"
	"unsafe"

	"github.com/icount-dev/icount/internal/radix"
)

// Arch is a guest architecture.
type Arch int

// The guest architectures icount emulates. The values match hotpath.c.
const (
	X86_64 Arch = 1
	ARM64  Arch = 2
)

func (a Arch) String() string {
	switch a {
	case X86_64:
		return "x86_64"
	case ARM64:
		return "aarch64"
	}
	return fmt.Sprintf("arch(%d)", int(a))
}

// Prot is a set of guest memory permissions.
type Prot uint32

// Memory permissions, as Unicorn numbers them.
const (
	ProtNone  Prot = C.UC_PROT_NONE
	ProtRead  Prot = C.UC_PROT_READ
	ProtWrite Prot = C.UC_PROT_WRITE
	ProtExec  Prot = C.UC_PROT_EXEC
	ProtAll   Prot = C.UC_PROT_ALL
)

// PageSize is the granularity of guest memory mappings.
const PageSize = 4096

// BlockEnd says how a block ends, for call tracking.
type BlockEnd uint32

// Block endings; the values match hotpath.h.
const (
	EndPlain        BlockEnd = C.IC_END_PLAIN // falls through or branches within its function
	EndCall         BlockEnd = C.IC_END_CALL
	EndReturn       BlockEnd = C.IC_END_RET
	EndIndirectJump BlockEnd = C.IC_END_IJMP
	// EndResume is the jump of Go's runtime.gogo, which resumes a goroutine
	// in a function it was running, on another stack.
	EndResume BlockEnd = C.IC_END_RESUME
)

// BlockInfo is what the decoder says of a block on first sight.
type BlockInfo struct {
	Instructions uint32
	Func         uint64 // entry address of the function holding it, 0 if unknown
	End          BlockEnd
	// Restart says that the decoder hooked an instruction of the block
	// (AddSite): this entry does not count, and the block runs again from
	// its start, translated with the hook. It is not kept.
	Restart bool
}

// Options choose what the hot path records besides block counts.
type Options struct {
	// Attribution keeps a calling-context tree: inclusive costs and call
	// stacks, at some cost per call and return.
	Attribution bool
	// Collect, with Attribution, counts only inside the dynamic extent of
	// the functions entered at these addresses.
	Collect []uint64
	// Cells, with Attribution, counts each block's executions per context
	// of the tree (CPU.Cells): what each context ran, instruction by
	// instruction. It costs a lookup each time a block runs in another
	// context than the last time (an interpreter: some 30 % more time).
	Cells bool
	// MaxInstructions, if not 0, stops the guest after exactly this many
	// instructions: Run then returns ErrInstructionLimit.
	MaxInstructions uint64
	// CodeBuffer is the size in bytes of the buffer the emulator
	// translates code into, from MinCodeBuffer to MaxCodeBuffer; 0 means
	// DefaultCodeBuffer. When it fills, every translation is discarded
	// (the counts are not) and the code is translated again as it runs.
	CodeBuffer uint64
}

// The translation buffer's sizes (Options.CodeBuffer). The host reserves
// a buffer's address space whole, and gives it memory as code fills it;
// a flush gives that memory back (fork.c). DefaultCodeBuffer holds some
// 400,000 distinct blocks (a translated block takes about 650 bytes).
const (
	MinCodeBuffer     = 1 << 20
	MaxCodeBuffer     = 2 << 30
	DefaultCodeBuffer = 256 << 20
)

var errOOM = errors.New("emu: out of memory for the block table or the call tree")

// ErrInstructionLimit is returned by Run when the guest ran the number of
// instructions Options.MaxInstructions allowed.
var ErrInstructionLimit = errors.New("instruction limit reached")

// Hooks are the Go functions the CPU calls back into. NewBlock is called
// once per distinct translated block.
type Hooks struct {
	NewBlock func(id uint32, addr uint64, size uint32) BlockInfo
	Syscall  func() // x86-64 syscall instruction; RIP is at the instruction
	// Interrupt is called for a CPU exception (on arm64, svc is intno 2
	// with PC past it). It returns false for an exception it does not
	// handle: the run then stops with a FaultException.
	Interrupt func(intno uint32) bool
	// WholeBefore returns where the instructions from pc that end at or
	// below limit end: the first instruction from pc on that does not.
	// Without it, a block that runs into memory the guest may not execute
	// faults at its start.
	WholeBefore func(pc, limit uint64) uint64
	// InsnEnd returns where the instruction at pc ends, 0 if it cannot
	// tell: a store into its own code runs by itself, up to there.
	InsnEnd func(pc uint64) uint64
	// ClientRequest answers a client request (SiteClientRequest): args is
	// the address of its words, def its default value; it returns the
	// result. Without it every request gets its default, as on hardware.
	ClientRequest func(args, def uint64) uint64
	// Probe is called before the instruction of a SiteProbe at pc runs.
	Probe func(pc uint64)
	// Function returns the entry of the function holding pc, 0 if none
	// is known (the call tree's, as a new block's BlockInfo.Func).
	Function func(pc uint64) uint64
}

// CPU is one emulated CPU with its memory.
type CPU struct {
	arch   Arch
	model  string
	uc     *C.uc_engine
	st     *C.ic_state
	mem    *C.ic_mem
	handle cgo.Handle
	hooks  Hooks

	// counter serves the instructions that read the CPU's counter.
	counter counterHooks
	// sites are the instructions the decoder hooked (sites.go).
	sites siteTable
	// exception is the unhandled CPU exception number + 1, 0 for none.
	exception uint32
	// panicked holds a panic raised in a Go hook, returned as the run's
	// error, so that a Go panic never unwinds through C frames.
	panicked *PanicError
	// ctl serves other goroutines: Interrupt and Executed (stop.go).
	ctl control
	// slice bounds each run once the guest has several threads (thread.go).
	slice slicing
	// exit is the address the emulator stops at (setExit), 0 for none.
	exit uint64
	// reset is the registers as they were when the engine was made.
	reset *C.uc_context
	// variant is the block hook installed.
	variant hookVariant
}

// Error is an error returned by Unicorn.
type Error struct {
	Op   string
	Code int
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s", e.Op, C.GoString(C.uc_strerror(C.uc_err(e.Code))))
}

func check(op string, err C.uc_err) error {
	if err == C.UC_ERR_OK {
		return nil
	}
	return &Error{Op: op, Code: int(err)}
}

// Version returns the version of the linked Unicorn library.
func Version() string {
	var major, minor C.uint
	v := C.uc_version(&major, &minor)
	return fmt.Sprintf("%d.%d.%d", major, minor, (v>>8)&0xff)
}

// New creates a CPU for arch with every hook installed, ready to map memory.
func New(arch Arch, hooks Hooks, opts Options) (*CPU, error) {
	c, err := open(arch, opts.CodeBuffer)
	return started(c, err, hooks, opts)
}

// started makes c, which open returned with err, a CPU with hooks and
// opts, closing it on an error.
func started(c *CPU, err error, hooks Hooks, opts Options) (*CPU, error) {
	if err != nil {
		return nil, err
	}
	if err := c.start(hooks, opts); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// open creates the engine of a CPU for arch, with its memory and every
// hook but the block hook, and keeps its registers as they are at reset
// (a spare's next CPU starts from them).
func open(arch Arch, codeBuffer uint64) (*CPU, error) {
	c := &CPU{arch: arch}
	var ucArch C.uc_arch
	var mode C.uc_mode
	var model C.int
	switch arch {
	case X86_64:
		ucArch, mode, model = C.UC_ARCH_X86, C.UC_MODE_64, C.UC_CPU_X86_QEMU64
		c.model = "qemu64"
	case ARM64:
		ucArch, mode, model = C.UC_ARCH_ARM64, C.UC_MODE_ARM, C.UC_CPU_ARM64_A72
		c.model = "cortex-a72"
	default:
		return nil, fmt.Errorf("emu: unsupported architecture %v", arch)
	}
	if err := check("uc_open", C.uc_open(ucArch, mode, &c.uc)); err != nil {
		return nil, err
	}
	if err := check("set cpu model", C.ic_set_cpu_model(c.uc, model)); err != nil {
		C.uc_close(c.uc)
		return nil, err
	}
	if codeBuffer == 0 {
		codeBuffer = DefaultCodeBuffer
	}
	if codeBuffer < MinCodeBuffer || codeBuffer > MaxCodeBuffer {
		C.uc_close(c.uc)
		return nil, fmt.Errorf("emu: a translation buffer of %d bytes: not from %d to %d", codeBuffer, MinCodeBuffer, MaxCodeBuffer)
	}
	// Before anything that initializes the engine, which sizes the buffer.
	if err := check("translation buffer size", C.ic_set_code_buffer(c.uc, C.uint32_t(codeBuffer))); err != nil {
		C.uc_close(c.uc)
		return nil, err
	}
	if err := check("translation buffer", C.ic_init_code_buffer(c.uc)); err != nil {
		C.uc_close(c.uc)
		return nil, err
	}
	execReads := C.int(0)
	if arch == X86_64 {
		execReads = 1
	}
	c.mem = C.ic_mem_new(c.uc, execReads)
	c.st = C.ic_new(c.uc, 0)
	if c.mem == nil || c.st == nil {
		c.Close()
		return nil, errors.New("emu: out of memory for the block table")
	}
	c.st.mem = c.mem
	if arch == X86_64 {
		x86StateOnce()
		if C.uc_context_alloc(c.uc, &c.st.scratch) != C.UC_ERR_OK {
			c.Close()
			return nil, errors.New("emu: out of memory for a CPU context")
		}
	}
	if err := check("virtual TLB", C.ic_mem_install(c.mem)); err != nil {
		c.Close()
		return nil, err
	}
	if err := check("exits", C.ic_set_exit(c.uc, 0)); err != nil {
		c.Close()
		return nil, err
	}
	if err := check("install hooks", C.ic_install_hooks(c.st, C.int(arch))); err != nil {
		c.Close()
		return nil, err
	}
	if err := c.installInsnHooks(); err != nil {
		c.Close()
		return nil, err
	}
	if arch == ARM64 {
		// FP/SIMD is disabled at reset: CPACR_EL1.FPEN = 0b11.
		if err := c.SetReg(ARM64CPACR, c.Reg(ARM64CPACR)|3<<20); err != nil {
			c.Close()
			return nil, err
		}
	}
	if err := check("save the registers at reset", C.uc_context_alloc(c.uc, &c.reset)); err != nil {
		c.Close()
		return nil, err
	}
	if err := check("save the registers at reset", C.uc_context_save(c.uc, c.reset)); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// start readies a CPU's hot path for a program: its Go side, the call
// tree and the instruction limit opts ask for, and the block hook that
// goes with them.
func (c *CPU) start(hooks Hooks, opts Options) error {
	c.hooks = hooks
	c.handle = cgo.NewHandle(c)
	c.st.handle = C.uintptr_t(c.handle)
	if opts.Attribution {
		roi := append([]uint64(nil), opts.Collect...)
		sort.Slice(roi, func(i, j int) bool { return roi[i] < roi[j] })
		var p *C.uint64_t
		if len(roi) > 0 {
			p = (*C.uint64_t)(C.malloc(C.size_t(8 * len(roi))))
			copy(unsafe.Slice((*uint64)(unsafe.Pointer(p)), len(roi)), roi)
			defer C.free(unsafe.Pointer(p))
		}
		if C.ic_enable_cct(c.st, C.int(c.spReg()), p, C.uint32_t(len(roi)), boolInt(opts.Cells)) != 0 {
			return errors.New("emu: out of memory for the calling-context tree")
		}
	}
	if opts.MaxInstructions != 0 {
		c.st.limited, c.st.budget = 1, C.uint64_t(opts.MaxInstructions)
	}
	if c.st.block_hook != 0 {
		// A spare's, which fits opts (Spare.Fits): a limited variant
		// limits nothing while limited is 0 (ic_reset's budget).
		return nil
	}
	c.variant = variantOf(opts)
	return check("install the block hook", C.ic_set_block_hook(c.st))
}

// A variant of the block hook (hotpath.c: IC_BLOCK_HOOKS): limited or
// not, and without a call tree, with one, or with one and a region, with
// cells or not.
type hookVariant struct{ limited, cct, roi, cells bool }

// variantOf is the variant of the block hook opts call for.
func variantOf(opts Options) hookVariant {
	return hookVariant{limited: opts.MaxInstructions != 0, cct: opts.Attribution, roi: opts.Attribution && len(opts.Collect) > 0,
		cells: opts.Attribution && opts.Cells}
}

// serves tells whether code translated with the block hook v calls one
// that serves a CPU that needs the variant want: the same but for a
// limit, which a limited variant can do without.
func (v hookVariant) serves(want hookVariant) bool {
	return v.cct == want.cct && v.roi == want.roi && v.cells == want.cells && (v.limited || !want.limited)
}

// x86MathFault is the x87 floating-point exception (#MF) a SiteX87 raises
// for an unmasked exception pending in the status word.
const x86MathFault = 16

// x86StateOnce finds, once, where the x86-64 CPU state keeps what
// Unicorn's API does not reach: the exception in flight (exception.c) and
// softfloat's exception flags (fpstatus.c).
var x86StateOnce = sync.OnceFunc(func() { C.ic_probe_x86() })

// FPFlagsKept says whether the x86-64 FP exception flags reach MXCSR and
// the x87 status word, and MXCSR.FZ applies to SSE (fpstatus.c): false
// only if this Unicorn's CPU state is not laid out as icount expects.
func FPFlagsKept() bool {
	x86StateOnce()
	return C.ic_fpstatus_known() != 0
}

// Arch returns the guest architecture.
func (c *CPU) Arch() Arch { return c.arch }

// Model names the emulated CPU model.
func (c *CPU) Model() string { return c.model }

// Close releases the emulator.
func (c *CPU) Close() {
	c.ctl.mu.Lock()
	defer c.ctl.mu.Unlock()
	if c.uc != nil {
		C.uc_close(c.uc)
		c.uc = nil
	}
	if c.st != nil {
		C.ic_free(c.st)
		c.st = nil
	}
	if c.reset != nil {
		C.uc_context_free(c.reset)
		c.reset = nil
	}
	c.freeSites()     // after uc_close: its hooks point at them
	if c.mem != nil { // after uc_close: the emulator maps its host memory
		C.ic_mem_free(c.mem)
		c.mem = nil
	}
	if c.handle != 0 {
		c.handle.Delete()
		c.handle = 0
	}
}

// PC returns the program counter.
func (c *CPU) PC() uint64 { return c.Reg(c.pcReg()) }

// Stop asks the CPU to stop after the current instruction; Run returns nil.
func (c *CPU) Stop() { C.uc_emu_stop(c.uc) }

// Fault describes why the guest stopped abnormally.
type Fault struct {
	PC      uint64 // the instruction that did not complete
	Kind    FaultKind
	Addr    uint64 // the data address for memory faults
	Write   bool   // the memory access was a write
	Intno   uint32 // the exception number, for FaultException
	Unicorn error  // Unicorn's own error
	// RanInto says that a FaultFetch was reached by running on from the
	// code before Addr, not by a jump; PC is then before Addr when the
	// instruction there straddles into it.
	RanInto bool
	// PastEOF says that the access was to a page of a file mapping past
	// the end of its file (CPU.PastEOF).
	PastEOF bool
}

// FaultKind classifies a fault.
type FaultKind int

// Kinds of fault.
const (
	FaultUnmapped    FaultKind = iota + 1 // read or write of unmapped memory
	FaultProtection                       // write to read-only or read of no-access memory
	FaultFetch                            // execution of unmapped or non-executable memory
	FaultInstruction                      // an instruction the CPU cannot execute
	FaultException                        // a CPU exception no hook handled (Intno)
	FaultPrivileged                       // an instruction a user program may not execute (a site refused it)
	FaultOther
)

func (f *Fault) Error() string {
	switch f.Kind {
	case FaultUnmapped:
		return fmt.Sprintf("access to unmapped address %#x at pc %#x", f.Addr, f.PC)
	case FaultProtection:
		return fmt.Sprintf("access to protected address %#x at pc %#x", f.Addr, f.PC)
	case FaultFetch:
		if f.RanInto {
			return fmt.Sprintf("execution at pc %#x ran into non-executable address %#x", f.PC, f.Addr)
		}
		return fmt.Sprintf("jump to non-executable address %#x", f.Addr)
	case FaultInstruction:
		return fmt.Sprintf("invalid instruction at pc %#x", f.PC)
	case FaultException:
		return fmt.Sprintf("CPU exception %d at pc %#x", f.Intno, f.PC)
	case FaultPrivileged:
		return fmt.Sprintf("privileged instruction at pc %#x", f.PC)
	}
	return fmt.Sprintf("emulation stopped at pc %#x: %v", f.PC, f.Unicorn)
}

// Locator completes a fault in block b (its ID, Addr and Size as the block
// table has them), which emu knows from the emulator's state without
// decoding instructions: it returns the instruction that faulted (f.PC,
// which is exact for a memory fault, but for an exception the CPU takes
// past its instruction) and how many instructions of the block, from it
// on, did not complete; for a memory fault, which the emulator reports by
// its page only, it sets f.Addr to the address the instruction accessed
// in that page.
type Locator func(b Block, f *Fault) (pc uint64, notRun uint32)

// Run runs the guest from pc until a hook calls Stop (nil), the guest
// faults (*Fault) or another goroutine calls Interrupt (its reason). On a
// fault, locate sets the faulting PC (also written to the CPU) and takes
// back the instructions of the current block that did not complete.
func (c *CPU) Run(pc uint64, locate Locator) (runErr error) {
	c.exception = 0
	c.clearRefusal()
	if reason := c.interrupted(); reason != nil {
		return reason
	}
	c.startSlice()
	defer func() {
		c.settleSites(runErr)
		c.endSlice(runErr)
	}()
	err, _, herr := c.emulate(pc, 0, locate) // no exit address: see ic_set_exit
	if herr != nil {
		return herr
	}
	if p := c.takePanic(); p != nil {
		return p
	}
	if c.st.oom != 0 {
		return errOOM
	}
	if !c.faulted(err) {
		if c.st.limit_hit != 0 {
			if err := c.SetReg(c.pcReg(), uint64(c.st.limit_pc)); err != nil {
				return err
			}
			if c.sliceUsedUp() {
				return ErrSliceEnd
			}
			return c.runToLimit(locate)
		}
		return c.stopped()
	}
	return c.fault(err, locate, 0)
}

// emulatorMemoryError tells whether err is one of Unicorn's own memory
// errors, which icount's memory never gives it: its TLB hook grants only
// pages of slabs mapped whole with every permission, and refuses any other
// access with UC_ERR_EXCEPTION at the exact instruction. Unicorn's store
// helper reports these after dropping a store, and the block runs on past
// it (the test it would have left by is not translated, exitcheck.c): no
// fault the guest could handle may come of one.
func emulatorMemoryError(err C.uc_err) bool {
	switch err {
	case C.UC_ERR_READ_UNMAPPED, C.UC_ERR_WRITE_UNMAPPED, C.UC_ERR_FETCH_UNMAPPED,
		C.UC_ERR_READ_PROT, C.UC_ERR_WRITE_PROT, C.UC_ERR_FETCH_PROT, C.UC_ERR_MAP:
		return true
	}
	return false
}

// faulted tells whether a run that returned err stopped at a fault: an
// error of Unicorn's, a CPU exception no hook handled, or an instruction a
// site refused.
func (c *CPU) faulted(err C.uc_err) bool {
	return err != C.UC_ERR_OK || c.exception != 0 || c.refused()
}

// fault describes why the guest stopped, locating the faulting
// instruction. budget is what an instruction limit still allows while
// runToLimit runs the last block (0 when the block hook enforces it).
func (c *CPU) fault(err C.uc_err, locate Locator, budget uint64) error {
	if emulatorMemoryError(err) {
		return fmt.Errorf("at pc %#x the emulator reported a memory error that icount's memory never gives it (%w): "+
			"a store may have been dropped and its block run on, so the guest's state is not known; "+
			"the run stops here (a bug in icount)", c.PC(), check("run", err))
	}
	f := &Fault{PC: c.PC(), Unicorn: check("run", err), Kind: FaultOther}
	if c.exception != 0 {
		f.Kind, f.Intno = FaultException, c.exception-1
	}
	if pc, kind, ok := c.takeRefusal(); ok {
		// A site refused its instruction (sites.go): the run stopped
		// before it.
		f.PC, f.Unicorn, f.Kind = pc, nil, FaultInstruction
		switch kind {
		case SitePrivileged:
			f.Kind = FaultPrivileged
		case SiteX87:
			f.Kind, f.Intno = FaultException, x86MathFault
		}
	}
	if err == C.UC_ERR_INSN_INVALID {
		f.Kind = FaultInstruction
	}
	if r := c.lastRefusal(); err == C.UC_ERR_EXCEPTION && r.ok {
		// The page table refused an access: the PC is at the instruction
		// that made it, and every instruction before it completed.
		f.Unicorn, f.Addr, f.Write = nil, r.page, r.typ == C.UC_MEM_WRITE
		f.PastEOF = r.value&C.IC_MAPPED != 0 && r.value&C.IC_BEYOND != 0
		switch {
		case r.typ == C.UC_MEM_FETCH:
			f.Kind = FaultFetch
		case r.value&C.IC_MAPPED == 0:
			f.Kind = FaultUnmapped
		default:
			f.Kind = FaultProtection
		}
	}
	if f.Kind == FaultFetch {
		if f.PC < f.Addr {
			return c.crossing(f, locate, budget)
		}
		// Nothing of the block at the target ran; the block that jumped
		// (or ran on) there completed.
		f.Addr = f.PC
		if b := c.st.cur; b != nil && uint64(b.addr)+uint64(b.size) == f.PC {
			f.RanInto = true
		}
		return f
	}
	if b := c.st.cur; b != nil && locate != nil {
		pc, n := locate(blockOf(b), f)
		if n > 0 {
			C.ic_cut(c.st, C.uint32_t(n))
		}
		f.PC = pc
		if err := c.SetReg(c.pcReg(), pc); err != nil {
			return err
		}
	}
	return f
}

// crossing ends a fetch fault in a block that runs from f.PC, executable,
// into the page at f.Addr, which is not (an x86-64 block may cross pages).
// The emulator ran nothing of the block, since it could not translate it
// whole; a CPU runs the instructions wholly before the page and faults at
// the next one, so those run now, to where the page starts.
func (c *CPU) crossing(f *Fault, locate Locator, budget uint64) error {
	end := f.PC
	if c.hooks.WholeBefore != nil {
		end = c.hooks.WholeBefore(f.PC, f.Addr)
	}
	if end > f.PC {
		c.exception = 0
		c.clearRefusal()
		if err := c.setExit(end); err != nil {
			return err
		}
		err, left, herr := c.emulate(f.PC, budget, locate)
		if err := c.setExit(0); err != nil {
			return err
		}
		if p := c.takePanic(); p != nil {
			return p
		}
		if herr != nil {
			return herr
		}
		switch {
		case c.st.oom != 0:
			return errOOM
		case budget != 0 && left == 0:
			return ErrInstructionLimit // used up by stores into code run by themselves
		case c.faulted(err):
			return c.fault(err, locate, left) // an instruction before the page faulted
		case c.st.limit_hit != 0:
			if err := c.SetReg(c.pcReg(), uint64(c.st.limit_pc)); err != nil {
				return err
			}
			if c.sliceUsedUp() {
				return ErrSliceEnd // the fault comes again when the thread runs on
			}
			return c.runToLimit(locate)
		case budget != 0:
			// Unicorn's count stopped the run if the limit falls within.
			if b := c.st.cur; b != nil && uint64(b.ninsn) >= left {
				C.ic_cut(c.st, C.uint32_t(uint64(b.ninsn)-left))
				return ErrInstructionLimit
			}
		}
		if c.PC() != end {
			return c.stopped() // Interrupt stopped the guest
		}
	}
	f.PC, f.RanInto = end, true
	if err := c.SetReg(c.pcReg(), end); err != nil {
		return err
	}
	return f
}

// setExit makes the emulator stop at the address at, 0 for none.
func (c *CPU) setExit(at uint64) error {
	if err := check("exits", C.ic_set_exit(c.uc, C.uint64_t(at))); err != nil {
		return err
	}
	c.exit = at
	return nil
}

// runToLimit runs the instructions the limit still allows of the block the
// hook stopped before, and takes back the rest of it. Unicorn's count
// argument stops after that many instructions once the block is translated
// again (hooks, and the count's, are compiled into translated code).
func (c *CPU) runToLimit(locate Locator) error {
	left := uint64(c.st.budget)
	c.st.limit_hit, c.st.limited, c.st.budget = 0, 0, C.uint64_t(^uint64(0))
	if left == 0 {
		return ErrInstructionLimit
	}
	pc := c.PC()
	page := pc &^ (PageSize - 1)
	if err := c.InvalidateCode(page, 2*PageSize); err != nil {
		return err
	}
	if reason := c.holdStops(true); reason != nil {
		c.holdStops(false)
		return reason
	}
	c.clearRefusal()
	before := c.Executed()
	err, rest, herr := c.emulate(pc, left, locate)
	c.holdStops(false)
	if herr != nil {
		return herr
	}
	if p := c.takePanic(); p != nil {
		return p
	}
	if !c.faulted(err) && rest == 0 {
		return ErrInstructionLimit // used up by stores into code run by themselves
	}
	if c.faulted(err) || c.st.cur == nil {
		// A fault within the instructions left: report it as any fault.
		// The guest may go on (a handler takes the fault) with what the
		// limit still allows, enforced by the block hook again.
		ferr := c.fault(err, locate, rest)
		ran := c.Executed() - before
		c.st.limited, c.st.budget = 1, C.uint64_t(left-min(ran, left))
		return ferr
	}
	// Exactly left instructions ran. A hook that moved the PC (an
	// emulated instruction) ended a block, so that more than one may have
	// been entered: what was counted past left is of the last.
	if counted := c.Executed() - before; counted > left {
		C.ic_cut(c.st, C.uint32_t(min(counted-left, uint64(c.st.cur.ninsn))))
	}
	return ErrInstructionLimit
}

// SignalEntered tells the call tree that the running thread was
// interrupted at pc by a signal, whose handler it runs next: the handler
// is entered as called from pc (cct.c: ic_cct_signal), returning to ret
// (the restorer its frame names).
func (c *CPU) SignalEntered(pc, ret uint64) {
	if c.st.nodes == nil {
		return
	}
	var fn uint64
	if c.hooks.Function != nil {
		fn = c.hooks.Function(pc)
	}
	C.ic_cct_signal(c.st, C.uint64_t(pc), C.uint64_t(fn), C.uint64_t(ret))
}

// SignalReturned tells the call tree that the running thread's innermost
// signal handler returned (rt_sigreturn).
func (c *CPU) SignalReturned() { C.ic_cct_sigreturn(c.st) }

// TrackGoroutines gives each goroutine of a Go program its own shadow
// stack in the call tree from the next resume by runtime.gogo on
// (goroutines.c): goexit0 is the entry of the program's runtime.goexit0,
// which a goroutine's end calls. Without the call tree it does
// nothing.
func (c *CPU) TrackGoroutines(goexit0 uint64) {
	g := X86R14 // Go's ABIInternal keeps the running g in R14 on amd64
	if c.arch == ARM64 {
		g = ARM64X28
	}
	C.ic_track_goroutines(c.st, C.int(g), C.uint64_t(goexit0))
}

func (c *CPU) spReg() Reg {
	if c.arch == X86_64 {
		return X86RSP
	}
	return ARM64SP
}

func (c *CPU) pcReg() Reg {
	if c.arch == X86_64 {
		return X86RIP
	}
	return ARM64PC
}

// Block is one translated block's counters, read back from C.
type Block struct {
	ID           uint32 // unique over the run, as given to Hooks.NewBlock
	Addr         uint64
	Size         uint32
	Instructions uint32 // per execution
	Executions   uint64
	Cut          uint64 // instructions that did not complete, over all executions
}

// Blocks returns a copy of the block table, by address: every block run,
// those whose code changed since among them.
func (c *CPU) Blocks() []Block {
	out := make([]Block, 0, int(c.st.nblocks))
	for b := range entries(c.st) {
		out = append(out, blockOf(b))
	}
	radix.SortFunc(out, func(b *Block) uint64 { return b.Addr }, func(a, b Block) int {
		return cmp.Or(cmp.Compare(a.Size, b.Size), cmp.Compare(a.ID, b.ID))
	})
	return out
}

// blockOf is the block table's entry b.
func blockOf(b *C.ic_block) Block {
	return Block{ID: uint32(b.id), Addr: uint64(b.addr), Size: uint32(b.size), Instructions: uint32(b.ninsn), Executions: uint64(b.execs), Cut: uint64(b.cut)}
}

// Node is one node of the calling-context tree: a function called in its
// parent's context, from one call site of it with Options.Cells.
type Node struct {
	Func   uint64 // entry address of its function
	Parent int    // index of the parent; the root (index 0) is its own
	// Site is where it was entered from, in its parent's code: the
	// return address of the call that entered it (the address after the
	// call instruction) or, Jumped, the end of the block whose last
	// instruction jumped or fell into it (a tail call); 0 for the root
	// and without Options.Cells.
	Site         uint64
	Jumped       bool
	Instructions uint64 // executed in its own code
	Calls        uint64
}

// CallTree returns a copy of the calling-context tree, root first, parents
// before children; nil without attribution or before the first block.
func (c *CPU) CallTree() []Node {
	if c.st.nodes == nil || c.st.depth == 0 {
		return nil
	}
	C.ic_cct_settle(c.st)
	nodes := unsafe.Slice(c.st.nodes, int(c.st.nnodes))
	out := make([]Node, len(nodes))
	for i, n := range nodes {
		site := uint64(n.site)
		out[i] = Node{Func: uint64(n._func), Parent: int(n.parent), Site: site &^ C.IC_SITE_JUMP, Jumped: site&C.IC_SITE_JUMP != 0,
			Instructions: uint64(n.insns), Calls: uint64(n.calls)}
	}
	return out
}

// Frame is one frame of the calling-context tree's shadow call stack.
type Frame struct {
	Func   uint64 // entry address of the function of the frame's node
	Ret    uint64 // where the call that entered the frame returns to; 0 if entered by a jump
	Repeat int    // how many identical frames in a row (recursion) it stands for
}

// Stack returns the shadow call stack as it is now, innermost frame
// first, identical frames in a row merged; nil without attribution.
// Below the tree's depth limit a frame's Func is that of the deepest node.
func (c *CPU) Stack() []Frame { return c.stackOf(c.st.frames, c.st.depth) }

// stackOf reads a shadow stack of depth frames.
func (c *CPU) stackOf(top *C.ic_frame, depth C.uint32_t) []Frame {
	if top == nil {
		return nil
	}
	var out []Frame
	frames := unsafe.Slice(top, int(depth))
	nodes := unsafe.Slice(c.st.nodes, int(c.st.nnodes))
	for i := len(frames) - 1; i >= 0; i-- {
		f := Frame{Func: uint64(nodes[frames[i].node]._func), Ret: uint64(frames[i].ret), Repeat: 1}
		if n := len(out); n > 0 && out[n-1].Func == f.Func && out[n-1].Ret == f.Ret {
			out[n-1].Repeat++
			continue
		}
		out = append(out, f)
	}
	return out
}

// Outside returns the instructions and block executions that fell outside
// the region collected.
func (c *CPU) Outside() (instructions, executions uint64) {
	return uint64(c.st.outside_insns), uint64(c.st.outside_execs)
}
