package stattest

import (
	"math"
	"testing"
)

// Critical levels of CheckSampler. Under the null hypothesis (the sampler is
// right) one call falsely fails with probability about 1.02e-3: 1e-3 from the
// KS test plus 6.8e-6 for each of three |z| > 4.5 checks. Tests call it at
// fixed seeds, so a given seed either always passes or always fails.
const (
	KSLevel = 1e-3
	ZLimit  = 4.5
)

// CheckSampler draws n values from a symmetric zero-mean noise sampler and
// reports through t any misfit: a Kolmogorov–Smirnov test against the exact
// cdf, the sample mean against 0, the sample variance against wantVar, and
// symmetry (the count of positive draws against n/2).
func CheckSampler(t testing.TB, n int, draw func() float64, cdf func(float64) float64, wantVar float64) {
	t.Helper()
	x := make([]float64, n)
	pos := 0
	for i := range x {
		x[i] = draw()
		if math.IsNaN(x[i]) || math.IsInf(x[i], 0) {
			t.Fatalf("draw %d = %v", i, x[i])
		}
		if x[i] > 0 {
			pos++
		}
	}
	mean, v, seMean, seVar := Moments(x)
	if z := mean / seMean; math.Abs(z) > ZLimit {
		t.Errorf("mean = %.5g, want 0 (z = %.2f)", mean, z)
	}
	if z := (v - wantVar) / seVar; math.Abs(z) > ZLimit {
		t.Errorf("variance = %.6g, want %.6g (z = %.2f)", v, wantVar, z)
	}
	if z := (float64(pos) - float64(n)/2) / math.Sqrt(float64(n)/4); math.Abs(z) > ZLimit {
		t.Errorf("%d of %d draws positive, want half (z = %.2f)", pos, n, z)
	}
	if d, p := KS(x, cdf); p < KSLevel {
		t.Errorf("Kolmogorov–Smirnov D = %.5f, p = %.3g < %g: samples do not follow the CDF", d, p, KSLevel)
	}
}
