package main

// icount's own version: what `icount version` prints and every Profile
// records (meta.icount_version), so that two builds compare as different.

import (
	"fmt"
	"regexp"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/icount-dev/icount/emu"
	"github.com/spf13/cobra"
)

// version may be set at build time with -ldflags "-X main.version=...":
// icountVersion gives it when the build recorded neither a module version
// nor a VCS revision.
var version string

// pseudoVersion matches the version Go gives an untagged commit
// (v0.0.0-20240102150405-0123456789ab): the revision says it better.
var pseudoVersion = regexp.MustCompile(`-(\d+\.)?\d{14}-[0-9a-f]{12}(\+dirty)?$`)

// icountVersion is icount's version, worked out once.
var icountVersion = sync.OnceValue(func() string {
	info, _ := debug.ReadBuildInfo()
	return versionOf(info, version)
})

// versionOf is the version a build says it is: the module's tagged
// version (go install ...@v1.2.0); else the VCS revision, its first 12
// digits, with "-dirty" for a build from a modified tree; else the version
// set with -ldflags; else "devel" with what the build does record (a go
// test binary has no VCS information).
func versionOf(info *debug.BuildInfo, ldflags string) string {
	if info == nil {
		if ldflags != "" {
			return ldflags
		}
		return "devel (no build information)"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" && !pseudoVersion.MatchString(v) {
		return v
	}
	var rev string
	var modified bool
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev != "" {
		rev = rev[:min(len(rev), 12)]
		if modified {
			rev += "-dirty"
		}
		return rev
	}
	if ldflags != "" {
		return ldflags
	}
	return fmt.Sprintf("devel (%s, built with %s without VCS information)", info.Main.Path, info.GoVersion)
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the versions of icount, Unicorn and Go",
		Example: "  icount version",
		Args:    cobra.NoArgs,
		Run: func(cmd *cobra.Command, args []string) {
			fmt.Printf("icount %s\nunicorn %s\n%s\n", icountVersion(), emu.Version(), runtime.Version())
		},
	}
}
