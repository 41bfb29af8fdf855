package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// defaultPath is what execvp searches when PATH is not set (glibc's
// confstr(_CS_PATH)).
const defaultPath = "/bin:/usr/bin"

// lookPath finds the program BINARY names, as execvp does: a name with a
// slash is a path and is returned as it is; a name without one is looked
// for in each directory of $PATH in turn (an empty entry is the current
// directory), the first executable regular file found. The Profile then
// records the path found.
func lookPath(name string) (string, error) {
	if name == "" || strings.Contains(name, "/") {
		return name, nil
	}
	path, ok := os.LookupEnv("PATH")
	if !ok {
		path = defaultPath
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if dir == "." {
			p = "./" + name
		}
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	hint := ""
	if _, err := os.Stat(name); err == nil {
		hint = fmt.Sprintf(" (to run the file in this directory: ./%s)", name)
	}
	return "", &exitError{exitNotFound, fmt.Errorf("%s: not found in PATH%s", name, hint)}
}

// noteOwnFlags warns on w when an argument after BINARY is one of
// command's own long flags (--json, --json=x.json): it goes to the
// program, not to icount, which is easy to miss.
func noteOwnFlags(w io.Writer, cmd *cobra.Command, args []string) {
	var own []string
	for _, a := range args[1:] {
		name, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if !strings.HasPrefix(a, "--") || name == "" || name == "help" || slices.Contains(own, "--"+name) {
			continue
		}
		if f := cmd.Flags().Lookup(name); f != nil {
			own = append(own, "--"+name)
		}
	}
	if len(own) > 0 {
		fmt.Fprintf(w, "icount: note: %s after %s %s passed to the program, not to icount; put icount's flags before %s\n",
			strings.Join(own, ", "), args[0], isAre(len(own)), args[0])
	}
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// needBinary is run's argument check: without a BINARY it prints the
// usage line and an example rather than cobra's count of arguments.
func needBinary(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return nil
	}
	return &exitError{exitUsage, fmt.Errorf("no program to run\nusage: %s\nexample: icount run ./bench --iterations 5   (see 'icount run --help')", cmd.UseLine())}
}

// flagNames lists the long names of a flag set's flags, for suggestions.
func flagNames(fs *pflag.FlagSet) []string {
	var names []string
	fs.VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	return names
}
