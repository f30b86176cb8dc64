// Package stattest holds the goodness-of-fit statistics that dpmc's tests use
// to check its samplers against their exact distributions: the one-sample
// Kolmogorov–Smirnov test and a z-score helper.
package stattest

import (
	"math"
	"slices"
)

// KS returns the one-sample Kolmogorov–Smirnov statistic
// D = sup_x |F_n(x) − F(x)| of the samples against the distribution function
// cdf, and its asymptotic p-value. It sorts samples in place.
func KS(samples []float64, cdf func(float64) float64) (d, p float64) {
	slices.Sort(samples)
	n := float64(len(samples))
	for i, x := range samples {
		f := cdf(x)
		d = math.Max(d, math.Max(f-float64(i)/n, float64(i+1)/n-f))
	}
	return d, KolmogorovQ((math.Sqrt(n) + 0.12 + 0.11/math.Sqrt(n)) * d)
}

// KolmogorovQ returns P(K > λ) for the Kolmogorov distribution,
// 2 Σ_{k≥1} (−1)^{k−1} e^{−2k²λ²}, with Stephens' finite-n correction left to
// the caller.
func KolmogorovQ(lambda float64) float64 {
	if lambda < 0.2 {
		return 1
	}
	var sum float64
	sign := 1.0
	for k := 1; k <= 100; k++ {
		term := sign * math.Exp(-2*float64(k*k)*lambda*lambda)
		sum += term
		if math.Abs(term) < 1e-16 {
			break
		}
		sign = -sign
	}
	return math.Min(1, math.Max(0, 2*sum))
}

// Moments returns the sample mean, the sample variance (divisor n − 1) and
// the standard errors of both; the variance's standard error uses the
// sample fourth central moment, √((m₄ − s⁴)/n).
func Moments(x []float64) (mean, variance, seMean, seVar float64) {
	n := float64(len(x))
	for _, v := range x {
		mean += v
	}
	mean /= n
	var m2, m4 float64
	for _, v := range x {
		d := (v - mean) * (v - mean)
		m2 += d
		m4 += d * d
	}
	variance = m2 / (n - 1)
	m4 /= n
	return mean, variance, math.Sqrt(variance / n), math.Sqrt(math.Max(m4-variance*variance, 0) / n)
}
