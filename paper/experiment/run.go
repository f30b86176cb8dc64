package experiment

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/paper/budget"
	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/rng"
	"github.com/dpmc/dpmc/solver"
	"github.com/dpmc/dpmc/synthetic"
)

// Dataset files under Config.DataDir.
var (
	MovieLensTrain = filepath.Join("movielens-100k", "u1.base")
	MovieLensTest  = filepath.Join("movielens-100k", "u1.test")
	SweetRSFile    = filepath.Join("sweetrs", "ratings-final.csv")
)

// TableResult is everything one table produced: its trials (or, for table
// 1, its budget rows) and how they were made.
type TableResult struct {
	Generator string   `json:"generator"` // always "dpmc reproduce"
	Table     string   `json:"table"`
	Seed      uint64   `json:"seed"`
	Trials    int      `json:"trials"`
	Quick     bool     `json:"quick"`
	Settings  Settings `json:"settings"`
	// Skipped says why the table was not run (missing data), else "".
	Skipped string       `json:"skipped,omitempty"`
	Budget  []budget.Row `json:"budget,omitempty"`
	Results []Trial      `json:"results,omitempty"`
	// Started is the wall-clock start (RFC 3339); Seconds the table's wall
	// time; Workers, CPUs and GoVersion describe the machine.
	Started   string  `json:"started"`
	Seconds   float64 `json:"seconds"`
	Workers   int     `json:"workers"`
	CPUs      int     `json:"cpus"`
	GoVersion string  `json:"go_version"`
}

// Generator marks result files written by this package.
const Generator = "dpmc reproduce"

// Progress is told after every finished trial how many of the table's
// trials are done. Run never calls it from two goroutines at once, so it
// needs no locking of its own.
type Progress func(table string, done, total int)

// Run runs cfg's tables in order and hands each finished table to sink
// (which typically writes it). A table whose data files are missing is
// passed to sink with Skipped set. Run stops at the first error, from a
// trial, from sink or from ctx.
func Run(ctx context.Context, cfg Config, progress Progress, sink func(*TableResult) error) error {
	if cfg.Trials < 1 {
		return fmt.Errorf("experiment: trials = %d, want ≥ 1", cfg.Trials)
	}
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	data := &dataCache{cfg: cfg, m: map[string]*dataEntry{}}
	for _, table := range cfg.Tables {
		start := time.Now()
		res := &TableResult{
			Generator: Generator, Table: table, Seed: cfg.Seed, Trials: cfg.Trials, Quick: cfg.Quick,
			Settings: cfg.Settings, Started: start.UTC().Format(time.RFC3339),
			Workers: workers, CPUs: runtime.NumCPU(), GoVersion: runtime.Version(),
		}
		if table == "1" {
			rows, err := budget.Compute([]float64{1, 2, 3, 4}, Sensitivity, Delta)
			if err != nil {
				return fmt.Errorf("table 1: %w", err)
			}
			res.Budget = rows
		} else if missing := data.missing(table); missing != "" {
			res.Skipped = missing
		} else {
			jobs, err := plan(cfg, table)
			if err != nil {
				return fmt.Errorf("table %s: %w", table, err)
			}
			res.Results, err = runJobs(ctx, jobs, workers, data, func(done int) {
				if progress != nil {
					progress(table, done, len(jobs))
				}
			})
			if err != nil {
				return fmt.Errorf("table %s: %w", table, err)
			}
		}
		res.Seconds = time.Since(start).Seconds()
		if err := sink(res); err != nil {
			return err
		}
	}
	return nil
}

// job is one trial to run: its row of results, filled in but for RMSE, and
// how to get its data and noise.
type job struct {
	t     Trial
	data  string // dataCache key
	noise noise.Mechanism
}

