package experiment

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/gaussian"
	"github.com/dpmc/dpmc/noise/huber"
	"github.com/dpmc/dpmc/noise/laplace"
)

// Algorithm and mechanism names as they appear in the results.
const (
	AlgoALS   = "als"
	AlgoIRLS  = "irls"
	AlgoIRLS2 = "irls2" // R-IRLS with K = 2 inner iterations

	MechNone     = "none"
	MechGaussian = "gaussian"
	MechLaplace  = "laplace"
	MechHuber    = "huber"
)

// Tables lists every table Plan knows, in the order they are run.
var Tables = []string{"1", "3", "8", "9", "6", "7", "privacy"}

// Paper conventions for the per-release ε reported beside every noisy
// trial: Δ₁ = Δ₂ = 5 (the rating range) and δ = 1e-5, as in Table 1.
const (
	Sensitivity = 5.0
	Delta       = 1e-5
)

// Settings are the solver and problem settings of a run. DefaultSettings
// gives the paper's (its Table 2 and section 4); QuickSettings a reduced
// version for smoke tests.
type Settings struct {
	// Synthetic problems are Rows × Cols; see the package doc of
	// synthetic for the generator and REPRODUCTION.md for how the size
	// was chosen.
	Rows int `json:"rows"`
	Cols int `json:"cols"`
	// Lambda is the ridge penalty λ of every row solve.
	Lambda float64 `json:"lambda"`
	// SyntheticIters is T for tables 3, 8, 9 and privacy; MovieLensIters
	// and SweetRSIters for tables 6 and 7.
	SyntheticIters int `json:"synthetic_iters"`
	MovieLensIters int `json:"movielens_iters"`
	SweetRSIters   int `json:"sweetrs_iters"`
	// RealRank is the rank of the real-data models (tables 6, 7).
	RealRank int `json:"real_rank"`
	// IRLSIters is K for "irls"; "irls2" always uses 2.
	IRLSIters int `json:"irls_iters"`
	// Init is the R-IRLS start, "paper" (θ ~ N(0, I) at every call, as
	// Algorithm 3) or "warm".
	Init string `json:"init"`
	// RealVariance is the noise variance of tables 6 and 7, which the
	// paper does not state.
	RealVariance float64 `json:"real_variance"`
	// PrivacyEpsilons are the per-release ε of the equal-privacy table;
	// PrivacyAlphas the Huber shapes swept there; PrivacyRank and
	// PrivacyObserved its synthetic problem.
	PrivacyEpsilons []float64 `json:"privacy_epsilons"`
	PrivacyAlphas   []float64 `json:"privacy_alphas"`
	PrivacyRank     int       `json:"privacy_rank"`
	PrivacyObserved float64   `json:"privacy_observed"`
	// Threshold is the Huber threshold c of the IRLS weights when the
	// noise is not Huber, and in the equal-privacy table for every
	// mechanism; with Huber noise at a set variance c = α, as Algorithm 3.
	Threshold float64 `json:"threshold"`
}

// DefaultSettings returns the paper's settings.
func DefaultSettings() Settings {
	return Settings{
		Rows: 120, Cols: 120, Lambda: 0.5,
		SyntheticIters: 50, MovieLensIters: 20, SweetRSIters: 100,
		RealRank: 32, IRLSIters: 20, Init: "paper", RealVariance: 1,
		PrivacyEpsilons: []float64{1, 2, 5, 10, 20},
		PrivacyAlphas:   []float64{0.1, 0.3, 1, 3},
		PrivacyRank:     5, PrivacyObserved: 0.10,
		Threshold: huber.PaperAlpha,
	}
}

// QuickSettings returns DefaultSettings with fewer iterations and a
// smaller equal-privacy sweep: a smoke test of every code path that
// finishes in well under two minutes on two cores. Its numbers are not
// comparable with the paper's.
func QuickSettings() Settings {
	s := DefaultSettings()
	s.SyntheticIters, s.MovieLensIters, s.SweetRSIters = 8, 3, 5
	s.IRLSIters = 4
	s.PrivacyEpsilons = []float64{1, 10}
	s.PrivacyAlphas = []float64{0.3, 3}
	return s
}

// Config says which tables to run and how.
type Config struct {
	// Tables to run, from Tables; "all" is expanded by ParseTables.
	Tables []string
	// Trials per cell (the paper uses 10).
	Trials int
	// Seed is the root of every data and noise seed.
	Seed uint64
	// Quick marks a run made with QuickSettings.
	Quick    bool
	Settings Settings
	// DataDir holds movielens-100k/u1.base, movielens-100k/u1.test and
	// sweetrs/ratings-final.csv. Tables 6 and 7 are skipped, with a
	// message, when their files are absent.
	DataDir string
	// Workers is the number of trials run at once; ≤ 0 means GOMAXPROCS.
	Workers int
}

