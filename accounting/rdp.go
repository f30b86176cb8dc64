package accounting

import (
	"errors"
	"fmt"
	"math"

	gquad "gonum.org/v1/gonum/integrate/quad"

	"github.com/dpmc/dpmc/internal/check"
	"github.com/dpmc/dpmc/noise"
)

// Orders returns, in increasing order, the Rényi orders α over which RDP
// minimizes: 1.05 to 256 on a roughly geometric grid, then 512 and 1024.
// Each call returns a new slice.
func Orders() []float64 {
	return []float64{1.05, 1.1, 1.25, 1.5, 1.75, 2, 2.25, 2.5, 3, 3.5, 4, 5, 6, 8, 10, 12, 16,
		20, 24, 32, 40, 48, 64, 80, 96, 128, 160, 192, 256, 512, 1024}
}

// RenyiDP returns the Rényi-DP curve of one release at the given order
// (order > 1): the larger of the Rényi divergences D_order(P‖Q) and
// D_order(Q‖P) between the output distributions on two neighbouring
// inputs, in nats. It is exact in closed form for the Gaussian
// (order·Δ₂²/(2σ²)) and Laplace (Mironov 2017, Proposition 6) mechanisms and
// computed by quadrature for the Huber mechanism, with a relative safety
// margin of 1e-10 on the integral that covers the quadrature error. It returns an error
// wrapping ErrNotApplicable for mechanisms other than these three, and an
// error naming the parameter if order or the sensitivity is invalid.
func RenyiDP(m noise.Mechanism, s noise.Sensitivity, order float64) (float64, error) {
	if err := check.Finite("order", order); err != nil {
		return 0, err
	}
	if order <= 1 {
		return 0, fmt.Errorf("%w: order = %v, want > 1", check.ErrParam, order)
	}
	md, err := describe(m, s)
	if err != nil {
		return 0, err
	}
	if md.rdp == nil {
		return 0, fmt.Errorf("%w: rdp: %s", ErrNotApplicable, md.noRDP)
	}
	return md.rdp(order)
}

// RDP is the Rényi-DP accountant (Mironov 2017): k releases are
// (α, k·ε(α))-RDP for every order α, which converts to (ε, delta)-DP with
// the conversion of Canonne, Kamath & Steinke (2020, Proposition 12; also
// Balle et al. 2020, Theorem 21),
//
//	ε = k·ε(α) + log((α−1)/α) − (log δ + log α)/(α−1),
//
// which is never worse than the classic ε = k·ε(α) + log(1/δ)/(α−1). The
// result is the smallest ε over Orders. It returns an error wrapping
// ErrNotApplicable for mechanisms whose RDP curve this package does not
// know (anything but Laplace, Gaussian and Huber), and an error naming the
// parameter for invalid input.
func RDP(m noise.Mechanism, s noise.Sensitivity, k int, delta float64) (*Total, error) {
	if err := checkDelta(delta); err != nil {
		return nil, err
	}
	md, err := prepare(m, s, k)
	if err != nil {
		return nil, err
	}
	return md.rdpTotal(k, delta)
}

func (md *model) rdpTotal(k int, delta float64) (*Total, error) {
	if md.rdp == nil {
		return nil, fmt.Errorf("%w: rdp: %s", ErrNotApplicable, md.noRDP)
	}
	best := math.Inf(1)
	for _, a := range Orders() {
		r, err := md.rdp(a)
		if err != nil {
			return nil, err
		}
		eps := float64(k)*r + math.Log1p(-1/a) - (math.Log(delta)+math.Log(a))/(a-1)
		best = math.Min(best, math.Max(eps, 0))
	}
	return &Total{Epsilon: best, Delta: delta, Accountant: NameRDP}, nil
}

// laplaceRDP is Mironov's closed form for Laplace noise of shift d (in units
// of the scale b): 1/(α−1)·log(α/(2α−1)·e^{(α−1)d} + (α−1)/(2α−1)·e^{−αd}).
func laplaceRDP(a, d float64) float64 {
	x := math.Log(a/(2*a-1)) + (a-1)*d
	y := math.Log((a-1)/(2*a-1)) - a*d
	return logAddExp(x, y) / (a - 1)
}

// logAddExp returns log(e^x + e^y) without overflow.
func logAddExp(x, y float64) float64 {
	if x < y {
		x, y = y, x
	}
	if math.IsInf(x, -1) {
		return x
	}
	return x + math.Log1p(math.Exp(y-x))
}

