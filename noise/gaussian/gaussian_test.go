package gaussian

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/dpmc/dpmc/internal/check"
	"github.com/dpmc/dpmc/internal/stattest"
	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/rng"
)

// TestSampleFitsExactCDF: 10⁵ draws per σ; false-alarm rate in
// stattest.CheckSampler.
func TestSampleFitsExactCDF(t *testing.T) {
	for i, sigma := range []float64{0.3, 1, 4} {
		t.Run(fmt.Sprint("sigma=", sigma), func(t *testing.T) {
			m, err := New(sigma)
			if err != nil {
				t.Fatal(err)
			}
			r := rng.Stream(5, uint64(i))
			stattest.CheckSampler(t, 100000, func() float64 { return m.Sample(r) }, m.CDF, m.Variance())
		})
	}
}

// TestDeltaAgainstDirectFormula evaluates Balle & Wang's δ(ε) with gonum's
// normal CDF, independently of Phi and LogPhi, where no term underflows.
func TestDeltaAgainstDirectFormula(t *testing.T) {
	n := distuv.UnitNormal
	for _, tt := range []struct{ sigma, l2, eps float64 }{
		{1, 1, 0}, {1, 1, 1}, {1, 1, 3}, {2, 5, 1.5}, {0.5, 1, 4}, {5, 1, 0.1},
	} {
		mu := tt.l2 / tt.sigma
		want := n.CDF(mu/2-tt.eps/mu) - math.Exp(tt.eps)*n.CDF(-mu/2-tt.eps/mu)
		got, err := Delta(tt.sigma, tt.l2, tt.eps)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-want) > 1e-12+1e-9*want {
			t.Errorf("Delta(%v, %v, %v) = %.15g, want %.15g", tt.sigma, tt.l2, tt.eps, got, want)
		}
	}
	// A hand-checked value: σ = Δ, ε = 1 gives Φ(−0.5) − e·Φ(−1.5).
	got, _ := Delta(1, 1, 1)
	if math.Abs(got-0.12693673750664397) > 1e-12 {
		t.Errorf("Delta(1, 1, 1) = %v, want 0.126937", got)
	}
}

func TestLogPhi(t *testing.T) {
	for _, x := range []float64{3, 0, -1, -10, -30, -34.999} {
		if got, want := LogPhi(x), math.Log(distuv.UnitNormal.CDF(x)); math.Abs(got-want) > 1e-10*math.Max(1, math.Abs(want)) {
			t.Errorf("LogPhi(%v) = %v, want %v", x, got, want)
		}
	}
	// Continuity across the switch to the asymptotic series at −35.
	if a, b := LogPhi(-35+1e-9), LogPhi(-35-1e-9); math.Abs(a-b) > 1e-6 {
		t.Errorf("LogPhi jumps at −35: %v vs %v", a, b)
	}
	if v := LogPhi(-1e4); math.IsInf(v, 0) || math.IsNaN(v) || v > -5e7 {
		t.Errorf("LogPhi(−1e4) = %v, want about −5e7", v)
	}
}

// TestCalibrationRoundTrips: Epsilon and Sigma invert Delta.
func TestCalibrationRoundTrips(t *testing.T) {
	for _, tt := range []struct{ sigma, l2, delta float64 }{
		{1, 5, 1e-5}, {2, 5, 1e-5}, {4, 1, 1e-6}, {0.7, 1, 1e-3}, {1, 1, 1e-10}, {30, 5, 1e-5},
	} {
		eps, err := Epsilon(tt.sigma, tt.l2, tt.delta)
		if err != nil {
			t.Fatal(err)
		}
		if d, _ := Delta(tt.sigma, tt.l2, eps); math.Abs(d-tt.delta) > 1e-6*tt.delta {
			t.Errorf("σ=%v Δ=%v: δ(Epsilon=%v) = %v, want %v", tt.sigma, tt.l2, eps, d, tt.delta)
		}
		sigma, err := Sigma(eps, tt.l2, tt.delta)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(sigma-tt.sigma) > 1e-6*tt.sigma {
			t.Errorf("Sigma(Epsilon(σ=%v)) = %v", tt.sigma, sigma)
		}
	}
}

