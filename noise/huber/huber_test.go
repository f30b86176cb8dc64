package huber

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/integrate/quad"

	"github.com/dpmc/dpmc/internal/check"
	"github.com/dpmc/dpmc/internal/stattest"
	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/rng"
)

// TestSampleFitsExactCDF checks the sampler at several shapes and scales
// with 10⁵ draws each; see stattest.CheckSampler for the false-alarm rate.
func TestSampleFitsExactCDF(t *testing.T) {
	for i, alpha := range []float64{0.1, 1, 3, 20} {
		for j, scale := range []float64{1, 2.5} {
			t.Run(fmt.Sprintf("alpha=%g/s=%g", alpha, scale), func(t *testing.T) {
				m, err := New(alpha, scale)
				if err != nil {
					t.Fatal(err)
				}
				r := rng.Stream(2026, uint64(10*i+j))
				stattest.CheckSampler(t, 100000, func() float64 { return m.Sample(r) }, m.CDF, m.Variance())
			})
		}
	}
}

// TestSamplerDetectsWrongShape guards the test above against having no
// power: samples at α = 1 must be rejected against the α = 1.3 CDF.
func TestSamplerDetectsWrongShape(t *testing.T) {
	m, _ := New(1, 1)
	wrong, _ := New(1.3, 1)
	r := rng.Seeded(3)
	x := make([]float64, 100000)
	for i := range x {
		x[i] = m.Sample(r)
	}
	if _, p := stattest.KS(x, wrong.CDF); p > 1e-3 {
		t.Errorf("KS did not tell α = 1 from α = 1.3: p = %v", p)
	}
}

func TestSeededSamplesAreReproducible(t *testing.T) {
	m, _ := New(0.5, 2)
	a, b := rng.Seeded(99), rng.Seeded(99)
	for i := range 1000 {
		if x, y := m.Sample(a), m.Sample(b); math.Float64bits(x) != math.Float64bits(y) {
			t.Fatalf("draw %d differs: %v vs %v", i, x, y)
		}
	}
}

// integrate returns ∫ f over the real line for a unit-scale Huber integrand,
// split at ±α and truncated where the tail is below e^{-60}.
func integrate(f func(float64) float64, alpha float64) float64 {
	end := alpha + 60/alpha
	return quad.Fixed(f, -alpha, alpha, 200, nil, 0) +
		2*quad.Fixed(f, alpha, alpha+1/alpha, 200, nil, 0) +
		2*quad.Fixed(f, alpha+1/alpha, end, 2000, nil, 0)
}

func TestClosedFormsAgainstIntegration(t *testing.T) {
	for _, alpha := range []float64{0.05, 0.1, 0.5, 0.847, 1, 1.076, 3, 8, 20} {
		t.Run(fmt.Sprint("alpha=", alpha), func(t *testing.T) {
			kappa, err := Kappa(alpha)
			if err != nil {
				t.Fatal(err)
			}
			unnorm := func(x float64) float64 { return math.Exp(-Loss(alpha, x)) }
			if got := 1 / integrate(unnorm, alpha); math.Abs(got-kappa)/kappa > 1e-9 {
				t.Errorf("κ = %.12g, integration gives %.12g", kappa, got)
			}
			v, _ := UnitVariance(alpha)
			second := integrate(func(x float64) float64 { return x * x * kappa * unnorm(x) }, alpha)
			if math.Abs(second-v)/v > 1e-9 {
				t.Errorf("variance = %.12g, integration gives %.12g", v, second)
			}
			m, _ := New(alpha, 1)
			for _, x := range []float64{-alpha - 1, -alpha, -alpha / 2, 0, alpha / 3, alpha, alpha + 2} {
				want := quad.Fixed(m.PDF, -alpha-80/alpha, math.Min(x, -alpha), 4000, nil, 0)
				if x > -alpha {
					want += quad.Fixed(m.PDF, -alpha, math.Min(x, alpha), 400, nil, 0)
				}
				if x > alpha {
					want += quad.Fixed(m.PDF, alpha, x, 400, nil, 0)
				}
				if got := m.CDF(x); math.Abs(got-want) > 1e-9 {
					t.Errorf("CDF(%v) = %.12g, integration gives %.12g", x, got, want)
				}
			}
		})
	}
}

