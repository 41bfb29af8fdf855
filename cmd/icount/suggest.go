package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// maxEdits is how far a mistyped name may be from a suggestion: two
// characters inserted, removed or changed (as cobra suggests commands).
const maxEdits = 2

// suggest lists the candidates typed may have meant: those within
// maxEdits edits of it, or starting with it; closest first.
func suggest(typed string, candidates []string) []string {
	type near struct {
		name  string
		edits int
	}
	var found []near
	for _, c := range candidates {
		d := editDistance(strings.ToLower(typed), strings.ToLower(c))
		if d <= maxEdits || len(typed) >= 2 && strings.HasPrefix(c, typed) {
			found = append(found, near{c, d})
		}
	}
	slices.SortStableFunc(found, func(a, b near) int { return a.edits - b.edits })
	names := make([]string, len(found))
	for i, f := range found {
		names[i] = f.name
	}
	return names
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// didYouMean is "; did you mean X?" or "; did you mean X or Y?" for the
// first suggestions, each with prefix; "" for none.
func didYouMean(prefix string, names []string) string {
	if len(names) == 0 {
		return ""
	}
	names = names[:min(len(names), 3)]
	for i, n := range names {
		names[i] = prefix + n
	}
	if len(names) == 1 {
		return "; did you mean " + names[0] + "?"
	}
	return "; did you mean " + strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1] + "?"
}

// flagError is every command's answer to a flag it cannot parse: the
// error, what a mistyped flag may have meant, and where the flags are
// listed.
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	var ne *pflag.NotExistError
	if errors.As(err, &ne) {
		typed := ne.GetSpecifiedName()
		if group := ne.GetSpecifiedShortnames(); len(group) > 1 {
			typed = group // -json for --json
		}
		msg += didYouMean("--", suggest(typed, flagNames(cmd.Flags())))
	}
	return &exitError{exitUsage, fmt.Errorf("%s (see '%s --help')", msg, cmd.CommandPath())}
}

// unknownCommand is the root command's answer to a word that names no
// command: what it may have meant.
func unknownCommand(root *cobra.Command, typed string) error {
	var names []string
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	hint := didYouMean("", suggest(typed, names))
	if hint == "" {
		hint = fmt.Sprintf(" (to count a program: icount run %s)", typed)
	}
	return &exitError{exitUsage, fmt.Errorf("unknown command %q%s", typed, hint)}
}
