// Package progress prints progress with an ETA on stderr for long work. On
// a terminal it redraws one bar in place; on another file (a log, a pipe,
// CI) it prints at most one line every few seconds, so logs stay short.
// Either way it stays silent for work that finishes within a grace period.
// Writers that are not files — the buffers tests capture output in — get
// no progress at all, so no test's output depends on how fast it ran.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// Reporter reports the progress of one task. Not safe for concurrent use.
type Reporter struct {
	w     io.Writer
	label string
	start time.Time
	last  time.Time
	now   func() time.Time
	// Grace is how long the task may run before the first line;
	// Every is the least time between two lines.
	Grace, Every time.Duration
	printed      bool
	// Bar redraws a bar in place (set by New when w is a terminal).
	Bar bool
}

// barWidth is the number of cells of the bar.
const barWidth = 30

// isTerminal reports whether w is a character device such as a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// New returns a Reporter writing to w, labelling its lines with label.
// If w is not an *os.File the Reporter prints nothing (see the package
// comment).
func New(w io.Writer, label string) *Reporter {
	if _, ok := w.(*os.File); !ok {
		w = io.Discard
	}
	return newReporter(w, label)
}

// newReporter is New without the file check.
func newReporter(w io.Writer, label string) *Reporter {
	now := time.Now
	t := now()
	r := &Reporter{w: w, label: label, start: t, now: now, Grace: 2 * time.Second, Every: 5 * time.Second}
	if isTerminal(w) {
		r.Bar, r.Every = true, 200*time.Millisecond
	}
	return r
}

// Update reports that done of total steps are finished.
func (r *Reporter) Update(done, total int) {
	t := r.now()
	el := t.Sub(r.start)
	if el < r.Grace || (r.printed && t.Sub(r.last) < r.Every && done < total) || total <= 0 {
		return
	}
	r.printed, r.last = true, t
	eta := time.Duration(float64(el) * float64(total-done) / float64(max(done, 1)))
	frac := float64(done) / float64(total)
	if r.Bar {
		n := int(frac * barWidth)
		end := ""
		if done >= total {
			end = "\n"
		}
		fmt.Fprintf(r.w, "\rdpmc: %s [%s%s] %d/%d (%3.0f %%) ETA %-8s%s", r.label, strings.Repeat("=", n), strings.Repeat(" ", barWidth-n),
			done, total, 100*frac, eta.Round(time.Second), end)
		return
	}
	fmt.Fprintf(r.w, "dpmc: %s %d/%d (%.0f %%), %s elapsed, ETA %s\n", r.label, done, total,
		100*frac, el.Round(100*time.Millisecond), eta.Round(100*time.Millisecond))
}