// plan lists the trials of one table.
func plan(cfg Config, table string) ([]job, error) {
	s := cfg.Settings
	var jobs []job
	add := func(t Trial, data string, m noise.Mechanism) {
		t.Table = table
		t.Lambda = s.Lambda
		if t.Algo != AlgoALS {
			t.Init = s.Init
			t.IRLSIters = s.IRLSIters
			if t.Algo == AlgoIRLS2 {
				t.IRLSIters = 2
			}
			if t.Threshold == 0 {
				t.Threshold = s.Threshold
			}
		}
		jobs = append(jobs, job{t: t, data: data, noise: m})
	}
	// atVariance adds the trial with mechanism mech at the paper's
	// setting for variance v (none: no noise, no variance).
	atVariance := func(t Trial, data, mech string, v float64) error {
		t.Mechanism = mech
		if mech == MechNone {
			add(t, data, nil)
			return nil
		}
		m, eps, alpha, scale, err := noiseAt(mech, v)
		if err != nil {
			return fmt.Errorf("%s at variance %g: %w", mech, v, err)
		}
		t.Variance, t.Epsilon, t.Alpha, t.Scale = ptr(v), ptr(eps), alpha, ptr(scale)
		if alpha != nil && t.Algo != AlgoALS {
			t.Threshold = *alpha // Algorithm 3 uses the noise's α as c
		}
		add(t, data, m)
		return nil
	}

	switch table {
	case "3", "8", "9":
		rank := map[string]int{"3": 5, "8": 10, "9": 20}[table]
		for _, obs := range syntheticObserved {
			for trial := range cfg.Trials {
				data, base := syntheticTrial(cfg, rank, obs, trial)
				for _, algo := range syntheticAlgos {
					base.Algo = algo
					if err := atVariance(base, data, MechNone, 0); err != nil {
						return nil, err
					}
					for _, v := range syntheticVariances {
						for _, mech := range syntheticMechs[1:] {
							if err := atVariance(base, data, mech, v); err != nil {
								return nil, err
							}
						}
					}
				}
			}
		}
	case "6", "7":
		fracs, iters, name := []float64{0}, s.MovieLensIters, "movielens-100k"
		if table == "7" {
			fracs, iters, name = sweetObserved, s.SweetRSIters, "sweetrs"
		}
		for _, obs := range fracs {
			for trial := range cfg.Trials {
				base := Trial{Dataset: name, Rank: s.RealRank, Observed: obs, Trial: trial, Iters: iters}
				base.NoiseSeed = deriveSeed(cfg.Seed, "noise", name, obs, trial)
				data := "movielens"
				if table == "7" {
					base.DataSeed = deriveSeed(cfg.Seed, "data", name, obs, trial)
					data = fmt.Sprintf("sweetrs/%g/%d", obs, base.DataSeed)
				}
				for _, c := range realColumns {
					base.Algo = c.Algo
					if err := atVariance(base, data, c.Mechanism, s.RealVariance); err != nil {
						return nil, err
					}
				}
			}
		}
	case "privacy":
		for trial := range cfg.Trials {
			data, base := syntheticTrial(cfg, s.PrivacyRank, s.PrivacyObserved, trial)
			for _, algo := range syntheticAlgos {
				base.Algo = algo
				add(withMech(base, MechNone), data, nil)
				for _, eps := range s.PrivacyEpsilons {
					for _, mech := range []string{MechGaussian, MechLaplace, MechHuber} {
						alphas := []float64{math.NaN()}
						if mech == MechHuber {
							alphas = s.PrivacyAlphas
						}
						for _, a := range alphas {
							m, alpha, scale, err := noiseForEpsilon(mech, eps, a)
							if err != nil {
								return nil, fmt.Errorf("%s at ε = %g: %w", mech, eps, err)
							}
							t := withMech(base, mech)
							t.Epsilon, t.Alpha, t.Scale = ptr(eps), alpha, ptr(scale)
							add(t, data, m)
						}
					}
				}
			}
		}
	default:
		return nil, fmt.Errorf("unknown table %q", table)
	}
	return jobs, nil
}

func withMech(t Trial, mech string) Trial {
	t.Mechanism = mech
	return t
}

// syntheticTrial returns the data key and the common part of every trial
// on the synthetic problem of rank and observed fraction for trial index
// trial. The data and noise seeds depend on neither the table nor the
// mechanism, so all cells of a trial index share data and noise stream.
func syntheticTrial(cfg Config, rank int, obs float64, trial int) (string, Trial) {
	s := cfg.Settings
	t := Trial{
		Dataset: "synthetic", Rank: rank, Observed: obs, Trial: trial, Iters: s.SyntheticIters,
		Rows: s.Rows, Cols: s.Cols,
		DataSeed:  deriveSeed(cfg.Seed, "data", "synthetic", s.Rows, s.Cols, rank, obs, trial),
		NoiseSeed: deriveSeed(cfg.Seed, "noise", "synthetic", rank, obs, trial),
	}
	return fmt.Sprintf("synthetic/%d/%d/%d/%g/%d", s.Rows, s.Cols, rank, obs, t.DataSeed), t
}

func runJobs(ctx context.Context, jobs []job, workers int, data *dataCache, progress func(int)) ([]Trial, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out := make([]Trial, len(jobs))
	next := make(chan int)
	var (
		mu       sync.Mutex
		firstErr error
		done     int
		wg       sync.WaitGroup
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
		cancel()
	}
	for range min(workers, len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				t, err := runJob(ctx, jobs[k], data)
				if err != nil {
					fail(err)
					continue
				}
				out[k] = t
				// Report under the lock: workers finish concurrently and
				// the callback is documented as never called concurrently.
				mu.Lock()
				done++
				progress(done)
				mu.Unlock()
			}
		}()
	}