// ParseTables parses a --table value: a comma-separated list of table
// names, or "all".
func ParseTables(s string) ([]string, error) {
	if s == "all" {
		return slices.Clone(Tables), nil
	}
	var out []string
	for _, t := range strings.Split(s, ",") {
		t = strings.TrimSpace(t)
		if !slices.Contains(Tables, t) {
			return nil, fmt.Errorf("table %q: want one of %s or all", t, strings.Join(Tables, ", "))
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out, nil
}

// Trial is one solver run and its result. Pointer fields are null (empty in
// CSV) where they do not apply: Variance for noiseless and equal-privacy
// runs, Epsilon for noiseless runs, Alpha for non-Huber noise.
type Trial struct {
	Table     string   `json:"table"`
	Dataset   string   `json:"dataset"`
	Rank      int      `json:"rank"`
	Variance  *float64 `json:"variance"`
	Observed  float64  `json:"observed"`
	Algo      string   `json:"algo"`
	Mechanism string   `json:"mechanism"`
	// Epsilon is the per-release ε at Δ = 5 (δ = 1e-5 for Gaussian,
	// analytic): the paper's figure, not a guarantee for the model.
	Epsilon *float64 `json:"epsilon"`
	// Alpha and Scale are the Huber shape and the mechanism's scale
	// (Laplace b, Gaussian σ, Huber s).
	Alpha *float64 `json:"alpha,omitempty"`
	Scale *float64 `json:"scale,omitempty"`
	Trial int      `json:"trial"`
	RMSE  float64  `json:"rmse"`

	// Settings of the run.
	Rows         int     `json:"rows"`
	Cols         int     `json:"cols"`
	Iters        int     `json:"iters"`
	IRLSIters    int     `json:"irls_iters,omitempty"`
	Lambda       float64 `json:"lambda"`
	Threshold    float64 `json:"threshold,omitempty"`
	Init         string  `json:"init,omitempty"`
	DataSeed     uint64  `json:"data_seed"`
	NoiseSeed    uint64  `json:"noise_seed"`
	TrainRatings int     `json:"train_ratings"`
	EvalEntries  int     `json:"eval_entries"`
	Seconds      float64 `json:"seconds"`
}

// Key identifies the cell a trial belongs to: every field but the trial
// index, the result and the bookkeeping.
type Key struct {
	Table, Dataset string
	Rank           int
	Variance       float64 // NaN when not applicable
	Observed       float64
	Algo           string
	Mechanism      string
	Epsilon        float64 // NaN when not applicable
	Alpha          float64 // NaN when not applicable
}

// Key returns the trial's cell.
func (t *Trial) Key() Key {
	return Key{t.Table, t.Dataset, t.Rank, orNaN(t.Variance), t.Observed, t.Algo, t.Mechanism, orNaN(t.Epsilon), orNaN(t.Alpha)}
}

func orNaN(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

func ptr[T any](v T) *T { return &v }

// deriveSeed hashes the root seed with labels into an independent seed.
func deriveSeed(root uint64, labels ...any) uint64 {
	h := sha256.New()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], root)
	h.Write(b[:])
	fmt.Fprint(h, labels...)
	return binary.LittleEndian.Uint64(h.Sum(nil))
}

// noiseAt returns the mechanism mech at the paper's setting for noise
// variance v, with its per-release ε, Huber α and scale.
func noiseAt(mech string, v float64) (m noise.Mechanism, eps float64, alpha *float64, scale float64, err error) {
	switch mech {
	case MechGaussian:
		s, err := gaussian.SigmaForVariance(v)
		if err != nil {
			return nil, 0, nil, 0, err
		}
		g, err := gaussian.New(s)
		if err != nil {
			return nil, 0, nil, 0, err
		}
		e, err := gaussian.Epsilon(s, Sensitivity, Delta)
		return g, e, nil, s, err
	case MechLaplace:
		b, err := laplace.ScaleForVariance(v)
		if err != nil {
			return nil, 0, nil, 0, err
		}
		l, err := laplace.New(b)
		return l, Sensitivity / b, nil, b, err
	case MechHuber:
		a, s, err := huber.PaperSetting(v)
		if err != nil {
			return nil, 0, nil, 0, err
		}
		return huberAt(a, s)
	}
	return nil, 0, nil, 0, fmt.Errorf("mechanism %q", mech)
}

// noiseForEpsilon returns mech calibrated to per-release ε at Δ = 5
// (Gaussian at δ = 1e-5, analytic); alpha is Huber's shape.
func noiseForEpsilon(mech string, eps, alpha float64) (m noise.Mechanism, a *float64, scale float64, err error) {
	switch mech {
	case MechGaussian:
		s, err := gaussian.Sigma(eps, Sensitivity, Delta)
		if err != nil {
			return nil, nil, 0, err
		}
		g, err := gaussian.New(s)
		return g, nil, s, err
	case MechLaplace:
		b, err := laplace.ScaleForEpsilon(eps, Sensitivity)
		if err != nil {
			return nil, nil, 0, err
		}
		l, err := laplace.New(b)
		return l, nil, b, err
	case MechHuber:
		s, err := huber.ScaleForEpsilon(eps, alpha, Sensitivity)
		if err != nil {
			return nil, nil, 0, err
		}
		m, _, a, s, err := huberAt(alpha, s)
		return m, a, s, err
	}
	return nil, nil, 0, fmt.Errorf("mechanism %q", mech)
}

func huberAt(a, s float64) (noise.Mechanism, float64, *float64, float64, error) {
	h, err := huber.New(a, s)
	if err != nil {
		return nil, 0, nil, 0, err
	}
	e, err := huber.Epsilon(a, s, Sensitivity)
	return h, e, ptr(a), s, err
}

// SearchFile is the Markdown record of the synthetic-size search
// (written by go run ./internal/cmd/gensearch), included in the report when
// present in the results directory.
const SearchFile = "gensearch.md"
