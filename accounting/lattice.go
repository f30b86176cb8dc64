package accounting

import (
	"fmt"
	"math"
	"slices"

	"github.com/dpmc/dpmc/internal/check"
)

// LatticePLD is the privacy-loss distribution of a discrete mechanism
// (package discrete) for an integer shift: under P the privacy loss is
// Index[i]/Denom with probability Mass[i], and +∞ with probability Inf. The
// losses of the discrete Laplace, Gaussian and Huber noise for a shift by
// whole grid units are exact integer multiples of a step 1/Denom (Denom =
// t, 2S and 2τ²), so the distribution lives on that lattice, and composing
// releases is an exact convolution of integer indices: no discretization
// error, unlike PLD. Build one with DiscreteLaplacePLD, DiscreteGaussianPLD
// or DiscreteHuberPLD; it is enumerated point by point, so it is meant for
// grids of up to MaxLatticePoints points (small scales in grid units).
type LatticePLD struct {
	Denom float64
	Index []int64
	Mass  []float64
	Inf   float64
}

// MaxLatticePoints bounds the support of a LatticePLD, before and after
// composition.
const MaxLatticePoints = 1 << 22

// lossWindow is how far (in log-pmf) below the mode the enumeration runs:
// beyond it every probability is below e^{−745}, which float64 cannot
// hold; the tail beyond is bounded by a geometric series and added to the
// +∞ atom, so δ can only be overstated.
const lossWindow = 745

// latticeFrom enumerates y in [lo, hi] with unnormalized log-pmf logp(y)
// (largest at 0) and loss index idx(y), and puts the tail bound in Inf.
func latticeFrom(denom float64, lo, hi int64, logp func(int64) float64, idx func(int64) int64, tail float64) (*LatticePLD, error) {
	if hi-lo+1 > MaxLatticePoints {
		return nil, fmt.Errorf("accounting: %w: lattice of %d points exceeds %d; use the pure-ε or zCDP accounting of the discrete mechanism", check.ErrParam, hi-lo+1, MaxLatticePoints)
	}
	m := map[int64]float64{}
	z := 0.0
	for y := lo; y <= hi; y++ {
		p := math.Exp(logp(y))
		z += p
		m[idx(y)] += p
	}
	l := &LatticePLD{Denom: denom, Inf: min(1, tail/z)}
	l.fill(m, 1/z)
	return l, nil
}

// fill sets Index and Mass from m, in increasing index, scaled by f.
func (l *LatticePLD) fill(m map[int64]float64, f float64) {
	l.Index = l.Index[:0]
	for k, v := range m {
		if v > 0 {
			l.Index = append(l.Index, k)
		}
	}
	slices.Sort(l.Index)
	l.Mass = make([]float64, len(l.Index))
	for i, k := range l.Index {
		l.Mass[i] = m[k] * f
	}
}

// DiscreteLaplacePLD returns the privacy-loss distribution of the discrete
// Laplace noise P(K = k) ∝ exp(−|k|/t) (t = discrete.Laplace.GridScale)
// for a shift by d ≥ 0 grid units: L(y) = (|y − d| − |y|)/t. t must be in
// [1, MaxLatticePoints/1500].
func DiscreteLaplacePLD(t, d int64) (*LatticePLD, error) {
	if t < 1 || t > MaxLatticePoints/1500 || d < 0 {
		return nil, fmt.Errorf("accounting: %w: discrete Laplace t = %d, shift d = %d: want 1 ≤ t ≤ %d and d ≥ 0", check.ErrParam, t, d, MaxLatticePoints/1500)
	}
	w := lossWindow * t
	q := math.Exp(-1 / float64(t))
	tail := 2 * math.Exp(-lossWindow) / (1 - q) // both tails, geometric
	return latticeFrom(float64(t), -w, w,
		func(y int64) float64 { return -float64(abs(y)) / float64(t) },
		func(y int64) int64 { return abs(y-d) - abs(y) }, tail)
}

// DiscreteGaussianPLD returns the privacy-loss distribution of the
// discrete Gaussian noise P(K = k) ∝ exp(−k²/(2S)) (S =
// discrete.Gaussian.GridSigma2) for a shift by d ≥ 0 grid units:
// L(y) = ((y − d)² − y²)/(2S). S must be in [1, 10⁹].
func DiscreteGaussianPLD(s, d int64) (*LatticePLD, error) {
	if s < 1 || s > 1e9 || d < 0 {
		return nil, fmt.Errorf("accounting: %w: discrete Gaussian S = %d, shift d = %d: want 1 ≤ S ≤ 1e9 and d ≥ 0", check.ErrParam, s, d)
	}
	w := int64(math.Ceil(math.Sqrt(2 * lossWindow * float64(s))))
	// Beyond w the ratio of consecutive terms is below e^{−w/S}.
	tail := 2 * math.Exp(-lossWindow) / -math.Expm1(-float64(w)/float64(s))
	return latticeFrom(2*float64(s), -w, w,
		func(y int64) float64 { return -float64(y*y) / (2 * float64(s)) },
		func(y int64) int64 { return (y-d)*(y-d) - y*y }, tail)
}

