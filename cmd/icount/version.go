package main

import (
	"fmt"
	"runtime"

	"github.com/icount-dev/icount/emu"
	"github.com/spf13/cobra"
)

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the versions of icount, Unicorn and Go",
		Example: "  icount version",
		Args:    cobra.NoArgs,
		Run: func(cmd *cobra.Command, args []string) {
			fmt.Printf("icount %s\nunicorn %s\n%s\n", version, emu.Version(), runtime.Version())
		},
	}
}
