package report

import (
	"fmt"
	"path"
	"strings"

	"github.com/icount-dev/icount/profile"
)

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
