package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestMain lets a test run the real dpmc main in a child process: with
// DPMC_TEST_MAIN=1 the test binary is dpmc (runMain, as main calls it);
// DPMC_TEST_GRACE, a duration, replaces the 1 s grace after a signal.
func TestMain(m *testing.M) {
	if os.Getenv("DPMC_TEST_MAIN") == "1" {
		wait := grace
		if g := os.Getenv("DPMC_TEST_GRACE"); g != "" {
			var err error
			if wait, err = time.ParseDuration(g); err != nil {
				panic(err)
			}
		}
		os.Exit(runMain(os.Args[1:], os.Stdout, os.Stderr, wait))
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

// blockedChild is dpmc (the test binary as dpmc) started in a child
// process, with its stderr collected line by line.
type blockedChild struct {
	cmd   *exec.Cmd
	mu    sync.Mutex
	lines []string
	line  chan string
	done  chan struct{}
}

// startDpmc starts dpmc args with stdin (nil: none) and extra
// environment, and returns once it is blocked in the kernel on a pipe or
// FIFO (read from /proc/PID/task/*/wchan, waiting up to 20 s: by then its
// signal handler, installed before any work, is in place).
func startDpmc(t *testing.T, stdin io.Reader, env []string, args ...string) *blockedChild {
	t.Helper()
	c := &blockedChild{cmd: exec.Command(os.Args[0], args...), line: make(chan string, 64), done: make(chan struct{})}
	c.cmd.Env = append(append(os.Environ(), "DPMC_TEST_MAIN=1"), env...)
	c.cmd.Stdin = stdin
	stderr, err := c.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	hang := hangBound(t)
	t.Cleanup(func() {
		select {
		case <-c.done:
		default:
			c.cmd.Process.Kill()
			<-c.done
		}
	})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			c.mu.Lock()
			c.lines = append(c.lines, sc.Text())
			c.mu.Unlock()
			select {
			case c.line <- sc.Text():
			default:
			}
		}
		close(c.done)
	}()
	for blocked := 0; blocked < 2; {
		// Twice in a row, 10 ms apart: not a thread passing by.
		if blockedOnPipe(c.cmd.Process.Pid) {
			blocked++
		} else {
			blocked = 0
		}
		select {
		case <-c.done:
			t.Fatalf("dpmc %v ended before blocking: %v", args, c.stderr())
		case <-hang:
			t.Fatalf("dpmc %v never blocked on a pipe or FIFO before the test's deadline; stderr: %v", args, c.stderr())
		case <-time.After(10 * time.Millisecond):
		}
	}
	return c
}

// stderr returns the lines dpmc wrote to stderr so far.
func (c *blockedChild) stderr() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.lines...)
}

// wait waits for dpmc to end and returns its exit state; a hang fails
// the test shortly before its deadline (hangBound), not after a fixed
// time, so a slow machine cannot fail it.
func (c *blockedChild) wait(t *testing.T) *os.ProcessState {
	t.Helper()
	select {
	case <-c.done:
	case <-hangBound(t):
		t.Fatalf("dpmc still running at the test's deadline after the signal; stderr: %v", c.stderr())
	}
	c.cmd.Wait()
	return c.cmd.ProcessState
}

// blockedOnPipe reports whether process pid is blocked on a pipe or
// FIFO: a thread of it sleeps in the kernel opening, reading or writing
// one, or (Go reads an opened pipe through its poller, so no thread
// sleeps on the pipe itself) it has opened its standard input, a pipe,
// again (/dev/stdin) and every one of its threads sleeps.
func blockedOnPipe(pid int) bool {
	proc := filepath.Join("/proc", strconv.Itoa(pid))
	tasks, _ := filepath.Glob(filepath.Join(proc, "task", "*"))
	sleeping := len(tasks) > 0
	for _, task := range tasks {
		b, _ := os.ReadFile(filepath.Join(task, "wchan"))
		w := string(b)
		if strings.Contains(w, "pipe") || strings.Contains(w, "fifo") || strings.Contains(w, "partner") {
			return true
		}
		stat, _ := os.ReadFile(filepath.Join(task, "stat"))
		// The state follows the command name in brackets: "pid (comm) S …".
		if i := strings.LastIndexByte(string(stat), ')'); i < 0 || !strings.HasPrefix(string(stat[i+1:]), " S") {
			sleeping = false
		}
	}
	stdin, err := os.Readlink(filepath.Join(proc, "fd", "0"))
	if !sleeping || err != nil || !strings.HasPrefix(stdin, "pipe:") {
		return false
	}
	fds, _ := filepath.Glob(filepath.Join(proc, "fd", "*"))
	for _, fd := range fds {
		if n, _ := strconv.Atoi(filepath.Base(fd)); n > 2 {
			if l, _ := os.Readlink(fd); l == stdin {
				return true
			}
		}
	}
	return false
}

