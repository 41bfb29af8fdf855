package loader

import "fmt"

// Problem classifies why an executable cannot be run.
type Problem int

// Problems, each with its own exit status in cmd/icount.
const (
	NotFound    Problem = iota + 1 // the path does not exist
	NotRunnable                    // exists but is not an ELF executable icount can run
	Unsupported                    // a valid ELF of a kind icount does not run (yet)
)

// Error is a problem with the executable a user gave, naming the file.
type Error struct {
	Path    string
	Problem Problem
	Msg     string // what is wrong, and what to do about it
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Path, e.Msg) }

func errorf(path string, p Problem, format string, args ...any) *Error {
	return &Error{Path: path, Problem: p, Msg: fmt.Sprintf(format, args...)}
}
