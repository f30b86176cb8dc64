package discrete

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"sync"

	"github.com/dpmc/dpmc/internal/check"
	"github.com/dpmc/dpmc/noise"
)

// Gaussian is the discrete Gaussian mechanism of Canonne, Kamath & Steinke
// (2020) on the grid γℤ: noise γ·K with P(K = k) ∝ exp(−k²/(2S)) for an
// integer S ≈ (σ/γ)² in [2⁵⁶, 2⁵⁸]. Build it with NewGaussian; it is
// immutable and safe for concurrent use.
type Gaussian struct {
	gamma float64
	s     uint64 // σ² in grid units
	t     uint64 // ⌊√S⌋ + 1, the proposal's Laplace scale
	den   u128   // 2·S·t², the acceptance denominator
	denB  *big.Int
	sB    *big.Int

	zigOnce sync.Once
	zig     *zigTable // nil if the table could not be built
}

var _ Mechanism = (*Gaussian)(nil)

// NewGaussian returns the discrete Gaussian mechanism closest to N(0, σ²)
// (σ in units of the statistic): γ is the largest power of two ≤ σ·2⁻²⁸,
// and σ² in grid units is rounded up to an integer, S = ⌈(σ/γ)²⌉, so the
// parameter used, Sigma() = √S·γ, exceeds σ by less than 2⁻⁵⁷ relative. It
// returns an error wrapping ErrParam unless σ is in [1e-100, 1e100].
func NewGaussian(sigma float64) (*Gaussian, error) {
	if err := check.NoiseParam("Gaussian σ", sigma); err != nil {
		return nil, fmt.Errorf("discrete: %w", err)
	}
	g := gridFor(sigma, gridBitsGaussian)
	x := new(big.Float).SetPrec(256).SetFloat64(sigma / g) // exact
	x.Mul(x, x)                                            // exact at 256 bits
	sq, acc := x.Int(nil)
	if acc == big.Below {
		sq.Add(sq, big1)
	}
	return newGaussianGrid(g, sq), nil
}

// newGaussianGrid returns the discrete Gaussian with σ² = sq (an integer
// ≥ 1, below 2⁶⁰) in grid units of g.
func newGaussianGrid(g float64, sq *big.Int) *Gaussian {
	t := new(big.Int).Sqrt(sq)
	t.Add(t, big1)
	den := new(big.Int).Mul(t, t)
	den.Mul(den, sq)
	den.Lsh(den, 1)
	m := &Gaussian{gamma: g, s: sq.Uint64(), t: t.Uint64(), denB: den, sB: sq}
	m.den = u128{new(big.Int).Rsh(den, 64).Uint64(), den.Uint64()}
	return m
}

// Name returns "discrete-gaussian".
func (m *Gaussian) Name() string { return "discrete-gaussian" }

// String describes the mechanism, e.g. "discrete-gaussian(σ=49, γ=2^-23)".
func (m *Gaussian) String() string {
	return fmt.Sprintf("discrete-gaussian(σ=%.6g, γ=2^%d)", m.Sigma(), math.Ilogb(m.gamma))
}

// Granularity returns the grid step γ.
func (m *Gaussian) Granularity() float64 { return m.gamma }

// Sigma returns the parameter actually used, √S·γ, in units of the
// statistic.
func (m *Gaussian) Sigma() float64 { return math.Sqrt(float64(m.s)) * m.gamma }

// GridSigma2 returns S, the parameter σ² in grid units: P(K = k) ∝
// exp(−k²/(2S)).
func (m *Gaussian) GridSigma2() uint64 { return m.s }

// Int draws K with P(K = k) ∝ exp(−k²/(2S)), exactly, from a ziggurat on
// the grid (see the package comment); the table is built on the first
// call, in about 40 µs. Should it fail to build, Int falls back
// to intRejection, exact too.
func (m *Gaussian) Int(r *rand.Rand) int64 {
	m.zigOnce.Do(func() {
		m.zig, _ = newGaussianZig(m.s)
	})
	if m.zig != nil {
		return m.zig.draw(r)
	}
	return m.intRejection(r)
}

