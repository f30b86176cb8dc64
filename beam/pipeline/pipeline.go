package pipeline

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/userdp"
)

// Config is one run of the pipeline.
type Config struct {
	// Files are the ratings files, read in parallel, one per worker task
	// (shard a large data set into many files). A local path may be a
	// glob; other paths (gs://…, s3://…) are passed to Beam's file
	// systems as they are. A user's ratings may span files; a (user,
	// item) pair may occur once in all of them.
	Files []string
	// Read says how to parse them (ratings.Options: format, columns,
	// header, range). Format must not be FormatAuto by the time Build
	// runs: Resolve detects it, and the range, from the first file.
	Read ratings.Options
	// Options are the training options, as for userdp.Train
	// (userdp.Defaults on Read's range and the overrides). NoNoise is not
	// supported.
	Options userdp.Options
	// Save is where the model file goes (required).
	Save string
	// Force overwrites an existing Save.
	Force bool
	// Key is the caller's secret noise key of an unseeded run (32 bytes);
	// Build draws it from crypto/rand when it is empty. Ignored when
	// seeded. The run's noise is keyed by Key and a launch nonce that
	// every Build draws afresh from crypto/rand (userdp.Plan.SetKey), so
	// reusing a key for two runs gives them independent noise.
	Key []byte
	// ShuffleCounters reports the shuffle counters (elements and payload
	// bytes per stage) to the runner's metrics, and Run returns them.
	// They are exact figures of the data (numbers of ratings, of users
	// per stage, of bytes of IDs): whoever reads the runner's metrics
	// (its console, monitoring) sees them. Off by default.
	ShuffleCounters bool
	// LogIDs lets an error name the user and item IDs it is about (a
	// duplicate (user, item) pair); the error reaches the runner's logs,
	// which are not private. Off by default: the error says what is wrong
	// without the IDs.
	LogIDs bool
	// ReadBuffer is the number of ratings a read task buffers, grouped
	// by user, before it emits them as one element per user (default,
	// when 0: 65 536, about 2 MB). A larger buffer gives the grouping by
	// user fewer elements when a file's lines are not in user order.
	ReadBuffer int
	// Progress prints a line per stage on stderr (see "Progress lines"
	// in progress.go): Run's first line when it submits the job, then
	// one from each one-element stage as it completes, on the stderr of
	// the worker that runs it (on Prism, this process's). The lines name
	// stages and the number of released items, never a figure of the
	// data. Off by default; dpmc-beam turns it on.
	Progress bool
}

// ErrConfig is wrapped by every error about a bad Config.
var ErrConfig = errors.New("bad pipeline configuration")

// Resolve expands local globs in c.Files and, when c.Read.Format is
// FormatAuto, detects the format and the rating range from the first
// lines of the first file (ratings.Read on its first 64 KiB, cut at a
// line end), so that every worker parses every file the same way and the
// privacy plan's rating range is fixed before any data is read. It
// returns the detected range, for userdp.Defaults.
func Resolve(c *Config) (lo, hi float64, err error) {
	if len(c.Files) == 0 {
		return 0, 0, fmt.Errorf("pipeline: %w: no ratings file (--data)", ErrConfig)
	}
	var files []string
	for _, f := range c.Files {
		if strings.Contains(f, "://") {
			files = append(files, f)
			continue
		}
		m, err := filepath.Glob(f)
		if err != nil {
			return 0, 0, fmt.Errorf("pipeline: %w: --data %s: %w", ErrConfig, f, err)
		}
		if len(m) == 0 {
			return 0, 0, fmt.Errorf("pipeline: %w: --data %s: no such file", ErrConfig, f)
		}
		for _, p := range m {
			if abs, err := filepath.Abs(p); err == nil {
				p = abs
			}
			files = append(files, p)
		}
	}
	c.Files = files
	if c.Read.Format != ratings.FormatAuto && (c.Read.Min != 0 || c.Read.Max != 0) {
		return c.Read.Min, c.Read.Max, nil
	}
	if c.Read.Format != ratings.FormatAuto {
		lo, hi = c.Read.Format.DefaultRange()
		return lo, hi, nil
	}
	if strings.Contains(files[0], "://") {
		return 0, 0, fmt.Errorf("pipeline: %w: give --format for remote files (detection reads local files only)", ErrConfig)
	}
	f, err := os.Open(files[0])
	if err != nil {
		return 0, 0, fmt.Errorf("pipeline: --data: %w", err)
	}
	defer f.Close()
	head, err := io.ReadAll(io.LimitReader(f, 64<<10))
	if err != nil {
		return 0, 0, fmt.Errorf("pipeline: --data: %w", err)
	}
	if len(head) == 64<<10 {
		if k := bytes.LastIndexByte(head, '\n'); k >= 0 {
			head = head[:k+1]
		}
	}
	d, err := ratings.Read(bytes.NewReader(head), files[0], c.Read)
	if err != nil {
		return 0, 0, err
	}
	c.Read.Format = d.Format
	c.Read.Min, c.Read.Max = d.Min, d.Max
	return d.Min, d.Max, nil
}