// needWchan skips a test where the kernel does not say where a process
// sleeps (not Linux, or /proc/PID/wchan hidden): there the test could not
// tell that dpmc is blocked, and a signal sent before its handler is
// installed would kill it with the default action.
func needWchan(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("needs Linux's /proc/PID/task/*/wchan")
	}
	tasks, _ := filepath.Glob("/proc/self/task/*/wchan")
	for _, w := range tasks {
		if b, _ := os.ReadFile(w); len(b) > 0 && string(b) != "0" {
			return
		}
	}
	t.Skip("/proc/PID/task/*/wchan does not say where a thread sleeps")
}

// A signal ends dpmc with exit 1 even while it is blocked where Go cannot
// cancel: opening a FIFO nobody writes (recommend --model, train --data),
// reading /dev/stdin from a pipe nobody writes to, opening a FIFO nobody
// reads as --save. Without the grace-period exit dpmc ignored SIGINT,
// SIGTERM and SIGHUP there for as long as nothing came.
func TestSignalEndsBlockedRead(t *testing.T) {
	needWchan(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	data := filepath.Join("testdata", "tiny.tsv")
	for _, c := range []struct {
		name  string
		sig   syscall.Signal
		stdin bool
		args  []string
	}{
		{"recommend --model FIFO, SIGINT", syscall.SIGINT, false, []string{"recommend", "--model", fifo, "--user", "1"}},
		{"recommend --model FIFO, SIGTERM", syscall.SIGTERM, false, []string{"recommend", "--model", fifo, "--user", "1"}},
		{"recommend --model FIFO, SIGHUP", syscall.SIGHUP, false, []string{"recommend", "--model", fifo, "--user", "1"}},
		{"predict --model FIFO", syscall.SIGINT, false, []string{"predict", "--model", fifo, "--pairs", data}},
		{"train --data FIFO", syscall.SIGINT, false, []string{"train", "--data", fifo, "--algo", "als", "--rank", "2", "--iters", "1"}},
		{"train --data /dev/stdin", syscall.SIGINT, true, []string{"train", "--data", "/dev/stdin", "--format", "tsv", "--algo", "als", "--rank", "2", "--iters", "1"}},
		{"train --save FIFO", syscall.SIGINT, false, []string{"train", "--data", data, "--format", "tsv", "--algo", "als", "--mechanism", "none", "--rank", "2", "--iters", "1", "--save", fifo}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stdin io.Reader
			if c.stdin {
				r, w, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				defer w.Close() // the writer stays open and silent: "sleep 60 |"
				stdin = r
			}
			child := startDpmc(t, stdin, nil, c.args...)
			if err := child.cmd.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			st := child.wait(t)
			if st.ExitCode() != 1 {
				t.Errorf("exit: %v, want status 1; stderr: %v", st, child.stderr())
			}
			if got := strings.Join(child.stderr(), "\n"); !strings.Contains(got, "stopped while blocked") {
				t.Errorf("stderr %q does not say why dpmc stopped", got)
			}
			if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
				t.Errorf("the FIFO was replaced: %v %v", st, err)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) != 0 {
				t.Errorf("left behind: %v", left)
			}
		})
	}
}

// After the first signal the handler is gone: a second SIGINT ends dpmc
// at once with the default action (killed by SIGINT), not after the
// grace period (set to 10 minutes here, so that only the second signal
// can end it within the test's bound).
func TestSecondSignalKills(t *testing.T) {
	needWchan(t)
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	child := startDpmc(t, nil, []string{"DPMC_TEST_GRACE=10m"}, "recommend", "--model", fifo, "--user", "1")
	if err := child.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	// The first signal's message is printed after the handler is removed.
	deadline := hangBound(t)
	for waiting := true; waiting; {
		select {
		case l := <-child.line:
			waiting = !strings.Contains(l, "stopping")
		case <-deadline:
			t.Fatalf("no message after the first SIGINT; stderr: %v", child.stderr())
		}
	}
	if err := child.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	st := child.wait(t)
	ws, ok := st.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGINT {
		t.Errorf("exit: %v, want killed by SIGINT; stderr: %v", st, child.stderr())
	}
}

// hangBound returns a channel that fires 10 s before the test binary's
// deadline (go test -timeout, 10 minutes by default), so that a hang is
// reported with the child's stderr rather than as a bare timeout; with no
// deadline it never fires. It bounds a hang only: no speed of the
// machine is assumed.
func hangBound(t *testing.T) <-chan time.Time {
	d, ok := t.Deadline()
	if !ok {
		return nil
	}
	return time.After(time.Until(d) - 10*time.Second)
}
