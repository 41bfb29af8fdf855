package emu

import "errors"

// errUsedUp is the error of an Engine made a CPU already.
var errUsedUp = errors.New("emu: the engine was made a CPU already")

// An Engine is an emulator made ahead of its program: the emulator's own
// start-up (a few milliseconds, most of them the host's first touches of
// the memory Unicorn sets up) runs on a goroutine of its own while icount
// reads the program, and the CPU made from it is New's. Unicorn's state
// belongs to no thread: the thread that made it need not be the one that
// runs it.
type Engine struct {
	arch Arch
	done chan struct{}
	c    *CPU
	err  error
}

// Prepare starts making an emulator for arch, with the default translation
// buffer, and returns at once. For x86-64 it also starts the probe of the
// CPU state (x86StateOnce), which runs on a scratch engine of its own:
// the CPU made from the engine waits for it.
func Prepare(arch Arch) *Engine {
	e := &Engine{arch: arch, done: make(chan struct{})}
	if arch == X86_64 {
		go x86StateOnce()
	}
	go func() {
		defer close(e.done)
		e.c, e.err = open(arch, DefaultCodeBuffer)
	}()
	return e
}

// Fits tells whether the engine can be made a CPU for arch with opts (a
// nil Engine fits nothing).
func (e *Engine) Fits(arch Arch, opts Options) bool {
	return e != nil && e.arch == arch && (opts.CodeBuffer == 0 || opts.CodeBuffer == DefaultCodeBuffer)
}

// CPU waits for the emulator and makes it a CPU with hooks and opts, as
// New(arch, hooks, opts) would; opts must fit. The engine is used up, even
// on an error.
func (e *Engine) CPU(hooks Hooks, opts Options) (*CPU, error) {
	<-e.done
	c, err := e.c, e.err
	e.c, e.err = nil, errUsedUp
	return started(c, err, hooks, opts)
}

// Close waits for the emulator and releases it unless it was made a CPU.
// A nil Engine is closed already.
func (e *Engine) Close() {
	if e == nil {
		return
	}
	<-e.done
	if e.c != nil {
		e.c.Close()
		e.c = nil
	}
}