// Quadrature parameters: each piece of the integrand's exponent is split
// into subintervals over which the exponent varies by at most quadSpan, and
// each subinterval gets quadNodes Gauss–Legendre nodes. For an exponent
// that is quadratic on each piece this leaves a relative error below
// 1e-13 (the Gauss–Legendre remainder for e^{ct} with |c|·length ≤ 12 and
// 16 nodes is below 1e-19 of the subinterval's largest value, which is at
// most e^{12} times its smallest). quadMaxSub bounds the work.
const (
	quadSpan   = 12
	quadNodes  = 16
	quadMaxSub = 200000
	// quadMargin, times 1 + |log I|, is added to the log of every integral
	// I: a hundred times the largest quadrature and rounding error seen
	// against closed forms, so that the computed Rényi divergence is an
	// upper bound.
	quadMargin = 1e-10
)

// errTooCostly reports that a quadrature would need more than quadMaxSub
// subintervals.
var errTooCostly = errors.New("quadrature too costly")

// logIntegralExp returns log ∫ exp(h(t)) dt over the real line, for a
// piecewise quadratic h whose two end pieces are linear and decrease
// outward (so the tails are exponential and integrated exactly). The
// finite pieces are integrated by composite Gauss–Legendre quadrature in
// log space, so the integrand may be astronomically large or small.
func logIntegralExp(h piecewise) (float64, error) {
	nk := len(h.knots)
	if nk == 0 {
		return 0, errors.New("accounting: integrand has no linear tails")
	}
	left, right := h.pieces[0], h.pieces[nk]
	if left[2] != 0 || right[2] != 0 || !(left[1] > 0) || !(right[1] < 0) {
		return 0, errors.New("accounting: integrand tails do not decay exponentially")
	}
	// Plan the subdivision first so that a too costly integral is refused
	// before any work.
	subs := make([]int, nk+1)
	total := 0
	for i := 1; i < nk; i++ {
		u, v := h.knots[i-1], h.knots[i]
		if !(v > u) {
			continue
		}
		q := h.pieces[i]
		g := math.Max(math.Abs(q.slope(u)), math.Abs(q.slope(v)))
		n := max(1, int(math.Ceil(g*(v-u)/quadSpan)))
		if n > quadMaxSub || total+n > quadMaxSub {
			return 0, errTooCostly
		}
		subs[i] = n
		total += n
	}
	xs, ws := make([]float64, quadNodes), make([]float64, quadNodes)
	gquad.Legendre{}.FixedLocations(xs, ws, -1, 1)

	var acc logSum
	acc.add(left.at(h.knots[0]) - math.Log(left[1]))
	acc.add(right.at(h.knots[nk-1]) - math.Log(-right[1]))
	for i := 1; i < nk; i++ {
		u, v, n := h.knots[i-1], h.knots[i], subs[i]
		if n == 0 {
			continue
		}
		q := h.pieces[i]
		w := (v - u) / float64(n)
		for j := range n {
			a := u + float64(j)*w
			half := w / 2
			for r, x := range xs {
				t := a + half*(x+1)
				acc.add(q.at(t) + math.Log(half*ws[r]))
			}
		}
	}
	return acc.log(), nil
}

// logSum accumulates log Σ e^{x_i} stably.
type logSum struct {
	m, s float64 // Σ = s·e^m
	init bool
}

func (l *logSum) add(x float64) {
	if math.IsInf(x, -1) {
		return
	}
	if !l.init {
		l.m, l.s, l.init = x, 1, true
		return
	}
	if x > l.m {
		l.s = l.s*math.Exp(l.m-x) + 1
		l.m = x
		return
	}
	l.s += math.Exp(x - l.m)
}

func (l *logSum) log() float64 {
	if !l.init {
		return math.Inf(-1)
	}
	return l.m + math.Log(l.s)
}

// renyiNumeric returns max(D_a(P‖Q), D_a(Q‖P)) for P = T, Q = T + d by
// quadrature of ∫ p^a q^{1−a}, with the margin quadMargin added.
func (n *unitNoise) renyiNumeric(a float64) (float64, error) {
	shifted := n.rho.shift(n.d)
	worst := math.Inf(-1)
	for _, dir := range [2][2]piecewise{{n.rho, shifted}, {shifted, n.rho}} {
		// log p^a q^{1−a} = −logZ − a·ρ_p − (1−a)·ρ_q.
		h := combine(-a, dir[0], -(1 - a), dir[1])
		for i := range h.pieces {
			h.pieces[i][0] -= n.logZ
		}
		li, err := logIntegralExp(h)
		if err != nil {
			return 0, err
		}
		worst = math.Max(worst, (li+quadMargin*(1+math.Abs(li)))/(a-1))
	}
	return worst, nil
}
