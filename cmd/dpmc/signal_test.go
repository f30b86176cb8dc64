package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestMain lets a test run the real dpmc main in a child process: with
// DPMC_TEST_MAIN=1 the test binary is dpmc.
func TestMain(m *testing.M) {
	if os.Getenv("DPMC_TEST_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// SIGTERM and SIGHUP, like SIGINT, stop a long write and leave neither
// the output nor its temporary file behind.
func TestSignalLeavesNoTempFile(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "noise.txt")
			cmd := exec.Command(os.Args[0], "sample", "--mechanism", "laplace", "--scale", "1", "-n", "1000000000000", "--seed", "1", "-o", out)
			cmd.Env = append(os.Environ(), "DPMC_TEST_MAIN=1")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Wait (up to a minute, polling) until the temporary file exists,
			// so the signal arrives in the middle of the write.
			var tmp []string
			for range 6000 {
				tmp, _ = filepath.Glob(filepath.Join(dir, ".noise.txt.tmp-*"))
				if len(tmp) > 0 {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			if len(tmp) == 0 {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatal("no temporary file appeared")
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
				t.Errorf("exit: %v, want status 1", err)
			}
			left, _ := filepath.Glob(filepath.Join(dir, "*"))
			hidden, _ := filepath.Glob(filepath.Join(dir, ".*"))
			if len(left)+len(hidden) != 0 {
				t.Errorf("left behind: %v %v", left, hidden)
			}
		})
	}
}