// Build adds the pipeline to s. The privacy plan is checked here
// (userdp.NewPlan), before any data is read.
func Build(s beam.Scope, c *Config) error {
	o := c.Options
	if o.NoNoise {
		return fmt.Errorf("pipeline: %w: the non-private baseline (no noise) is not supported; use dpmc train", ErrConfig)
	}
	if c.Save == "" {
		return fmt.Errorf("pipeline: %w: no model file (--save)", ErrConfig)
	}
	if c.Read.Format == ratings.FormatAuto {
		return fmt.Errorf("pipeline: %w: the format is not resolved (call Resolve)", ErrConfig)
	}
	if _, err := userdp.NewPlan(o); err != nil {
		return err
	}
	enc, err := newJob(c, o)
	if err != nil {
		return err
	}
	b := Base{Job: enc}
	files := make([]any, len(c.Files))
	for k, f := range c.Files {
		files[k] = f
	}
	byUser := beam.GroupByKey(s, beam.ParDo(s.Scope("read"), &readFn{Base: b, Buffer: c.ReadBuffer}, beam.Create(s, files...)))
	if o.Objective == userdp.ObjectiveRanking {
		buildRanking(s, b, byUser, c.Save, c.Force)
		return nil
	}
	users := beam.ParDo(s.Scope("prepare users"), &prepareFn{Base: b}, byUser)

	// Global mean and number of users: the plan's first release. Every
	// sum is exact (package exactsum), so the combiners may split, order
	// and merge partial sums as the runner likes.
	one := beam.Impulse(s)
	meanTerms := beam.ParDo(s.Scope("user mean terms"), &meanTermFn{Base: b}, users)
	sum := beam.Combine(s.Scope("mean sums"), &meanCombineFn{}, meanTerms)
	g := beam.SideInput{Input: sum}

	// Item counts and selection.
	countTerms := beam.ParDo(s.Scope("user count terms"), &countTermFn{Base: b}, users)
	countSums := beam.CombinePerKey(s.Scope("count sums"), &sumCombineFn{}, countTerms)
	counts := beam.ParDo(s.Scope("release counts"), &countFn{b}, countSums, g)
	rel := beam.ParDo(s.Scope("select items"), &selectFn{b}, one, g, beam.SideInput{Input: counts})

	// Item biases and the tail.
	itemTerms, tailTerms, bucketTerms := beam.ParDo3(s.Scope("user bias terms"), &userBiasFn{Base: b}, users, g, beam.SideInput{Input: rel})
	biasSums := beam.CombinePerKey(s.Scope("bias sums"), &weightedCombineFn{}, itemTerms)
	tailSum := beam.Combine(s.Scope("tail sums"), &weightedCombineFn{}, tailTerms)
	bucketSums := beam.CombinePerKey(s.Scope("tail bucket sums"), &weightedCombineFn{}, bucketTerms)
	biases := beam.ParDo(s.Scope("release biases"), &biasFn{Base: b}, biasSums, g, beam.SideInput{Input: rel})
	rel = beam.ParDo(s.Scope("assemble biases"), &assembleFn{b}, rel, g, beam.SideInput{Input: biases}, beam.SideInput{Input: tailSum})
	buckets := beam.ParDo(s.Scope("release tail buckets"), &bucketsFn{b}, rel, g, beam.SideInput{Input: bucketSums})

	// Factors: the start, then Iters ALS steps, unrolled. Whether factors
	// are released depends on the noisy number of users (AutoFactors):
	// the factor stages pass the release through when they are not.
	if o.Rank > 0 {
		st := beam.ParDo(s.Scope("user start terms"), &startTermFn{Base: b}, users, g, beam.SideInput{Input: rel})
		stSum := beam.Combine(s.Scope("start sums"), &startCombineFn{Base: b}, st)
		rel = beam.ParDo(s.Scope("release start"), &startFn{b}, rel, g, beam.SideInput{Input: stSum})
		for step := range o.Iters {
			sc := s.Scope(fmt.Sprintf("ALS step %d", step+1))
			terms := beam.ParDo(sc, &userStepFn{Base: b, Step: step}, users, g, beam.SideInput{Input: rel})
			gs := beam.CombinePerKey(sc, &gramCombineFn{}, terms)
			rows := beam.ParDo(sc, &itemStepFn{Base: b, Step: step}, gs, g, beam.SideInput{Input: rel})
			rel = beam.ParDo(sc, &stepFn{Base: b, Step: step}, rel, g, beam.SideInput{Input: rows})
		}
	}
	beam.ParDo0(s.Scope("write model"), &writeFn{Base: b, Save: c.Save, Force: c.Force}, rel, g, beam.SideInput{Input: buckets})
	return nil
}

