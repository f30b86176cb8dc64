package laplace

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

// TestSampleFitsExactCDF: 10⁵ draws per scale; false-alarm rate in
// stattest.CheckSampler.
func TestSampleFitsExactCDF(t *testing.T) {
	for i, b := range []float64{0.1, 1, 3.5} {
		t.Run(fmt.Sprint("b=", b), func(t *testing.T) {
			m, err := New(b)
			if err != nil {
				t.Fatal(err)
			}
			r := rng.Stream(11, uint64(i))
			stattest.CheckSampler(t, 100000, func() float64 { return m.Sample(r) }, m.CDF, m.Variance())
		})
	}
}

// TestAgainstGonum compares the closed forms with gonum's independent
// implementation of the Laplace distribution.
func TestAgainstGonum(t *testing.T) {
	for _, b := range []float64{0.2, 1, 7} {
		m, _ := New(b)
		ref := distuv.Laplace{Mu: 0, Scale: b}
		if got, want := m.Variance(), ref.Variance(); math.Abs(got-want) > 1e-12*want {
			t.Errorf("b=%v: Variance = %v, gonum %v", b, got, want)
		}
		for _, x := range []float64{-20, -1, -0.1, 0, 0.3, 2, 15} {
			if got, want := m.CDF(x), ref.CDF(x); math.Abs(got-want) > 1e-14 {
				t.Errorf("b=%v: CDF(%v) = %v, gonum %v", b, x, got, want)
			}
			if got, want := m.LogPDF(x), ref.LogProb(x); math.Abs(got-want) > 1e-12 {
				t.Errorf("b=%v: LogPDF(%v) = %v, gonum %v", b, x, got, want)
			}
		}
	}
}

// TestPrivacyLossBound: the largest log-density ratio of noise shifted by Δ
// equals Δ/b, the claimed ε.
func TestPrivacyLossBound(t *testing.T) {
	for _, tt := range []struct{ b, delta float64 }{{1, 1}, {0.5, 5}, {2, 0.1}} {
		m, _ := New(tt.b)
		g, err := m.Guarantee(noise.Sensitivity{L1: tt.delta}, 0)
		if err != nil {
			t.Fatal(err)
		}
		maxLoss := math.Inf(-1)
		for x := -20.0; x <= 20; x += 1e-3 {
			maxLoss = math.Max(maxLoss, m.LogPDF(x)-m.LogPDF(x+tt.delta))
		}
		if math.Abs(maxLoss-g.Epsilon) > 1e-9 || g.Delta != 0 {
			t.Errorf("b=%v Δ=%v: max loss %v, claimed %v", tt.b, tt.delta, maxLoss, g)
		}
	}
}

func TestCalibration(t *testing.T) {
	b, err := ScaleForEpsilon(2, 5)
	if err != nil || b != 2.5 {
		t.Errorf("ScaleForEpsilon(2, 5) = %v, %v; want 2.5", b, err)
	}
	b, err = ScaleForVariance(8)
	if err != nil || b != 2 {
		t.Errorf("ScaleForVariance(8) = %v, %v; want 2", b, err)
	}
}

func TestBadParameters(t *testing.T) {
	tests := []struct {
		name string
		call func() error
		want string
	}{
		{"scale zero", func() error { _, err := New(0); return err }, "scale"},
		{"scale NaN", func() error { _, err := New(math.NaN()); return err }, "scale"},
		{"scale Inf", func() error { _, err := New(math.Inf(1)); return err }, "scale"},
		{"scale huge", func() error { _, err := New(1e200); return err }, "scale"},
		{"epsilon negative", func() error { _, err := ScaleForEpsilon(-1, 1); return err }, "epsilon"},
		{"sensitivity NaN", func() error { _, err := ScaleForEpsilon(1, math.NaN()); return err }, "L1"},
		{"variance zero", func() error { _, err := ScaleForVariance(0); return err }, "variance"},
		{"guarantee without L1", func() error {
			m, _ := New(1)
			_, err := m.Guarantee(noise.Sensitivity{L2: 1}, 0)
			return err
		}, "L1"},
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
