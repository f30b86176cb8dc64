package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// dpmc utility refuses bad ranking-study settings before any training.
func TestUtilityStudyRefusesEarly(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "R.md")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown study", []string{"--study", "speed"}, "--study"},
		{"held-out fraction 1", []string{"--heldout", "1"}, "--heldout"},
		{"EASE λ 0", []string{"--ease-lambda", "0"}, "--ease-lambda"},
	} {
		_, stderr, code := dpmc(t, append([]string{"utility", "--quick", "--report", report, "--output-dir", filepath.Join(dir, c.name)}, c.args...)...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q, want a refusal naming %q", c.name, code, stderr, c.want)
		}
		if _, err := os.Stat(report); err == nil {
			t.Fatalf("%s: wrote %s", c.name, report)
		}
	}
}
