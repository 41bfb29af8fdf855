package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/icount-dev/icount/emu"
	"github.com/icount-dev/icount/kernel"
	"github.com/spf13/cobra"
)

// guestArchs names the guest architectures, by the kernel's and by
// Debian's and Go's names.
var guestArchs = map[string]emu.Arch{
	"x86_64": emu.X86_64, "amd64": emu.X86_64,
	"aarch64": emu.ARM64, "arm64": emu.ARM64,
}

// matrixArchs are the columns of the support matrix, in order.
var matrixArchs = []emu.Arch{emu.X86_64, emu.ARM64}

func newSyscallsCmd() *cobra.Command {
	arch := ""
	cmd := &cobra.Command{
		Use:   "syscalls",
		Short: "Print the system calls icount emulates, and how completely",
		Long: "Print icount's system-call table: each call with its number on each guest arch (- where the\n" +
			"arch lacks it), its support level and a note, then how many calls each arch has at each\n" +
			"level. Levels: full; partial (other forms stop the run, named); enosys and refused\n" +
			"(answered on purpose with the errno Linux gives where the facility is absent or the\n" +
			"caller unprivileged); no (the run stops, naming the call).",
		Example: "  icount syscalls\n  icount syscalls --arch arm64",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			archs := matrixArchs
			if arch != "" {
				a, ok := guestArchs[arch]
				if !ok {
					return &exitError{exitUsage, fmt.Errorf("--arch %q: icount knows x86_64 (amd64) and aarch64 (arm64)", arch)}
				}
				archs = []emu.Arch{a}
			}
			return printSyscalls(os.Stdout, archs)
		},
	}
	cmd.Flags().StringVar(&arch, "arch", arch, "only this guest architecture's calls: x86_64 (amd64) or aarch64 (arm64)")
	return cmd
}

// printSyscalls writes the table's rows that archs have, a number column
// per arch, ordered by the first arch's numbers (then the rest's), and
// the count of each arch's calls at each support level.
func printSyscalls(out io.Writer, archs []emu.Arch) error {
	var rows []kernel.Call
	for _, c := range kernel.Calls() {
		for _, a := range archs {
			if c.Nr(a) >= 0 {
				rows = append(rows, c)
				break
			}
		}
	}
	order := func(c kernel.Call) int {
		for i, a := range archs {
			if nr := c.Nr(a); nr >= 0 {
				return i<<16 | nr
			}
		}
		return 0
	}
	slices.SortStableFunc(rows, func(x, y kernel.Call) int { return order(x) - order(y) })

	w := tabwriter.NewWriter(out, 0, 8, 2, ' ', 0)
	head := []string{}
	for _, a := range archs {
		head = append(head, strings.ToUpper(a.String()))
	}
	fmt.Fprintf(w, "%s\tNAME\tSUPPORT\tNOTE\n", strings.Join(head, "\t"))
	for _, c := range rows {
		nrs := []string{}
		for _, a := range archs {
			nrs = append(nrs, "-")
			if nr := c.Nr(a); nr >= 0 {
				nrs[len(nrs)-1] = strconv.Itoa(nr)
			}
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", strings.Join(nrs, "\t"), c.Name, c.Support, c.Note)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(out)
	levels := []kernel.Support{kernel.Full, kernel.Partial, kernel.Refused, kernel.ENOSYS, kernel.None}
	for _, a := range archs {
		count := map[kernel.Support]int{}
		total := 0
		for _, c := range rows {
			if c.Nr(a) >= 0 {
				count[c.Support]++
				total++
			}
		}
		parts := []string{}
		for _, l := range levels {
			parts = append(parts, fmt.Sprintf("%d %s", count[l], l))
		}
		answered := total - count[kernel.None]
		_, err := fmt.Fprintf(out, "%s: %d calls: %s; %d emulated or answered on purpose\n", a, total, strings.Join(parts, ", "), answered)
		if err != nil {
			return err
		}
	}
	return nil
}
