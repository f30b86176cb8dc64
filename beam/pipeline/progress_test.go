package pipeline

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dpmc/dpmc/userdp"
)

func TestStages(t *testing.T) {
	o := userdp.Defaults(1, 1e-6, 1, 5).WithFactors(4, 2, 0.4)
	want := []string{stageCounts, stageBiases, stageStart, stageStep, stageStep, stageWrite}
	if got := stages(o); !slices.Equal(got, want) {
		t.Errorf("rating stages %q, want %q", got, want)
	}
	o.Rank = 0
	if got := stages(o); !slices.Equal(got, []string{stageCounts, stageBiases, stageWrite}) {
		t.Errorf("rank 0: stages %q", got)
	}
	o.Objective = userdp.ObjectiveRanking
	if got := stages(o); !slices.Equal(got, []string{stageCounts, stageGram, stageWrite}) {
		t.Errorf("ranking stages %q", got)
	}
	var b bytes.Buffer
	stageLine(&b, 4, 6, "ALS step 1 of 2", "V released", 12340*time.Millisecond)
	if got, want := b.String(), "dpmc-beam: [4/6] ALS step 1 of 2: V released (12.3 s)\n"; got != want {
		t.Errorf("line %q, want %q", got, want)
	}
}

// progressChild, when set in the environment, makes TestProgressLines run
// the pipeline (the objective named by its value) with Config.Progress in
// this process: the parent test runs the test binary again with it and
// reads the child's stderr, where the workers' lines go on Prism.
const progressChild = "DPMC_BEAM_PROGRESS_CHILD"

// A run with Config.Progress prints a line per stage on stderr, in the
// stages' order, numbered 0 (submitted) to n, and no other dpmc-beam
// line; the same run without it prints none. The lines' times are not
// checked (no test depends on speed).
func TestProgressLines(t *testing.T) {
	if obj := os.Getenv(progressChild); obj != "" {
		progressRun(t, obj)
		return
	}
	line := regexp.MustCompile(`^dpmc-beam: \[(\d+)/(\d+)\] (.*?)(?: \(\d+\.\d s\))?$`)
	for _, c := range []struct {
		objective string
		want      []string
	}{
		{"rating", []string{
			`submitted: reading 3 files, grouping the ratings by user`,
			`item counts: released, \d+ items selected`,
			`item biases: released`,
			`start: released \(PCA\)`,
			`ALS step 1 of 2: V released`,
			`ALS step 2 of 2: V released`,
			`model: written to .*model\.dpmc`,
		}},
		{"ranking", []string{
			`submitted: reading 3 files, grouping the ratings by user`,
			`item counts: released, \d+ items selected`,
			`head Gram: released \(\d+ head items\), components computed`,
			`model: written to .*model\.dpmc`,
		}},
		{"rating-quiet", nil},
	} {
		t.Run(c.objective, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestProgressLines$")
			cmd.Env = append(os.Environ(), progressChild+"="+c.objective)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if out, err := cmd.Output(); err != nil {
				t.Fatalf("child: %v\n%s\n%s", err, out, stderr.String())
			}
			var got []string
			for _, l := range strings.Split(stderr.String(), "\n") {
				if strings.HasPrefix(l, "dpmc-beam:") {
					got = append(got, l)
				}
			}
			t.Logf("%s", strings.Join(got, "\n"))
			if len(got) != len(c.want) {
				t.Fatalf("%d dpmc-beam lines, want %d:\n%s", len(got), len(c.want), strings.Join(got, "\n"))
			}
			for k, l := range got {
				m := line.FindStringSubmatch(l)
				if m == nil {
					t.Fatalf("line %q: not a progress line", l)
				}
				if m[1] != strconv.Itoa(k) || m[2] != strconv.Itoa(len(c.want)-1) {
					t.Errorf("line %q: numbered [%s/%s], want [%d/%d]", l, m[1], m[2], k, len(c.want)-1)
				}
				if !regexp.MustCompile("^" + c.want[k] + "$").MatchString(m[3]) {
					t.Errorf("line %d %q, want %q", k, m[3], c.want[k])
				}
			}
		})
	}
}

// progressRun is the child of TestProgressLines: the pipeline on Prism
// with (or, for "rating-quiet", without) progress lines, through Run.
func progressRun(t *testing.T, objective string) {
	file := writeCSV(t, 300, 4)
	cfg := &Config{Files: []string{file}}
	lo, hi, err := Resolve(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Files = shuffleSplit(t, file, 3, 9)
	o := userdp.Defaults(30, 1e-6, lo, hi).WithFactors(3, 2, 0.4)
	o.MaxItemsPerUser, o.HeadItems = 40, 60
	if objective == "ranking" {
		o = userdp.Defaults(30, 1e-6, lo, hi)
		o.Objective = userdp.ObjectiveRanking
	}
	o.Seeded, o.Seed = true, 5
	cfg.Options = o
	cfg.Progress = objective != "rating-quiet"
	cfg.Save = filepath.Join(t.TempDir(), "model.dpmc")
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
}