func TestScaledDistribution(t *testing.T) {
	unit, _ := New(1.5, 1)
	m, _ := New(1.5, 4)
	uv, _ := UnitVariance(1.5)
	if got, want := m.Variance(), 16*uv; math.Abs(got-want) > 1e-12*want {
		t.Errorf("Variance at s=4 = %v, want 16·%v", got, uv)
	}
	for _, x := range []float64{-9, -3, 0, 1, 6.5} {
		if got, want := m.CDF(x), unit.CDF(x/4); math.Abs(got-want) > 1e-15 {
			t.Errorf("CDF(%v) = %v, want %v", x, got, want)
		}
		if got, want := m.LogPDF(x), unit.LogPDF(x/4)-math.Log(4); math.Abs(got-want) > 1e-12 {
			t.Errorf("LogPDF(%v) = %v, want %v", x, got, want)
		}
	}
}

func TestSymmetry(t *testing.T) {
	for _, alpha := range []float64{0.1, 1, 3, 20} {
		m, _ := New(alpha, 1.7)
		for x := 0.0; x < 30; x += 0.37 {
			if s := m.CDF(x) + m.CDF(-x); math.Abs(s-1) > 1e-14 {
				t.Errorf("α=%v: CDF(%v) + CDF(−%v) = %v, want 1", alpha, x, x, s)
			}
			if m.LogPDF(x) != m.LogPDF(-x) {
				t.Errorf("α=%v: density not symmetric at %v", alpha, x)
			}
		}
	}
}

// TestVarianceLimits checks the variance decreases in α towards 1, stays
// above 1, and blows up like 2/α² as α → 0.
func TestVarianceLimits(t *testing.T) {
	prev := math.Inf(1)
	for alpha := 0.01; alpha < 40; alpha *= 1.1 {
		v, _ := UnitVariance(alpha)
		if !(v < prev) && v != 1 {
			t.Fatalf("variance not decreasing at α = %v: %v after %v", alpha, v, prev)
		}
		if v < 1 {
			t.Fatalf("variance %v < 1 at α = %v", v, alpha)
		}
		prev = v
	}
	v, _ := UnitVariance(1e-6)
	if want := 2 / 1e-12; math.Abs(v-want)/want > 1e-6 {
		t.Errorf("variance at α = 1e-6 = %v, want ≈ 2/α² = %v", v, want)
	}
	v, _ = UnitVariance(1e-100)
	if want := 2e200; math.Abs(v-want)/want > 1e-12 {
		t.Errorf("variance at the smallest α, 1e-100, = %v, want 2/α² = %v", v, want)
	}
	if v, _ := UnitVariance(3); math.Abs(v-1.0036102159699818) > 1e-12 {
		t.Errorf("variance at α = 3 = %v, want 1.00361", v)
	}
}

// TestPrivacyLossBound checks the theorem ε = α·Δ/s on a fine grid: the
// largest log p(t) − log p(t + Δ) equals α·Δ/s and is never exceeded,
// including Δ > 2α (the paper's case 2).
func TestPrivacyLossBound(t *testing.T) {
	tests := []struct{ alpha, scale, delta float64 }{
		{1, 1, 1},
		{1, 1, 0.3},
		{1, 1, 5},   // Δ > 2α
		{0.3, 1, 2}, // Δ > 2α
		{3, 1, 5},
		{3, 2, 5},
		{0.847, 0.5, 5}, // Δ/s > 2α
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("α=%g,s=%g,Δ=%g", tt.alpha, tt.scale, tt.delta), func(t *testing.T) {
			m, _ := New(tt.alpha, tt.scale)
			g, err := m.Guarantee(noise.Sensitivity{L1: tt.delta}, 0)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.alpha * tt.delta / tt.scale
			if math.Abs(g.Epsilon-want) > 1e-12 || g.Delta != 0 {
				t.Fatalf("Guarantee = %v, want pure ε = %v", g, want)
			}
			lim := (tt.alpha + tt.delta + 5) * tt.scale
			maxLoss := math.Inf(-1)
			for x := -lim; x <= lim; x += lim / 200000 {
				for _, sign := range []float64{1, -1} {
					loss := m.LogPDF(x) - m.LogPDF(x+sign*tt.delta)
					maxLoss = math.Max(maxLoss, loss)
				}
			}
			if maxLoss > want*(1+1e-12) {
				t.Errorf("privacy loss reaches %v > ε = %v", maxLoss, want)
			}
			if maxLoss < want*(1-1e-9) {
				t.Errorf("largest privacy loss on the grid %v, want it to attain ε = %v", maxLoss, want)
			}
		})
	}
}

