package kernel

import (
	"errors"
	"fmt"
	"strconv"

	"golang.org/x/sys/unix"
)

// Errno is an error number returned to the guest. Handlers return it as a
// Go error; dispatch turns it into the guest's -errno once.
type Errno = unix.Errno

// errnoOf converts a host error to the errno the guest sees.
func errnoOf(err error) Errno {
	var e unix.Errno
	if errors.As(err, &e) {
		return e
	}
	return unix.EIO
}

// UnsupportedError stops the run: the guest made a system call, or used an
// argument, that icount does not emulate.
type UnsupportedError struct {
	Name string
	Nr   uint64
	PC   uint64
	What string // what of the call is unsupported, if not the call itself
}

func (e *UnsupportedError) Error() string {
	if e.What != "" {
		return fmt.Sprintf("system call %s (%d) at pc %#x uses %s, which icount does not emulate (see 'icount syscalls')", e.Name, e.Nr, e.PC, e.What)
	}
	return fmt.Sprintf("system call %s (%d) at pc %#x is not emulated by icount (see 'icount syscalls')", e.Name, e.Nr, e.PC)
}

// errUnsupported is returned by a handler for an argument it does not
// emulate; dispatch turns it into an UnsupportedError naming the call.
type errUnsupported string

func (e errUnsupported) Error() string { return string(e) }

func itoa(v uint64) string { return strconv.FormatUint(v, 10) }