// TestAnalyticBeatsClassic: where the classic bound is valid (ε < 1) the
// exact calibration needs less noise; at ε = 1, δ = 1e-5, Δ = 1 Balle &
// Wang report σ ≈ 3.73 against the classic 4.85.
func TestAnalyticBeatsClassic(t *testing.T) {
	for _, eps := range []float64{0.05, 0.2, 0.5, 0.9} {
		for _, delta := range []float64{1e-3, 1e-5, 1e-8} {
			a, _ := Sigma(eps, 1, delta)
			c, err := ClassicSigma(eps, 1, delta)
			if err != nil {
				t.Fatal(err)
			}
			if a >= c {
				t.Errorf("ε=%v δ=%v: analytic σ %v ≥ classic %v", eps, delta, a, c)
			}
		}
	}
	if a, _ := Sigma(1, 1, 1e-5); math.Abs(a-3.73) > 0.01 {
		t.Errorf("analytic σ(ε=1, δ=1e-5) = %v, want ≈ 3.73", a)
	}
}

func TestZeroEpsilonWhenNoiseSwampsSignal(t *testing.T) {
	// δ(0) = 2Φ(Δ/2σ) − 1 ≈ 4e-6 < 1e-5: every ε ≥ 0 works.
	eps, err := Epsilon(1e5, 1, 1e-5)
	if err != nil || eps != 0 {
		t.Errorf("Epsilon(1e5, 1, 1e-5) = %v, %v; want 0", eps, err)
	}
}

func TestClassic(t *testing.T) {
	eps, err := ClassicEpsilon(10, 1, 1e-5)
	if err != nil {
		t.Fatalf("ClassicEpsilon in range: %v", err)
	}
	if want := math.Sqrt(2*math.Log(1.25e5)) / 10; math.Abs(eps-want) > 1e-15 {
		t.Errorf("ClassicEpsilon = %v, want %v", eps, want)
	}
	eps, err = ClassicEpsilon(1, 5, 1e-5)
	if !errors.Is(err, ErrClassicRange) {
		t.Errorf("ClassicEpsilon at ε ≈ 24 gave err %v, want ErrClassicRange", err)
	}
	if math.Abs(eps-24.2240) > 1e-3 {
		t.Errorf("out-of-range value = %v, want the formula's 24.2240", eps)
	}
	if _, err := ClassicSigma(1, 1, 1e-5); !errors.Is(err, ErrClassicRange) {
		t.Errorf("ClassicSigma(ε=1) err = %v, want ErrClassicRange", err)
	}
}

func TestGuarantee(t *testing.T) {
	m, _ := New(2)
	g, err := m.Guarantee(noise.Sensitivity{L2: 5}, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Epsilon(2, 5, 1e-5)
	if g.Epsilon != want || g.Delta != 1e-5 {
		t.Errorf("Guarantee = %v, want (%v, 1e-5)", g, want)
	}
}

func TestBadParameters(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name string
		call func() error
		want string
	}{
		{"sigma zero", func() error { _, err := New(0); return err }, "sigma"},
		{"sigma NaN", func() error { _, err := New(nan); return err }, "sigma"},
		{"delta zero", func() error { _, err := Epsilon(1, 1, 0); return err }, "delta"},
		{"delta one", func() error { _, err := Epsilon(1, 1, 1); return err }, "delta"},
		{"delta NaN", func() error { _, err := Sigma(1, 1, nan); return err }, "delta"},
		{"epsilon zero", func() error { _, err := Sigma(0, 1, 1e-5); return err }, "epsilon"},
		{"epsilon negative", func() error { _, err := Delta(1, 1, -1); return err }, "epsilon"},
		{"L2 missing", func() error {
			m, _ := New(1)
			_, err := m.Guarantee(noise.Sensitivity{L1: 1}, 1e-5)
			return err
		}, "L2"},
		{"classic delta", func() error { _, err := ClassicSigma(0.5, 1, 2); return err }, "delta"},
		{"variance negative", func() error { _, err := SigmaForVariance(-1); return err }, "variance"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if err == nil || !errors.Is(err, check.ErrParam) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want a check.ErrParam naming %q", err, tt.want)
			}
		})
	}
}
