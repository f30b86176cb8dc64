package accounting

import (
	"math"

	"github.com/dpmc/dpmc/internal/check"
	"github.com/dpmc/dpmc/noise"
)

// Basic is basic composition (Dwork & Roth 2014, Theorem 3.16): the ε and δ
// of the releases add up. A pure mechanism (Laplace, Huber) with per-release
// ε₀ gives (k·ε₀, 0), whatever delta is. The Gaussian mechanism spends
// δ₀ = delta/k per release at its exact analytic ε₀ (Balle & Wang 2018) and
// gives (k·ε₀, delta). It returns an error naming the parameter for invalid
// input.
func Basic(m noise.Mechanism, s noise.Sensitivity, k int, delta float64) (*Total, error) {
	if err := checkDelta(delta); err != nil {
		return nil, err
	}
	md, err := prepare(m, s, k)
	if err != nil {
		return nil, err
	}
	return md.basicTotal(k, delta)
}

func (md *model) basicTotal(k int, delta float64) (*Total, error) {
	if md.pure {
		return &Total{Epsilon: float64(k) * md.eps0, Delta: 0, Accountant: NameBasic}, nil
	}
	eps0, err := md.epsAt(delta / float64(k))
	if err != nil {
		return nil, err
	}
	return &Total{Epsilon: float64(k) * eps0, Delta: delta, Accountant: NameBasic}, nil
}

// perRelease returns the per-release (ε₀, δ₀) and the δ′ left for the
// composition theorem, for the advanced accountants. A pure mechanism has
// δ₀ = 0 and δ′ = delta; an approximate one spends half of delta on the
// releases, δ₀ = delta/(2k), and δ′ = delta/2.
func (md *model) perRelease(k int, delta float64) (eps0, delta0, rest float64, err error) {
	if md.pure {
		return md.eps0, 0, delta, nil
	}
	delta0 = delta / (2 * float64(k))
	eps0, err = md.epsAt(delta0)
	return eps0, delta0, delta / 2, err
}

// DRV is the advanced composition theorem of Dwork, Rothblum & Vadhan
// (2010; Dwork & Roth 2014, Theorem 3.20): k releases that are each
// (ε₀, δ₀)-DP are (ε, δ′ + k·δ₀)-DP with
//
//	ε = √(2k·ln(1/δ′))·ε₀ + k·ε₀·(e^{ε₀} − 1).
//
// Pure mechanisms use δ₀ = 0 and δ′ = delta; the Gaussian spends δ₀ =
// delta/(2k) per release at its analytic ε₀ and δ′ = delta/2. Where the
// theorem gives more than basic composition (large ε₀), the basic ε is
// returned instead, since it holds too. It returns an error naming the
// parameter for invalid input.
func DRV(m noise.Mechanism, s noise.Sensitivity, k int, delta float64) (*Total, error) {
	if err := checkDelta(delta); err != nil {
		return nil, err
	}
	md, err := prepare(m, s, k)
	if err != nil {
		return nil, err
	}
	return md.drvTotal(k, delta)
}

func (md *model) drvTotal(k int, delta float64) (*Total, error) {
	eps0, _, rest, err := md.perRelease(k, delta)
	if err != nil {
		return nil, err
	}
	kf := float64(k)
	eps := math.Sqrt(2*kf*math.Log(1/rest))*eps0 + kf*eps0*math.Expm1(eps0)
	return md.capAtBasic(eps, k, delta, NameDRV)
}

// capAtBasic returns the Total min(eps, basic ε) at delta.
func (md *model) capAtBasic(eps float64, k int, delta float64, name string) (*Total, error) {
	b, err := md.basicTotal(k, delta)
	if err != nil {
		return nil, err
	}
	if math.IsNaN(eps) || b.Epsilon < eps {
		eps = b.Epsilon
	}
	return &Total{Epsilon: eps, Delta: delta, Accountant: name}, nil
}

// KOV is the optimal composition theorem for differential privacy of
// Kairouz, Oh & Viswanath (2015/2017, Theorem 3.3), in the form of Murtagh
// & Vadhan (2016, Theorem 1.5) that holds for every ε: k releases that are
// each (ε₀, δ₀)-DP are (ε, 1 − (1−δ₀)^k·(1 − δ_k(ε)))-DP with
//
//	δ_k(ε) = (1 + e^{ε₀})^{−k} · Σ_{l=0}^{k} C(k, l)·max(0, e^{(k−l)ε₀} − e^{ε + l·ε₀}),
//
// the privacy curve of k-fold randomized response, which no sequence of
// (ε₀, δ₀)-DP mechanisms exceeds. The sum is evaluated in log space (k in
// the millions is fine) and inverted for ε by bisection. Pure mechanisms use
// δ₀ = 0; the Gaussian uses δ₀ = delta/(2k) at its analytic ε₀ and the rest
// of delta for δ_k. Where the result exceeds basic composition, the basic ε
// is returned. It returns an error naming the parameter for invalid input.
func KOV(m noise.Mechanism, s noise.Sensitivity, k int, delta float64) (*Total, error) {
	if err := checkDelta(delta); err != nil {
		return nil, err
	}
	md, err := prepare(m, s, k)
	if err != nil {
		return nil, err
	}
	return md.kovTotal(k, delta)
}

