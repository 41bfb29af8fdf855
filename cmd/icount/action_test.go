package main

// The GitHub Action's scripts (action/install.sh, action/ab.sh) run as a
// runner would run them: its environment faked, the release fetched by a
// curl that serves files of the test's own, the pull request a clone of a
// repository with a base and a head branch.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeCurl writes a curl that answers the GitHub API's latest release
// with tag and a release download with the file of that name in dir.
func fakeCurl(t *testing.T, bin, dir, tag string) {
	t.Helper()
	write(t, filepath.Join(bin, "curl"), `#!/bin/sh
out= url=
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out=$2; shift ;;
    -H) shift ;;
    -*) ;;
    *) url=$1 ;;
  esac
  shift
done
case "$url" in
  https://api.github.com/repos/icount-dev/icount/releases/latest) echo '{"tag_name": "`+tag+`"}' ;;
  https://github.com/icount-dev/icount/releases/download/`+tag+`/*) cp "`+dir+`/${url##*/}" "$out" ;;
  *) echo "curl: unexpected $url" >&2; exit 22 ;;
esac
`)
	os.Chmod(filepath.Join(bin, "curl"), 0o755)
}

// outputs reads a step's $GITHUB_OUTPUT.
func outputs(t *testing.T, file string) map[string]string {
	t.Helper()
	b, _ := os.ReadFile(file)
	out := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			out[k] = v
		}
	}
	return out
}

func TestActionScripts(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		t.Fatal("jq is missing (make deps installs it)")
	}
	tmp := t.TempDir()
	runner := func(name string) string { return filepath.Join(tmp, name) }
	for _, d := range []string{"bin", "release", "runner", "home", "tool"} {
		os.Mkdir(runner(d), 0o755)
	}
	// The release: this icount, packed as make dist packs it.
	const tag = "v9.9.9"
	name := "icount-" + tag + "-linux-amd64"
	stage := filepath.Join(tmp, name)
	os.Mkdir(stage, 0o755)
	prog, _ := os.ReadFile(icountBin)
	write(t, filepath.Join(stage, "icount"), string(prog))
	os.Chmod(filepath.Join(stage, "icount"), 0o755)
	sh := func(dir string, env []string, script string) string {
		t.Helper()
		cmd := exec.Command("bash", "-c", script)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", script, err, out)
		}
		return string(out)
	}
	sh(stage, os.Environ(), "sha256sum icount > SHA256SUMS")
	sh(tmp, os.Environ(), "tar -czf release/"+name+".tar.gz "+name+" && cd release && sha256sum "+name+".tar.gz > "+name+".tar.gz.sha256")
	fakeCurl(t, runner("bin"), runner("release"), tag)

	env := append(os.Environ(), "PATH="+runner("bin")+":"+os.Getenv("PATH"), "HOME="+runner("home"),
		"RUNNER_OS=Linux", "RUNNER_ARCH=X64", "RUNNER_TEMP="+runner("runner"),
		"GITHUB_OUTPUT="+runner("runner/output"), "GITHUB_STEP_SUMMARY="+runner("runner/summary"),
		"GH_TOKEN=not-a-token")
	action := filepath.Join(repoRoot, "action")

	sh(tmp, append(env, "ICOUNT_VERSION=latest"), action+"/install.sh resolve")
	if v := outputs(t, runner("runner/output"))["version"]; v != tag {
		t.Fatalf("resolve: version %q, want %s", v, tag)
	}
	dir := runner("tool/icount/" + tag)
	sh(tmp, append(env, "ICOUNT_VERSION="+tag, "ICOUNT_DIR="+dir), action+"/install.sh fetch")
	if _, err := os.Stat(filepath.Join(dir, "icount")); err != nil {
		t.Fatalf("fetch: %v", err)
	}
	// A release whose archive does not have its SHA-256 is refused.
	write(t, runner("release/"+name+".tar.gz.sha256"), strings.Repeat("0", 64)+"  "+name+".tar.gz\n")
	cmd := exec.Command("bash", action+"/install.sh", "fetch")
	cmd.Env = append(env, "ICOUNT_VERSION="+tag, "ICOUNT_DIR="+runner("tool/other"))
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "does not have the SHA-256 its release gives") {
		t.Errorf("a bad archive: %v\n%s", err, out)
	}

	// The pull request: main is the base, feature adds 30 instructions;
	// the checkout holds feature alone, shallow, as actions/checkout's.
	origin := gitRepo(t)
	gitIn(t, origin, "branch", "-M", "main")
	gitIn(t, origin, "checkout", "-q", "-b", "feature")
	commitEdit(t, origin, "#define WORK 1000", "#define WORK 1010", "ten more iterations")
	checkout := runner("checkout")
	gitIn(t, tmp, "clone", "-q", "--depth=1", "--branch", "feature", "file://"+origin, checkout)
	os.Remove(runner("runner/output"))
	abEnv := append(env, "PATH="+dir+":"+runner("bin")+":"+os.Getenv("PATH"),
		"GITHUB_EVENT_NAME=pull_request", "GITHUB_BASE_REF=main", "GITHUB_SERVER_URL=https://github.com",
		"GITHUB_REPOSITORY=acme/widget", "GITHUB_RUN_ID=7001",
		"INPUT_BASE=", "INPUT_BUILD=make", "INPUT_BIN=bench", "INPUT_SUITE=", "INPUT_ARGS=",
		`INPUT_RUN_FLAGS=--env 'GREETING=hello world'`, "INPUT_FAIL_ABOVE=0", "INPUT_CONFIG=",
		"INPUT_ALLOW_NO_VERDICT=false", "INPUT_TOP=20", "INPUT_ARTIFACT=icount-report")
	log := sh(checkout, abEnv, action+"/ab.sh")
	out := outputs(t, runner("runner/output"))
	report := runner("runner/icount-report")
	if out["status"] != "3" || out["verdict"] != "regression" || out["report-dir"] != report {
		t.Errorf("outputs %v, want status 3, verdict regression, report-dir %s\n%s", out, report, log)
	}
	for _, f := range []string{"report.json", "report.md", "report-full.md", "report.html", "status"} {
		if _, err := os.Stat(filepath.Join(report, f)); err != nil {
			t.Errorf("the report directory has no %s", f)
		}
	}
	md, _ := os.ReadFile(filepath.Join(report, "report.md"))
	summary, _ := os.ReadFile(runner("runner/summary"))
	if !strings.HasPrefix(string(md), "❌ **icount**: regression: total instructions +30") || string(summary) != string(md) {
		t.Errorf("report.md:\n%s\nthe job summary:\n%s", md, summary)
	}
	if !strings.Contains(log, "--env GREETING=hello world") {
		t.Errorf("the run flags were not split as the shell splits them:\n%s", log)
	}
}
