package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A cancelled context (what SIGINT, SIGTERM and SIGHUP give) stops
// account's composition and train: exit 1, "context canceled" on stderr,
// nothing on stdout and no --save file.
func TestCancelledCommands(t *testing.T) {
	dir := t.TempDir()
	writeExampleData(t, dir)
	data := filepath.Join(dir, "u1.base")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		name string
		args []string
	}{
		{"account huber", []string{"account", "--mechanism", "huber", "--alpha", "1", "--scale", "1", "--compositions", "1000000"}},
		{"account float", []string{"account", "--mechanism", "laplace", "--scale", "1", "--compositions", "1000000", "--sampler", "float"}},
		{"account target", []string{"account", "--mechanism", "laplace", "--target-epsilon", "1", "--compositions", "1000"}},
		{"train paper", []string{"train", "--data", data, "--algo", "als", "--mechanism", "none", "--iters", "2", "--save", "SAVE"}},
		{"train user", []string{"train", "--privacy", "user", "--data", data, "--epsilon", "5", "--save", "SAVE"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			save := filepath.Join(t.TempDir(), "m.dpmc")
			args := append([]string(nil), c.args...)
			for i := range args {
				if args[i] == "SAVE" {
					args[i] = save
				}
			}
			var out, errb bytes.Buffer
			code := run(ctx, args, &out, &errb)
			if code != 1 || !strings.Contains(errb.String(), "context canceled") {
				t.Errorf("exit %d, stderr %q; want 1 and context canceled", code, errb.String())
			}
			if out.Len() != 0 {
				t.Errorf("printed after the cancellation:\n%s", out.String())
			}
			if _, err := os.Stat(save); !os.IsNotExist(err) {
				t.Errorf("--save file: %v, want none", err)
			}
		})
	}
}
