package main

import (
	"fmt"
	"os"
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

func newSyscallsCmd() *cobra.Command {
	arch := "x86_64"
	cmd := &cobra.Command{
		Use:     "syscalls",
		Short:   "Print the system calls icount emulates, and how completely",
		Example: "  icount syscalls\n  icount syscalls --arch arm64",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			a := guestArchs[arch]
			rows := kernel.SupportMatrix(a)
			if rows == nil {
				return &exitError{exitUsage, fmt.Errorf("--arch %q: icount knows x86_64 (amd64) and aarch64 (arm64)", arch)}
			}
			w := tabwriter.NewWriter(os.Stdout, 0, 8, 2, ' ', 0)
			fmt.Fprintln(w, "NR\tNAME\tSUPPORT\tNOTE")
			for _, r := range rows {
				fmt.Fprintf(w, "%d\t%s\t%s\t%s\n", r.Nr, r.Name, r.Support, r.Note)
			}
			return w.Flush()
		},
	}
	cmd.Flags().StringVar(&arch, "arch", arch, "guest architecture: x86_64 (amd64) or aarch64 (arm64)")
	return cmd
}
