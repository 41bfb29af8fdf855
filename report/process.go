package report

import (
	"fmt"
	"path"
	"strings"

	"github.com/icount-dev/icount/profile"
)

// firstPID is the pid icount gives the first process.
const firstPID = 1000

// processes is the Profile's process tree: its Processes, or for a
// Profile without them (one read from schema icount/1, or built by hand)
// one entry made of the run's own fields.
func processes(p *profile.Profile) []profile.Process {
	if len(p.Processes) > 0 {
		return p.Processes
	}
	return []profile.Process{soleProcess(p)}
}

// soleProcess is the one entry of a run recorded without a process tree:
// the first process, with the run's argv, binary, exit and counts.
func soleProcess(p *profile.Profile) profile.Process {
	exit := profile.ProcessExit{Status: p.Exit.Status, Signal: p.Exit.Signal, Running: !p.Exit.Complete}
	return profile.Process{PID: firstPID, Parent: -1, Argv: p.Meta.Args, Binary: p.Meta.Binary, Exit: exit,
		Totals: p.Totals, Syscalls: p.Syscalls, Threads: p.Threads, Functions: p.Functions}
}

// processName is what a process is called for short: its argv[0]'s base
// name, else its binary's, else its pid.
func processName(pr profile.Process) string {
	for _, s := range []string{firstArg(pr.Argv), pr.Binary.Path} {
		if s != "" {
			return path.Base(s)
		}
	}
	return fmt.Sprintf("pid%d", pr.PID)
}

func firstArg(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	return argv[0]
}

// maxArgv bounds a command line as the reports show it.
const maxArgv = 48

// argvLine is a process's command line on one line, its program by its
// base name, cut at maxArgv characters.
func argvLine(pr profile.Process) string {
	words := append([]string{processName(pr)}, pr.Argv[min(1, len(pr.Argv)):]...)
	s := []rune(oneLine(strings.Join(words, " ")))
	if len(s) > maxArgv {
		s = append(s[:maxArgv-3], []rune("...")...)
	}
	return string(s)
}

// exitText says how one program of the run ended.
func exitText(e profile.ProcessExit) string {
	switch {
	case e.Exec:
		return "exec"
	case e.Running:
		return "running"
	case e.Signal != "":
		return "killed by " + e.Signal
	}
	return fmt.Sprintf("exit %d", e.Status)
}
