package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

const exitCodesHelp = `icount exits with the guest's own exit status when the guest runs to its end.
Otherwise:

  128+N  the guest was killed by signal N, as a shell reports it: a fault
         with no handler (139 SIGSEGV, 132 SIGILL, 136 SIGFPE, 135 SIGBUS,
         133 SIGTRAP); the message names the signal, the address, the
         instruction, the function and its callers
  143    icount got SIGTERM: it stopped the guest at the next block and
         wrote the Profile, marked incomplete (reason "SIGTERM")
  130    icount got SIGINT (Ctrl-C): the same (reason "SIGINT"). A second
         SIGINT or SIGTERM within a second of the first is the same
         request (timeout(1) signals the child, then its process group);
         one later than that exits at once, writing nothing
  127    the executable, or its interpreter (PT_INTERP), does not exist;
         a library the dynamic linker cannot find ends the guest with
         ld.so's message and its status, 127, as natively
  126    the file is not an executable icount can run (not ELF, 32-bit,
         another architecture, not executable, a script, ...), or its
         segments alone map more than --max-memory allows (refused before
         anything is mapped, as Linux's exec under ulimit -v)
  125    icount stopped the guest: it made a system call or used a feature
         icount does not emulate (a new process: fork), or it would wait
         forever on a pipe only it holds
  124    --timeout stopped the guest after that much wall-clock time; the
         Profile is marked incomplete (reason "timeout")
  122    deadlock: every thread of the guest waits (on a futex, a pipe, ...)
         with no deadline, and none can wake another; the message lists
         each thread and where it waits
  123    --max-instructions stopped the guest after exactly that many
         instructions; the Profile is marked incomplete
  74     the host refused a file operation: an output could not be
         written (ENOSPC, EACCES, EROFS, EDQUOT, EFBIG, ...), or the run's
         own /tmp could not be made under $TMPDIR. Each output is written to a
         temporary file beside it and renamed into place, so the previous
         file is left as it was; the other outputs are still written, each
         failure is reported on a line of its own, and 74 replaces the
         status the run would have had
  70     an internal error in icount, a bug: a Go panic while the guest ran
         writes the Profile so far, marked incomplete (reason "internal
         error"), and its stack to a file the message names
         (icount-panic-PID.txt in $TMPDIR, or /tmp); the emulator
         reporting a memory error that icount's memory never gives it
         stops the run too (the Profile so far, reason "error"), since the
         guest's state is then not known
  5      a benchmark of a suite (run --suite, ab) failed: its program
         exited other than 0 or was killed by a signal, and icount stopped
         or refused none (see below)
  4      no verdict: a comparison (icount diff, icount ab, icount run
         --baseline) could not compare the runs; the report says why.
         --allow-no-verdict accepts it as 0
  3      a comparison found a regression: a gate failed (icount diff, icount
         ab, icount run --baseline); an improvement exits 0
  2      the command line is wrong, or an input it names (a Profile, the
         gate file, a suite file) is missing or malformed. icount run checks
         before the guest starts that every output can be written (--json,
         --pprof, --callgrind, --bench-out, --save's .icount/), that the
         --baseline Profile and the gate file load, and that no limit rules
         the run out (a negative --timeout, a fixed clock that would
         overflow)

Limits the guest meets as it would under the kernel's own limits do not
stop it: past --max-memory a mapping fails with ENOMEM, and past 1024 open
files open fails with EMFILE; the guest decides what to do, and the summary
warns of refused memory. A guest stopped by SIGTERM or --timeout while it
is blocked in a system call (reading a terminal, say) that does not return
within 5 s is not waited for: icount exits with the same status and writes
nothing.

icount ab exits 126 when a build fails or does not produce the binary; 130
after SIGINT or SIGTERM.

A suite (run --suite, ab --suite, and ab --bin, a suite of one) never exits
with a benchmark's own status, which could read as icount's (3): when a
benchmark did not run to its end, the status is that of the first one
icount stopped or refused (124 a timeout, 127 a missing binary, 126
arguments over Linux's limits, 2 a missing stdin file, 70 an error in
icount, ...), else 5: a benchmark's program exited other than 0 or was
killed by a signal. It outranks the comparison's verdict; the suite's table
says how each benchmark ended.

Guest exit statuses that equal one of these are not told apart from them:
the summary line on stderr says which it was.`

func newExitCodesCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "exit-codes",
		Short: "Explain icount's exit statuses (also: icount help exit-codes)",
		Long:  exitCodesHelp,
		Example: `  icount exit-codes
  icount help exit-codes
  icount run ./bench; echo "status $?"`,
		Args: cobra.NoArgs,
		Run:  func(cmd *cobra.Command, args []string) { fmt.Println(exitCodesHelp) },
	}
}
