package main

// A Go panic inside icount while a guest runs: a bug in icount, reported
// as an internal error (status 70) with its stack kept in a file, and the
// counts so far written as a Profile marked incomplete.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/icount-dev/icount/atomicfile"
	"github.com/icount-dev/icount/count"
	"github.com/icount-dev/icount/emu"
	"github.com/icount-dev/icount/profile"
)

// runGuest is count.Run. A panic count.Run catches (in the emulator's
// hooks or its loop) comes back as an *emu.PanicError with the Profile so
// far; one that escapes it (while the Profile is made) as one without.
func runGuest(opts count.Options) (prof *profile.Profile, err error) {
	defer func() {
		if p := recover(); p != nil {
			prof, err = nil, emu.NewPanicError(p)
		}
	}()
	return count.Run(opts)
}

// panicOf is the panic that stopped a run, if one did.
func panicOf(err error) *emu.PanicError {
	var pe *emu.PanicError
	if errors.As(err, &pe) {
		return pe
	}
	return nil
}

// panicFile is where a panic's stack is kept: in the temporary directory,
// named by icount's pid, so that each crash has its own.
func panicFile() string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("icount-panic-%d.txt", os.Getpid()))
}

// panicLine keeps the panic's stack in panicFile and says, on one line,
// what happened (err, which may add where the guest was) and where the
// stack is.
func panicLine(pe *emu.PanicError, err error) string {
	file := panicFile()
	text := fmt.Sprintf("icount %s: %v\n\nicount's arguments: %q\n\n%s", icountVersion(), err, os.Args, pe.Stack)
	msg := strings.ReplaceAll(err.Error(), "\n", " ")
	if werr := atomicfile.WriteFile(file, []byte(text)); werr != nil {
		os.Stderr.Write(pe.Stack)
		return fmt.Sprintf("%s (a bug in icount; its stack is above: %v)", msg, werr)
	}
	return fmt.Sprintf("%s (a bug in icount; its stack is in %s)", msg, file)
}