feed:
	for k := range jobs {
		select {
		case next <- k:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

func runJob(ctx context.Context, j job, data *dataCache) (Trial, error) {
	t := j.t
	d, err := data.get(j.data)
	if err != nil {
		return t, err
	}
	algo := solver.ALS
	if t.Algo != AlgoALS {
		algo = solver.IRLS
	}
	init := solver.InitWarm
	if t.Init == "paper" {
		init = solver.InitPaper
	}
	start := time.Now()
	model, err := solver.Train(ctx, d.train, solver.Options{
		Algorithm: algo, Rank: t.Rank, Lambda: t.Lambda, Iters: t.Iters,
		IRLSIters: t.IRLSIters, Threshold: t.Threshold, Init: init,
		Noise: j.noise, Seed: t.NoiseSeed, Seeded: true, Workers: 1,
	})
	if err != nil {
		return t, fmt.Errorf("%s %s %s trial %d: %w", t.Dataset, t.Algo, t.Mechanism, t.Trial, err)
	}
	t.RMSE, t.EvalEntries = d.eval(model)
	t.Seconds = time.Since(start).Seconds()
	t.TrainRatings = d.train.Len()
	t.Rows, t.Cols = d.train.Rows(), d.train.Cols()
	if t.Observed == 0 {
		t.Observed = float64(d.train.Len()) / (float64(t.Rows) * float64(t.Cols))
	}
	if math.IsNaN(t.RMSE) || math.IsInf(t.RMSE, 0) {
		return t, fmt.Errorf("%s %s %s trial %d: RMSE is %v", t.Dataset, t.Algo, t.Mechanism, t.Trial, t.RMSE)
	}
	return t, nil
}

// data is a training matrix and how to score a model trained on it.
type data struct {
	train *ratings.Matrix
	// eval returns the RMSE and the number of entries it covers.
	eval func(*solver.Model) (float64, int)
}

type dataEntry struct {
	once sync.Once
	d    *data
	err  error
}

// dataCache builds each data set once, on first use, and shares it among
// the trials (which only read it).
type dataCache struct {
	cfg Config
	mu  sync.Mutex
	m   map[string]*dataEntry
}

func (c *dataCache) get(key string) (*data, error) {
	c.mu.Lock()
	e, ok := c.m[key]
	if !ok {
		e = &dataEntry{}
		c.m[key] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.d, e.err = c.build(key) })
	return e.d, e.err
}

// missing says which data files table needs and cannot find, or "".
func (c *dataCache) missing(table string) string {
	var need []string
	switch table {
	case "6":
		need = []string{MovieLensTrain, MovieLensTest}
	case "7":
		need = []string{SweetRSFile}
	}
	for _, f := range need {
		p := filepath.Join(c.cfg.DataDir, f)
		if _, err := os.Stat(p); err != nil {
			return fmt.Sprintf("table %s needs %s, which is not there (--data-dir %s): %v", table, p, c.cfg.DataDir, errors.Unwrap(err))
		}
	}
	return ""
}

func (c *dataCache) build(key string) (*data, error) {
	var (
		rows, cols, rank int
		obs              float64
		seed             uint64
	)
	switch {
	case key == "movielens":
		train, test, err := ratings.LoadPair(filepath.Join(c.cfg.DataDir, MovieLensTrain), filepath.Join(c.cfg.DataDir, MovieLensTest), ratings.Options{})
		if err != nil {
			return nil, err
		}
		return heldOut(train.Ratings, test.Ratings), nil
	case len(key) > 8 && key[:8] == "sweetrs/":
		if _, err := fmt.Sscanf(key, "sweetrs/%g/%d", &obs, &seed); err != nil {
			return nil, fmt.Errorf("data key %q: %w", key, err)
		}
		all, err := c.get("sweetrs")
		if err != nil {
			return nil, err
		}
		return sweetSplit(all, obs, seed)
	case key == "sweetrs":
		d, err := ratings.Load(filepath.Join(c.cfg.DataDir, SweetRSFile), ratings.Options{})
		if err != nil {
			return nil, err
		}
		return &data{train: d.Ratings}, nil
	default:
		if _, err := fmt.Sscanf(key, "synthetic/%d/%d/%d/%g/%d", &rows, &cols, &rank, &obs, &seed); err != nil {
			return nil, fmt.Errorf("data key %q: %w", key, err)
		}
		p, err := synthetic.Generate(synthetic.Options{Rows: rows, Cols: cols, Rank: rank, Observed: obs, Seed: seed})
		if err != nil {
			return nil, err
		}
		return &data{train: p.Observed, eval: func(m *solver.Model) (float64, int) {
			return p.FullRMSE(m), rows * cols
		}}, nil
	}
}

// heldOut scores on the ratings of test, unclipped (the paper's metric).
func heldOut(train, test *ratings.Matrix) *data {
	return &data{train: train, eval: func(m *solver.Model) (float64, int) {
		rmse, _ := m.Errors(test, solver.Clip{})
		return rmse, test.Len()
	}}
}

// sweetSplit keeps round(obs × rows × cols) of SweetRS's ratings, chosen
// uniformly with the seed, for training, and holds out the rest.
func sweetSplit(all *data, obs float64, seed uint64) (*data, error) {
	m := all.train
	keep := math.Round(obs * float64(m.Rows()) * float64(m.Cols()))
	if keep < 1 || keep >= float64(m.Len()) {
		return nil, fmt.Errorf("sweetrs: visible fraction %g keeps %g of %d ratings", obs, keep, m.Len())
	}
	d := &ratings.Dataset{Ratings: m}
	train, test, err := ratings.Split(d, 1-keep/float64(m.Len()), rng.Seeded(seed))
	if err != nil {
		return nil, err
	}
	return heldOut(train.Ratings, test.Ratings), nil
}
