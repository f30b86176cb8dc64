// Package progress prints a progress line with an ETA on stderr for long
// work. It stays silent for work that finishes within a grace period, and
// prints at most one line every few seconds, so logs stay short when stderr
// is not a terminal.
package progress

import (
	"fmt"
	"io"
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
}

// New returns a Reporter writing to w, labelling its lines with label.
func New(w io.Writer, label string) *Reporter {
	now := time.Now
	t := now()
	return &Reporter{w: w, label: label, start: t, now: now, Grace: 2 * time.Second, Every: 5 * time.Second}
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
	fmt.Fprintf(r.w, "dpmc: %s %d/%d (%.0f %%), %s elapsed, ETA %s\n", r.label, done, total,
		100*float64(done)/float64(total), el.Round(100*time.Millisecond), eta.Round(100*time.Millisecond))
}
