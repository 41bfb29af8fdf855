// Command icount runs a Linux executable under an emulated CPU and counts
// every instruction it retires, exactly and deterministically.
package main

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// Exit statuses of icount itself; any other status is the guest's.
const (
	exitUsage      = 2  // bad command line
	exitRegression = 3  // a comparison found a regression (diff, ab, run --baseline)
	exitNoVerdict  = 4  // a comparison could not give a verdict (diff, ab, run --baseline)
	exitInternal   = 70 // a bug in icount (a Go panic: its stack in a file)
	exitIOError    = 74 // the host refused to write an output (ENOSPC, EACCES, ...), as sysexits' EX_IOERR
	// exitInstructionLimit: --max-instructions stopped the guest.
	exitInstructionLimit = 123
	exitDeadlock         = 122 // every guest thread waits for what none can do
	exitUnsupported      = 125 // the guest needed something icount does not emulate
	exitCannotRun        = 126 // the file is not an executable icount can run
	exitNotFound         = 127 // the file does not exist
)

// exitError carries an exit status out of a command.
type exitError struct {
	status int
	err    error // printed once, with the prefix; nil when already reported
}

func (e *exitError) Error() string { return fmt.Sprint(e.err) }

// gcPercent is the garbage collector's target: icount's heap is small
// beside the guest's memory, and a run of many processes makes garbage
// at every one's end.
const gcPercent = 400

func main() {
	if len(os.Args) > 1 && os.Args[1] == "run" {
		catchStopSignals()
	}
	debug.SetGCPercent(gcPercent)
	root := newRootCmd()
	err := root.Execute()
	if err == nil {
		return
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			sayError(ee.err)
		}
		os.Exit(ee.status)
	}
	sayError(err)
	os.Exit(exitUsage)
}

// sayError prints err on stderr, each of its lines under icount's prefix.
func sayError(err error) {
	fmt.Fprintf(os.Stderr, "icount: %s\n", strings.ReplaceAll(err.Error(), "\n", "\nicount: "))
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "icount",
		Short: "Count the instructions a Linux program executes, exactly and deterministically",
		Long: `icount runs a Linux ELF executable (x86-64 or aarch64) on an emulated CPU and counts
every instruction it retires and every translated block it runs. The count is
bit-identical on any machine, under any load.`,
		Example: `  icount run ./bench                     # count, summary on stderr
  icount run --json prof.json ./bench    # also save the whole Profile
  icount diff base.json head.json        # compare two saved runs
  icount help exit-codes                 # what icount's exit statuses mean
  source <(icount completion bash)       # shell completion (also zsh, fish, powershell)`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// A word that names no command gets suggestions (unknownCommand).
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			return unknownCommand(cmd, args[0])
		},
	}
	root.SetFlagErrorFunc(flagError)
	root.AddCommand(newRunCmd(), newDiffCmd(), newABCmd(), newAnnotateCmd(), newReportCmd(), newVersionCmd(), newSyscallsCmd(), newExitCodesCmd())
	completeFlagValues(root)
	return root
}
