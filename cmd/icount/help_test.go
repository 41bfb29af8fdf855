package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestHelp: every command has examples in its --help, the exit statuses
// are a help topic, and cobra writes shell completion.
func TestHelp(t *testing.T) {
	t.Parallel()
	for _, c := range newRootCmd().Commands() {
		if c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		out, err := exec.Command(icountBin, c.Name(), "--help").Output()
		if err != nil || !strings.Contains(string(out), "\nExamples:\n  icount ") {
			t.Errorf("icount %s --help has no examples (%v):\n%s", c.Name(), err, out)
		}
	}
	topic, err := exec.Command(icountBin, "help", "exit-codes").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\n  124    --timeout", "\n  130    icount got SIGINT", "\n  143    icount got SIGTERM", "\n  125    ", "\n  123    --max-instructions",
		"\n  74     the host refused", "\n  70     an internal error", "\n  4      no verdict", "within a second of the first is the same\n         request"} {
		if !strings.Contains(string(topic), want) {
			t.Errorf("icount help exit-codes lacks %q:\n%s", want, topic)
		}
	}
	for _, shell := range []string{"bash", "zsh", "fish"} {
		out, err := exec.Command(icountBin, "completion", shell).Output()
		if err != nil || !strings.Contains(string(out), "icount") {
			t.Errorf("icount completion %s: %v", shell, err)
		}
	}
}