func (md *model) kovTotal(k int, delta float64) (*Total, error) {
	eps0, delta0, _, err := md.perRelease(k, delta)
	if err != nil {
		return nil, err
	}
	// 1 − (1−δ₀)^k (1 − δ_k) ≤ delta  ⇔  δ_k ≤ 1 − (1−delta)/(1−δ₀)^k.
	target := -math.Expm1(math.Log1p(-delta) - float64(k)*math.Log1p(-delta0))
	eps, err := kovEpsilon(md.cancelled, eps0, k, target)
	if err != nil {
		return nil, err
	}
	return md.capAtBasic(eps, k, delta, NameKOV)
}

// KOVDelta returns δ_k(epsilon), the optimal δ of k-fold composition of
// pure eps0-DP mechanisms at epsilon (see KOV). It returns an error naming
// the parameter if eps0 or epsilon is negative or not finite, or k < 1.
func KOVDelta(eps0 float64, k int, epsilon float64) (float64, error) {
	if err := check.NonNegative("eps0", eps0); err != nil {
		return 0, err
	}
	if err := check.NonNegative("epsilon", epsilon); err != nil {
		return 0, err
	}
	if err := checkK(k); err != nil {
		return 0, err
	}
	return kovDelta(eps0, k, epsilon), nil
}

// kovDelta evaluates δ_k(eps). The summand for l is the Binomial(k, q)
// probability of l, q = 1/(1+e^{ε₀}), times 1 − e^{ε − (k−2l)ε₀}; terms
// more than 40 standard deviations below the mean are replaced by
// Hoeffding's bound on their total, so the cost is O(√k).
func kovDelta(eps0 float64, k int, eps float64) float64 {
	d, _ := kovDeltaStop(nil, eps0, k, eps)
	return d
}

// kovDeltaStop is kovDelta, calling stop (if not nil) every 2¹⁶ terms and
// returning its error: at k = 10⁸ one evaluation can sum millions of
// terms.
func kovDeltaStop(stop func() error, eps0 float64, k int, eps float64) (float64, error) {
	if eps0 == 0 || eps >= float64(k)*eps0 {
		return 0, nil
	}
	kf := float64(k)
	// Largest l with (k − 2l)ε₀ > ε.
	lcut := int(math.Ceil((kf*eps0-eps)/(2*eps0))) - 1
	for lcut >= 0 && (kf-2*float64(lcut))*eps0 <= eps {
		lcut--
	}
	for lcut+1 <= k && (kf-2*float64(lcut+1))*eps0 > eps {
		lcut++
	}
	if lcut < 0 {
		return 0, nil
	}
	sp := math.Log1p(math.Exp(-eps0)) // softplus(−ε₀)
	logQ, log1mQ := -(eps0 + sp), -sp // log q, log(1 − q)
	q := math.Exp(logQ)
	mean, sd := kf*q, math.Sqrt(kf*q*(1-q))
	l0 := max(0, int(math.Floor(mean-40*sd-40)))
	tail := 0.0
	if l0 > 0 {
		t := mean - float64(l0) + 1
		tail = math.Exp(-2 * t * t / kf)
	}
	lgk, _ := math.Lgamma(kf + 1)
	var acc logSum
	for l := l0; l <= lcut; l++ {
		if stop != nil && (l-l0)&0xffff == 0xffff {
			if err := stop(); err != nil {
				return 0, err
			}
		}
		lf := float64(l)
		a, _ := math.Lgamma(lf + 1)
		b, _ := math.Lgamma(kf - lf + 1)
		acc.add(lgk - a - b + lf*logQ + (kf-lf)*log1mQ + math.Log(-math.Expm1(eps-(kf-2*lf)*eps0)))
	}
	return math.Exp(acc.log()) + tail, nil
}

// kovEpsilon returns the smallest ε ≥ 0 with δ_k(ε) ≤ target, to a
// relative precision of 1e-12 (rounded up). It returns stop's error if
// stop, called before each step of the bisection, returns one.
func kovEpsilon(stop func() error, eps0 float64, k int, target float64) (float64, error) {
	if d, err := kovDeltaStop(stop, eps0, k, 0); err != nil || d <= target {
		return 0, err
	}
	lo, hi := 0.0, float64(k)*eps0
	for range 200 {
		if err := stop(); err != nil {
			return 0, err
		}
		mid := (lo + hi) / 2
		if mid <= lo || mid >= hi || hi-lo <= 1e-12*hi {
			break
		}
		d, err := kovDeltaStop(stop, eps0, k, mid)
		if err != nil {
			return 0, err
		}
		if d > target {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi, nil
}