// intRejection draws K with P(K = k) ∝ exp(−k²/(2S)), exactly: CKS
// Algorithm 3. Y is discrete Laplace with scale t = ⌊√S⌋ + 1 and is accepted with
// probability exp(−(|Y| − S/t)²/(2S)) = exp(−(|Y|·t − S)²/(2·S·t²)).
func (m *Gaussian) intRejection(r *rand.Rand) int64 {
	for {
		y := laplaceInt(r, from64(m.t), 1)
		a := abs64(y)
		hi, lo := mul64Check(a, m.t)
		if !hi {
			var d uint64
			if lo >= m.s {
				d = lo - m.s
			} else {
				d = m.s - lo
			}
			if bernExp(r, mul64(d, d), m.den) {
				return y
			}
			continue
		}
		// |Y|·t ≥ 2⁶⁴: far tail (|Y| > 2³⁵ ≫ 2⁶σ), exact in math/big.
		d := new(big.Int).SetUint64(a)
		d.Mul(d, new(big.Int).SetUint64(m.t))
		d.Sub(d, m.sB)
		d.Mul(d, d)
		if bernExpBig(r, d, m.denB) {
			return y
		}
	}
}

// mul64Check returns whether a·b overflows 64 bits, and the product.
func mul64Check(a, b uint64) (bool, uint64) {
	p := mul64(a, b)
	return p.hi != 0, p.lo
}

// Sample returns one noise value γ·K. Add it only to values already on the
// grid (AddTo and noise.AddNoise do the rounding).
func (m *Gaussian) Sample(r *rand.Rand) float64 { return float64(m.Int(r)) * m.gamma }

// AddTo returns v rounded to the grid plus one noise draw (see
// noise.Granular).
func (m *Gaussian) AddTo(v float64, r *rand.Rand) float64 { return addTo(v, m.gamma, m.Int(r)) }

// Variance returns the variance of one noise value. For S ≥ 2⁵⁶ it equals
// S·γ² = Sigma()² up to a relative error below e^{−2⁵⁶} (Poisson
// summation; CKS Corollary 9 bounds it by σ² in any case).
func (m *Gaussian) Variance() float64 { return float64(m.s) * m.gamma * m.gamma }

// ZCDP returns ρ such that one release of a grid-rounded statistic whose
// ℓ2 sensitivity (after rounding; see RoundedSensitivity) is l2 is ρ-zCDP:
// ρ = (l2/γ)²/(2S) = l2²/(2·Sigma()²), rounded up (CKS Theorem 14: the
// Rényi divergence of discrete Gaussians shifted by an integer vector of
// norm Δ is at most αΔ²/(2σ²)). k releases are (k·ρ)-zCDP.
func (m *Gaussian) ZCDP(l2 float64) (float64, error) {
	if err := check.NonNegative("sensitivity L2", l2); err != nil {
		return 0, fmt.Errorf("discrete: %w", err)
	}
	d := l2 / m.gamma // exact
	if math.IsInf(d, 0) {
		return 0, fmt.Errorf("discrete: %w: sensitivity L2 = %v is too large for the grid γ = %g", ErrParam, l2, m.gamma)
	}
	num := new(big.Float).SetPrec(256).SetFloat64(d)
	num.Mul(num, num)
	n, _ := num.Rat(nil)
	q := new(big.Rat).Quo(n, new(big.Rat).SetInt(new(big.Int).Lsh(m.sB, 1)))
	return ratUp(q.Num(), q.Denom()), nil
}

// Guarantee returns an (ε, δ)-DP guarantee of one release of a
// grid-rounded statistic of any dimension whose ℓ2 sensitivity (after
// rounding; see RoundedSensitivity) is sens.L2, for delta in (0, 1): the
// ρ-zCDP of ZCDP converted by ZCDPEpsilon. For a single coordinate the
// exact curve (CKS Theorem 7) is tighter; accounting.DiscreteGaussianPLD
// computes it where S is small enough to enumerate.
func (m *Gaussian) Guarantee(sens noise.Sensitivity, delta float64) (noise.Guarantee, error) {
	if err := check.Probability("delta", delta); err != nil {
		return noise.Guarantee{}, fmt.Errorf("discrete: %w", err)
	}
	rho, err := m.ZCDP(sens.L2)
	if err != nil {
		return noise.Guarantee{}, err
	}
	eps, err := ZCDPEpsilon(rho, delta)
	if err != nil {
		return noise.Guarantee{}, err
	}
	return noise.Guarantee{Epsilon: eps, Delta: delta}, nil
}