// DiscreteHuberPLD returns the privacy-loss distribution of the discrete
// Huber noise P(J = j) ∝ exp(−R(j)/(2τ²)), R(j) = j² for |j| ≤ a and
// 2a|j| − a² beyond (α = a/τ; discrete.Huber.GridParams), for a shift by
// d ≥ 0 grid units: L(y) = (R(y − d) − R(y))/(2τ²).
func DiscreteHuberPLD(tau, a, d int64) (*LatticePLD, error) {
	if tau < 1 || a < 1 || d < 0 || tau > 1<<20 || a > 1<<20 {
		return nil, fmt.Errorf("accounting: %w: discrete Huber τ = %d, a = %d, shift d = %d: want 1 ≤ τ, a ≤ 2²⁰ and d ≥ 0", check.ErrParam, tau, a, d)
	}
	r := func(j int64) int64 {
		j = abs(j)
		if j <= a {
			return j * j
		}
		return 2*a*j - a*a
	}
	// Smallest w with R(w) ≥ 2τ²·lossWindow.
	lim := 2 * float64(tau) * float64(tau) * lossWindow
	w := int64(math.Ceil(math.Sqrt(lim)))
	if w > a {
		w = int64(math.Ceil((lim + float64(a)*float64(a)) / (2 * float64(a))))
	}
	// Beyond w the ratio of consecutive terms is at most e^{−min(a, w)/τ²}
	// (slope of R at least 2·min(a, w)).
	tail := 2 * math.Exp(-lossWindow) / -math.Expm1(-float64(min(a, w))/(float64(tau)*float64(tau)))
	return latticeFrom(2*float64(tau)*float64(tau), -w, w,
		func(y int64) float64 { return -float64(r(y)) / (2 * float64(tau) * float64(tau)) },
		func(y int64) int64 { return r(y-d) - r(y) }, tail)
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// Compose returns the privacy-loss distribution of k ≥ 1 independent
// releases: the k-fold convolution of the lattice distribution (by
// repeated squaring, exact in the indices), with P(L = ∞) = 1 − (1 − Inf)^k.
// It returns an error if the support would exceed MaxLatticePoints.
func (l *LatticePLD) Compose(k int) (*LatticePLD, error) {
	if err := checkK(k); err != nil {
		return nil, err
	}
	result := &LatticePLD{Denom: l.Denom, Index: []int64{0}, Mass: []float64{1}}
	base := l
	for ; k > 0; k >>= 1 {
		var err error
		if k&1 == 1 {
			if result, err = result.convolve(base); err != nil {
				return nil, err
			}
		}
		if k > 1 {
			if base, err = base.convolve(base); err != nil {
				return nil, err
			}
		}
	}
	return result, nil
}

func (l *LatticePLD) convolve(o *LatticePLD) (*LatticePLD, error) {
	lo := l.Index[0] + o.Index[0]
	hi := l.Index[len(l.Index)-1] + o.Index[len(o.Index)-1]
	if hi-lo+1 > MaxLatticePoints {
		return nil, fmt.Errorf("accounting: %w: composed lattice of %d points exceeds %d", check.ErrParam, hi-lo+1, MaxLatticePoints)
	}
	dense := make([]float64, hi-lo+1)
	for i, a := range l.Index {
		for j, b := range o.Index {
			dense[a+b-lo] += l.Mass[i] * o.Mass[j]
		}
	}
	m := make(map[int64]float64, len(dense))
	for i, v := range dense {
		if v > 0 {
			m[lo+int64(i)] = v
		}
	}
	r := &LatticePLD{Denom: l.Denom, Inf: 1 - (1-l.Inf)*(1-o.Inf)}
	r.fill(m, 1)
	return r, nil
}

// Delta returns δ(ε) = E_P[(1 − e^{ε−L})₊] + P(L = ∞), the smallest δ for
// which the releases are (ε, δ)-DP in this direction of the shift.
func (l *LatticePLD) Delta(epsilon float64) float64 {
	d := l.Inf
	for i := len(l.Index) - 1; i >= 0; i-- {
		loss := float64(l.Index[i]) / l.Denom
		if loss <= epsilon {
			break
		}
		d += l.Mass[i] * -math.Expm1(epsilon-loss)
	}
	return min(d, 1)
}
