package pipeline

import (
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/dpmc/dpmc/userdp"
)

// Progress lines (Config.Progress): one line per stage of the run on
// stderr, so that an operator sees the pipeline go through its stages
// without Prism's INFO logs. The launcher prints the first line when it
// submits the job; each later line is printed by the one-element stage
// that completes it (the item selection, the biases' assembly, the
// start, each ALS step's new V, the writing of the model), which runs
// once per launch, so a run prints len(stages) + 1 lines, whatever the
// size of the data:
//
//	dpmc-beam: [0/6] submitted: reading 8 files, grouping the ratings by user
//	dpmc-beam: [1/6] item counts: released, 2637 items selected (7.0 s)
//	dpmc-beam: [2/6] item biases: released (10.3 s)
//	dpmc-beam: [3/6] start: released (PCA) (15.0 s)
//	dpmc-beam: [4/6] ALS step 1 of 2: V released (22.0 s)
//	dpmc-beam: [5/6] ALS step 2 of 2: V released (29.3 s)
//	dpmc-beam: [6/6] model: written to model.dpmc (29.4 s)
//
// The seconds are the wall time since the launch, by the clock of the
// worker that prints the line; nothing the pipeline computes reads them.
// A line says what was released (the number of released items, which
// the model file holds) and never a figure of the data. On Prism the
// workers run in the launching process, so the lines reach its stderr;
// on a cluster runner, each line reaches the stderr (the log) of the
// worker that ran the stage, and a retried stage prints its line again.
//
// Package internal/progress (dpmc train's progress) does not fit: its
// Reporter keeps the time of its last line and the task's start in one
// process and throttles by them, while these stages run in separate
// DoFns, possibly on separate workers, and are few enough to print each.

// Stage names, in order (stages).
const (
	stageCounts = "item counts"
	stageBiases = "item biases"
	stageStart  = "start"
	stageStep   = "ALS step" // "ALS step k of n"
	stageGram   = "head Gram"
	stageWrite  = "model"
)

// stages returns the stages of a run with options o that print a
// progress line, in order; an ALS step appears once per step (the
// options' rank and steps: a stage whose release the plan drops, such as
// the factors when the rule releases none, still prints its line).
func stages(o userdp.Options) []string {
	if o.Objective == userdp.ObjectiveRanking {
		return []string{stageCounts, stageGram, stageWrite}
	}
	s := []string{stageCounts, stageBiases}
	if o.Rank > 0 {
		s = append(s, stageStart)
		for range o.Iters {
			s = append(s, stageStep)
		}
	}
	return append(s, stageWrite)
}

// stageLine writes the progress line of the k-th stage (from 1) of n:
// its name, what it did and the time since launch.
func stageLine(w io.Writer, k, n int, name, did string, since time.Duration) {
	fmt.Fprintf(w, "dpmc-beam: [%d/%d] %s: %s (%.1f s)\n", k, n, name, did, since.Seconds())
}

// progress prints the progress line of the stage named name (for an
// ALS step, of step step, counted from 0) on stderr, saying what it did,
// when the job asks for it. A progress line never fails a stage: errors
// writing stderr are ignored.
func (b *Base) progress(name string, step int, did string) {
	j, err := b.decode()
	if err != nil || !j.Progress {
		return
	}
	st := stages(j.Opts)
	k := slices.Index(st, name)
	if k < 0 {
		return
	}
	if name == stageStep {
		k += step
		name = fmt.Sprintf("%s %d of %d", stageStep, step+1, j.Opts.Iters)
	}
	stageLine(os.Stderr, k+1, len(st), name, did, time.Since(time.Unix(0, j.Launched)))
}

// submitted prints the launcher's first progress line (stage 0).
func submitted(w io.Writer, c *Config) {
	n := len(stages(c.Options))
	fmt.Fprintf(w, "dpmc-beam: [0/%d] submitted: reading %d %s, grouping the ratings by user\n", n, len(c.Files), plural(len(c.Files), "file", "files"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
