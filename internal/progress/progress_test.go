package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestReporter(t *testing.T) {
	var buf bytes.Buffer
	r := newReporter(&buf, "sweep")
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

func TestBar(t *testing.T) {
	var buf bytes.Buffer
	r := newReporter(&buf, "table 3")
	r.Bar = true
	clock := r.start
	r.now = func() time.Time { return clock }
	clock = clock.Add(3 * time.Second)
	r.Update(1, 2) // half done after 3 s: ETA 3 s
	want := "\rdpmc: table 3 [" + strings.Repeat("=", 15) + strings.Repeat(" ", 15) + "] 1/2 ( 50 %) ETA 3s      "
	if got := buf.String(); got != want {
		t.Errorf("bar = %q, want %q", got, want)
	}
	clock = clock.Add(time.Second)
	r.Update(2, 2)
	if got := buf.String(); !strings.HasSuffix(got, "2/2 (100 %) ETA 0s      \n") {
		t.Errorf("final bar = %q", got)
	}
	if New(&buf, "x").Bar {
		t.Error("a buffer is not a terminal")
	}
}

// A writer that is not a file (a test's buffer) gets no progress, however
// long the work takes.
func TestNotAFileIsSilent(t *testing.T) {
	var buf bytes.Buffer
	r := New(&buf, "sweep")
	clock := r.start
	r.now = func() time.Time { return clock }
	for done := 1; done <= 10; done++ {
		clock = clock.Add(time.Hour)
		r.Update(done, 10)
	}
	if buf.Len() != 0 {
		t.Errorf("printed %q to a buffer", buf.String())
	}
}
