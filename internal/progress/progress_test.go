package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestReporter(t *testing.T) {
	var buf bytes.Buffer
	r := New(&buf, "sweep")
	clock := r.start
	r.now = func() time.Time { return clock }
	step := func(d time.Duration, done int) { clock = clock.Add(d); r.Update(done, 10) }
	step(time.Second, 1) // within the grace period: silent
	if buf.Len() != 0 {
		t.Fatalf("printed during grace period: %q", buf.String())
	}
	step(2*time.Second, 3) // 3 s elapsed, 3 of 10 done: ETA 7 s
	if got := buf.String(); !strings.Contains(got, "sweep 3/10 (30 %), 3s elapsed, ETA 7s") {
		t.Errorf("line = %q", got)
	}
	step(time.Second, 4) // too soon after the last line
	if n := strings.Count(buf.String(), "\n"); n != 1 {
		t.Errorf("%d lines, want 1 (throttled)", n)
	}
	step(time.Second, 10) // the final step always prints
	if n := strings.Count(buf.String(), "\n"); n != 2 {
		t.Errorf("%d lines, want 2", n)
	}
}