// ZCDPEpsilon converts ρ-zCDP to (ε, δ)-DP: a ρ-zCDP mechanism has Rényi
// divergence at most a·ρ at every order a > 1, so by CKS Proposition 12 it
// is (ε, δ)-DP with ε = a·ρ + log((a−1)/a) − (log δ + log a)/(a − 1) for
// every a > 1; the smallest over a fine grid of orders is returned, with
// a relative margin of 1e-12 for floating-point rounding. ρ must be ≥ 0
// and delta in (0, 1).
func ZCDPEpsilon(rho, delta float64) (float64, error) {
	if err := check.NonNegative("zCDP ρ", rho); err != nil {
		return 0, fmt.Errorf("discrete: %w", err)
	}
	if err := check.Probability("delta", delta); err != nil {
		return 0, fmt.Errorf("discrete: %w", err)
	}
	if rho == 0 {
		return 0, nil
	}
	best := math.Inf(1)
	ld := math.Log(delta)
	for _, o := range orderTerms {
		best = min(best, o.a*rho+o.logRatio-(ld+o.logA)*o.inv)
	}
	best = max(best, 0)
	return best * (1 + 1e-12), nil
}

// zcdpOrders + 1 Rényi orders a, from 1 + 1e-6 to 1 + 1e6 log-spaced, are
// where ZCDPEpsilon and ZCDPRho evaluate the conversion; orderTerms holds,
// per order, a, log((a−1)/a), log a and 1/(a−1). It is computed once and
// never written after.
const zcdpOrders = 2000

type orderTerm struct{ a, logRatio, logA, inv float64 }

var orderTerms = func() (t [zcdpOrders + 1]orderTerm) {
	for i := range t {
		a := 1 + math.Pow(10, -6+float64(i)*0.006)
		t[i] = orderTerm{a, math.Log1p(-1 / a), math.Log(a), 1 / (a - 1)}
	}
	return t
}()

// ZCDPRho returns the largest ρ with ZCDPEpsilon(ρ, delta) ≤ epsilon: the
// zCDP budget that meets (epsilon, delta). A ρ-zCDP mechanism meets it at
// order a exactly when a·ρ + log((a−1)/a) − (log δ + log a)/(a−1) ≤ ε, so
// the budget is the largest (ε − log((a−1)/a) + (log δ + log a)/(a−1))/a
// over the orders, lowered slightly to cover ZCDPEpsilon's margin. It
// returns an error unless epsilon is finite and > 0 and delta in (0, 1).
func ZCDPRho(epsilon, delta float64) (float64, error) {
	if err := check.Positive("epsilon", epsilon); err != nil {
		return 0, fmt.Errorf("discrete: %w", err)
	}
	if math.IsInf(epsilon, 0) {
		return 0, fmt.Errorf("discrete: %w: epsilon = %v, want finite", ErrParam, epsilon)
	}
	if err := check.Probability("delta", delta); err != nil {
		return 0, fmt.Errorf("discrete: %w", err)
	}
	ld := math.Log(delta)
	var best float64
	for _, o := range orderTerms {
		best = max(best, (epsilon-o.logRatio+(ld+o.logA)*o.inv)/o.a)
	}
	rho := best * (1 - 1e-9)
	for range 64 {
		if e, err := ZCDPEpsilon(rho, delta); err == nil && e <= epsilon {
			return rho, nil
		}
		rho *= 1 - 1e-9
	}
	return 0, fmt.Errorf("discrete: %w: no zCDP budget meets ε = %v at δ = %v", ErrParam, epsilon, delta)
}
