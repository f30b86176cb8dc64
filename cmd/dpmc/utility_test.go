package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// dpmc utility refuses bad settings before any training: an explicit
// --data-dir without the data, a folder of the user's own as --out, and
// --quick keeps what the user set (here --runs 1, refused).
func TestUtilityRefusesEarly(t *testing.T) {
	dir := t.TempDir()
	foreign := filepath.Join(dir, "mine")
	if err := os.Mkdir(foreign, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(foreign, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(dir, "R.md")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"missing data", []string{"--data-dir", filepath.Join(dir, "nope"), "--output-dir", filepath.Join(dir, "o1")}, "--data-dir"},
		{"foreign --output-dir", []string{"--output-dir", foreign}, "holds no results of dpmc utility"},
		{"--quick keeps --repeats", []string{"--quick", "--repeats", "1", "--output-dir", filepath.Join(dir, "o2")}, "--repeats 1"},
		{"--quick keeps --epsilons", []string{"--quick", "--epsilons", "0", "--output-dir", filepath.Join(dir, "o3")}, "--epsilons"},
	} {
		_, stderr, code := dpmc(t, append([]string{"utility", "--report", report}, c.args...)...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q, want a refusal naming %q", c.name, code, stderr, c.want)
		}
		if _, err := os.Stat(report); err == nil {
			t.Fatalf("%s: wrote %s", c.name, report)
		}
	}
	if b, err := os.ReadFile(filepath.Join(foreign, "notes.txt")); err != nil || string(b) != "mine" {
		t.Errorf("the user's folder changed: %q, %v", b, err)
	}
}
