package discrete

import "math"

// LogPMF returns log P(K = k) of the integer noise K: −|k|/t − log Z with
// Z = (1 + e^{−1/t})/(1 − e^{−1/t}), the exact normalizer. For auditors and
// likelihood tests; sampling never evaluates it.
func (m *Laplace) LogPMF(k int64) float64 {
	t := float64(m.t)
	logZ := math.Log1p(math.Exp(-1/t)) - math.Log(-math.Expm1(-1/t))
	return -math.Abs(float64(k))/t - logZ
}

// LogPMF returns log P(K = k) of the integer noise K: −k²/(2S) − log Z.
// For S ≥ 4 the normalizer is √(2πS), whose relative error is below
// 2·e^{−2π²S} < 10⁻³⁴ (Poisson summation); smaller S are summed directly.
// For auditors and likelihood tests; sampling never evaluates it.
func (m *Gaussian) LogPMF(k int64) float64 {
	s := float64(m.s)
	var logZ float64
	if s >= 4 {
		logZ = 0.5 * math.Log(2*math.Pi*s)
	} else {
		var z float64
		for j := -60; j <= 60; j++ {
			z += math.Exp(-float64(j*j) / (2 * s))
		}
		logZ = math.Log(z)
	}
	kf := float64(k)
	return -kf*kf/(2*s) - logZ
}

// LogPMF returns log P(J = j) of the integer noise J: −ρ_α(j/τ) − log Z,
// with the normalizer Z = Σ_j exp(−ρ_α(j/τ)) taken as τ times the
// continuous integral √(2π)(2Φ(α) − 1) + 2e^{−α²/2}/α. ρ_α has a
// continuous derivative, so the sum differs from τ·∫ by O(1/τ²) relative,
// below 2⁻⁶⁰ at the grid sizes NewHuber builds (τ ≥ 2⁴⁰). For auditors and
// likelihood tests, where log-ratios cancel Z; sampling never evaluates it.
func (m *Huber) LogPMF(j int64) float64 {
	tau := float64(m.tau)
	alpha := float64(m.a) / tau
	u := math.Abs(float64(j)) / tau
	var rho float64
	if u <= alpha {
		rho = u * u / 2
	} else {
		rho = alpha*u - alpha*alpha/2
	}
	z := math.Sqrt(2*math.Pi)*math.Erf(alpha/math.Sqrt2) + 2*math.Exp(-alpha*alpha/2)/alpha
	return -rho - math.Log(tau*z)
}