// newJob returns the encoded job of one launch: the options and, when
// unseeded, the key (c.Key, drawn when empty) and a fresh launch nonce.
// Every call draws a new nonce, so two launches never share their noise,
// while every worker of one launch decodes the same job.
func newJob(c *Config, o userdp.Options) ([]byte, error) {
	o.Progress = nil
	j := &job{Opts: o, Read: c.Read, Counters: c.ShuffleCounters, LogIDs: c.LogIDs, Progress: c.Progress}
	if c.Progress {
		j.Launched = time.Now().UnixNano()
	}
	if !o.Seeded {
		if len(c.Key) == 0 {
			c.Key = make([]byte, 32)
			rand.Read(c.Key)
		}
		if len(c.Key) != 32 {
			return nil, fmt.Errorf("pipeline: %w: the noise key has %d bytes, want 32", ErrConfig, len(c.Key))
		}
		j.Key = c.Key
		// One nonce per launch, shipped to every worker with the key: all
		// workers (and retried bundles) draw the same noise, and no two
		// launches do.
		j.Nonce = userdp.NewLaunchNonce()
	}
	return j.encode()
}

// Run builds the pipeline and runs it on the runner named by Beam's
// --runner flag (default prism, in process). With c.ShuffleCounters it
// returns the shuffle counters ("NAME elements", "NAME bytes": payload
// bytes of the IDs and numbers sent through each shuffle, summed over the
// whole run), where the runner reports metrics; without, an empty map.
func Run(ctx context.Context, c *Config) (map[string]int64, error) {
	p, s := beam.NewPipelineWithRoot()
	if err := Build(s, c); err != nil {
		return nil, err
	}
	if c.Progress {
		submitted(os.Stderr, c)
	}
	res, err := beamx.RunWithMetrics(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("pipeline: %w", err)
	}
	out := map[string]int64{}
	if res != nil {
		for _, cr := range res.Metrics().AllMetrics().Counters() {
			if cr.Key.Namespace == "dpmc" {
				out[cr.Key.Name] += cr.Result()
			}
		}
	}
	return out, nil
}
