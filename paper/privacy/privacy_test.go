package privacy

import (
	"strings"
	"testing"

	"github.com/dpmc/dpmc/accounting"
	"github.com/dpmc/dpmc/noise/gaussian"
	"github.com/dpmc/dpmc/noise/laplace"
	"github.com/dpmc/dpmc/solver"
)

func userOpts(algo solver.Algorithm) solver.Options {
	return solver.Options{
		Algorithm: algo, Rank: 4, Lambda: 1, Iters: 5, IRLSIters: 3, Threshold: 1,
		UserLevel: &solver.UserLevel{Center: 3, Bound: 2, MaxUserRatings: 20, ClipNorm: 1},
	}
}

func TestCalibrateMeetsTarget(t *testing.T) {
	tests := []struct {
		mech  string
		algo  solver.Algorithm
		alpha float64
		eps   float64
	}{
		{"gaussian", solver.ALS, 0, 1},
		{"gaussian", solver.IRLS, 0, 5},
		{"laplace", solver.ALS, 0, 2},
		{"huber", solver.IRLS, 1, 10},
	}
	for _, tt := range tests {
		opts := userOpts(tt.algo)
		m, totals, err := Calibrate(opts, tt.mech, tt.alpha, tt.eps, 1e-6)
		if err != nil {
			t.Fatalf("%s: %v", tt.mech, err)
		}
		best, err := totals.Tightest()
		if err != nil || best.Epsilon > tt.eps || best.Delta > 1e-6 {
			t.Errorf("%s: tightest %+v, %v; want ε ≤ %v", tt.mech, best, err, tt.eps)
		}
		opts.Noise = m
		r, err := User(opts, 1e-6)
		if err != nil {
			t.Fatal(err)
		}
		if r.ReleasesPerUser != opts.Releases() || *r.TotalEpsilon > tt.eps || *r.TotalEpsilon < 0.95*tt.eps || !r.CoversGram || r.Unit != "user" {
			t.Errorf("%s: report %+v", tt.mech, r)
		}
		if strings.HasPrefix(r.Guarantee, "none") {
			t.Errorf("%s: unseeded calibrated run reported no guarantee", tt.mech)
		}
	}
}

func TestUserReportMatchesAccountant(t *testing.T) {
	opts := userOpts(solver.IRLS)
	var err error
	if opts.Noise, err = gaussian.New(40); err != nil {
		t.Fatal(err)
	}
	opts.Seeded = true
	r, err := User(opts, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	sens, _ := opts.Sensitivity()
	totals, err := accounting.Compose(opts.Noise, sens, 15, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	best, _ := totals.Tightest()
	if r.ReleasesPerUser != 15 || *r.TotalEpsilon != best.Epsilon || r.Accountant != best.Accountant || r.Sensitivity != sens {
		t.Errorf("report %+v, want %d releases and %+v", r, 15, best)
	}
	if r.Guarantee != "none" || !strings.Contains(strings.Join(r.Notes, " "), "seeded") {
		t.Errorf("seeded run: guarantee %q, notes %q", r.Guarantee, r.Notes)
	}
}

func TestPaperReportGuaranteesNothing(t *testing.T) {
	b, _ := laplace.New(1)
	opts := solver.Options{Algorithm: solver.IRLS, Rank: 3, Lambda: 0.5, Iters: 10, IRLSIters: 2, Threshold: 3, Noise: b}
	r, err := Paper(opts, 5, 7, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(r.Notes, " ")
	if r.Guarantee != "none" || r.CoversGram || r.Unit != "rating" || r.ReleasesPerUser != 10*2*7 || *r.PerReleaseEpsilon != 5 ||
		!strings.Contains(notes, "NOT a guarantee") || !strings.Contains(notes, "Gram matrix") {
		t.Errorf("paper report %+v", r)
	}
}

func TestErrors(t *testing.T) {
	plain := solver.Options{Algorithm: solver.ALS, Rank: 2, Lambda: 1, Iters: 2}
	if _, _, err := Calibrate(plain, "gaussian", 0, 1, 1e-6); err == nil {
		t.Error("calibration without user level")
	}
	if _, _, err := Calibrate(userOpts(solver.ALS), "cauchy", 0, 1, 1e-6); err == nil || !strings.Contains(err.Error(), "cauchy") {
		t.Errorf("unknown mechanism: %v", err)
	}
	if _, err := User(userOpts(solver.ALS), 1e-6); err == nil {
		t.Error("user report without noise")
	}
}