func TestAlphaForVariance(t *testing.T) {
	for _, v := range []float64{1.0001, 1.0036, 1.5, 2, 2.977, 3, 4, 100, 1e6} {
		alpha, err := AlphaForVariance(v)
		if err != nil {
			t.Fatalf("AlphaForVariance(%v): %v", v, err)
		}
		got, _ := UnitVariance(alpha)
		if math.Abs(got-v)/v > 1e-12 {
			t.Errorf("AlphaForVariance(%v) = %v, whose variance is %v", v, alpha, got)
		}
	}
}

func TestScaleForEpsilon(t *testing.T) {
	s, err := ScaleForEpsilon(2, 3, 5)
	if err != nil || s != 7.5 {
		t.Fatalf("ScaleForEpsilon(2, 3, 5) = %v, %v; want 7.5", s, err)
	}
	eps, err := Epsilon(3, s, 5)
	if err != nil || math.Abs(eps-2) > 1e-15 {
		t.Errorf("round trip ε = %v, %v; want 2", eps, err)
	}
}

func TestInfluenceAndWeight(t *testing.T) {
	tests := []struct{ alpha, r, psi, w float64 }{
		{1, 0, 0, 1},
		{1, 0.5, 0.5, 1},
		{1, -1, -1, 1},
		{1, 4, 1, 0.25},
		{2, -8, -2, 0.25},
	}
	for _, tt := range tests {
		if got := Influence(tt.alpha, tt.r); got != tt.psi {
			t.Errorf("Influence(%v, %v) = %v, want %v", tt.alpha, tt.r, got, tt.psi)
		}
		if got := Weight(tt.alpha, tt.r); got != tt.w {
			t.Errorf("Weight(%v, %v) = %v, want %v", tt.alpha, tt.r, got, tt.w)
		}
	}
}

func TestBadParameters(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		name string
		call func() error
		want string // substring naming the parameter
	}{
		{"alpha zero", func() error { _, err := New(0, 1); return err }, "alpha"},
		{"alpha negative", func() error { _, err := New(-1, 1); return err }, "alpha"},
		{"alpha NaN", func() error { _, err := New(nan, 1); return err }, "alpha"},
		{"alpha Inf", func() error { _, err := New(inf, 1); return err }, "alpha"},
		{"alpha tiny", func() error { _, err := New(1e-200, 1); return err }, "alpha"},
		{"scale zero", func() error { _, err := New(1, 0); return err }, "scale"},
		{"scale NaN", func() error { _, err := New(1, nan); return err }, "scale"},
		{"scale -Inf", func() error { _, err := New(1, -inf); return err }, "scale"},
		{"kappa alpha", func() error { _, err := Kappa(-2); return err }, "alpha"},
		{"variance alpha", func() error { _, err := UnitVariance(nan); return err }, "alpha"},
		{"variance one", func() error { _, err := AlphaForVariance(1); return err }, "exceeds 1"},
		{"variance below one", func() error { _, err := AlphaForVariance(0.5); return err }, "variance"},
		{"variance NaN", func() error { _, err := AlphaForVariance(nan); return err }, "variance"},
		{"epsilon zero", func() error { _, err := ScaleForEpsilon(0, 1, 1); return err }, "epsilon"},
		{"epsilon Inf", func() error { _, err := ScaleForEpsilon(inf, 1, 1); return err }, "epsilon"},
		{"sensitivity zero", func() error { _, err := ScaleForEpsilon(1, 1, 0); return err }, "L1"},
		{"guarantee L1 missing", func() error {
			m, _ := New(1, 1)
			_, err := m.Guarantee(noise.Sensitivity{L2: 5}, 0)
			return err
		}, "L1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, check.ErrParam) {
				t.Errorf("error %q does not wrap check.ErrParam", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not mention %q", err, tt.want)
			}
		})
	}
}

func TestPaperSetting(t *testing.T) {
	tests := []struct {
		v, alpha, scale float64
	}{
		{1, 3, 1},
		{0.25, 3, 0.5 / math.Sqrt(1.0036102159699818)},
	}
	for _, tt := range tests {
		a, s, err := PaperSetting(tt.v)
		if err != nil || a != tt.alpha || math.Abs(s-tt.scale) > 1e-12 {
			t.Errorf("PaperSetting(%v) = %v, %v, %v; want %v, %v", tt.v, a, s, err, tt.alpha, tt.scale)
		}
	}
	for _, v := range []float64{0.25, 1.5, 2, 9} {
		a, s, _ := PaperSetting(v)
		h, _ := New(a, s)
		if math.Abs(h.Variance()-v) > 1e-9*v {
			t.Errorf("PaperSetting(%v) gives variance %v", v, h.Variance())
		}
	}
}
