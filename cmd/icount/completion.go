package main

import (
	"os"
	"strings"

	"github.com/icount-dev/icount/profile"
	"github.com/icount-dev/icount/report"
	"github.com/spf13/cobra"
)

// completeFlagValues gives shell completion the values of the flags that
// take names rather than files: --format's formats, and the baselines
// kept under .icount/ for --baseline and --save.
func completeFlagValues(root *cobra.Command) {
	for _, c := range root.Commands() {
		if c.Flags().Lookup("format") != nil {
			c.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(report.DiffFormats, cobra.ShellCompDirectiveNoFileComp))
		}
		for _, name := range []string{"baseline", "save"} {
			if c.Flags().Lookup(name) != nil {
				c.RegisterFlagCompletionFunc(name, completeBaselines)
			}
		}
	}
}

// completeBaselines lists the baselines kept under .icount/: NAME.json
// files and NAME directories (a suite's).
func completeBaselines(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	ents, _ := os.ReadDir(baselineDir)
	var names []string
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		if e.IsDir() {
			name, ok = e.Name(), true
		}
		if ok && report.ValidName(name) && strings.HasPrefix(name, toComplete) {
			names = append(names, name)
		}
	}
	return names, cobra.ShellCompDirectiveNoFileComp
}

// completeAnnotate completes annotate's arguments: the Profile is a file
// (a .json), the rest are the names of the functions it holds.
func completeAnnotate(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) == 0 {
		return []string{"json"}, cobra.ShellCompDirectiveFilterFileExt
	}
	p, err := profile.Read(args[0])
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var names []string
	for _, f := range p.Functions {
		if strings.HasPrefix(f.Name, toComplete) {
			names = append(names, f.Name)
		}
	}
	return names, cobra.ShellCompDirectiveNoFileComp
}
