package main

import (
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"
)

// TestVersionOf: the version a build reports, from what it recorded.
func TestVersionOf(t *testing.T) {
	t.Parallel()
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	rev := "04719b425ab0e05f6456ce3819af51bdf277a4b2"
	mod := func(v string, s []debug.BuildSetting) *debug.BuildInfo {
		return &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/icount-dev/icount", Version: v}, Settings: s}
	}
	for _, c := range []struct {
		info    *debug.BuildInfo
		ldflags string
		want    string
	}{
		{mod("v1.2.0", nil), "", "v1.2.0"},                      // go install ...@v1.2.0
		{mod("v1.2.0", vcs(rev, "false")), "x", "v1.2.0"},       // a tagged checkout
		{mod("(devel)", vcs(rev, "false")), "", "04719b425ab0"}, // a go build before Go 1.24
		{mod("(devel)", vcs(rev, "true")), "", "04719b425ab0-dirty"},
		{mod("v0.0.0-20261201212301-04719b425ab0+dirty", vcs(rev, "true")), "", "04719b425ab0-dirty"},
		{mod("v1.2.1-0.20261201212301-04719b425ab0", vcs(rev, "false")), "", "04719b425ab0"},
		{mod("(devel)", nil), "04719b425ab0-dirty", "04719b425ab0-dirty"}, // make build in a worktree
		{mod("(devel)", nil), "", "devel (github.com/icount-dev/icount, built with go1.26.8 without VCS information)"},
		{nil, "", "devel (no build information)"},
	} {
		if got := versionOf(c.info, c.ldflags); got != c.want {
			t.Errorf("versionOf(%+v, %q) = %q, want %q", c.info, c.ldflags, got, c.want)
		}
	}
}

// TestVersionRecorded: `icount version` and every Profile's meta give
// the same version, the one the test binary's build recorded.
func TestVersionRecorded(t *testing.T) {
	t.Parallel()
	out, err := exec.Command(icountBin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(out), "\n")
	v, ok := strings.CutPrefix(first, "icount ")
	if !ok || v == "" || v == "dev" {
		t.Fatalf("icount version printed %q", out)
	}
	r := runIcount(t, nil, nil, testProgram(t, "amd64/loop"))
	if r.profile == nil || r.profile.Meta.IcountVersion != v {
		t.Errorf("the Profile's version %q, icount version's %q", r.profile.Meta.IcountVersion, v)
	}
}

// TestMakeBuildVersion: `make build` gives icount the checkout's commit
// (-dirty when the tree has changes) through -X main.version, which
// counts when Go records no VCS revision (a git worktree, whose .git is a
// file; GOFLAGS=-buildvcs=false).
func TestMakeBuildVersion(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("make", "-n", "-C", repoRoot, "build").Output()
	if err != nil {
		t.Fatalf("make -n build: %v", err)
	}
	var line string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, "./cmd/icount") {
			line = l
		}
	}
	rev, err := exec.Command("git", "-C", repoRoot, "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		t.Fatalf("git rev-parse: %v", err)
	}
	want := strings.TrimSpace(string(rev))
	if st, _ := exec.Command("git", "-C", repoRoot, "status", "--porcelain").Output(); len(st) > 0 {
		want += "-dirty"
	}
	if !strings.Contains(line, `-ldflags "-X main.version=`+want+`"`) {
		t.Errorf("make build runs %q, want -X main.version=%s", line, want)
	}
}
