package accounting

import (
	"math"
	"slices"

	"github.com/dpmc/dpmc/noise/gaussian"
	"github.com/dpmc/dpmc/noise/huber"
	"github.com/dpmc/dpmc/noise/laplace"
)

// quad is the polynomial c[0] + c[1]·t + c[2]·t².
type quad [3]float64

func (q quad) at(t float64) float64 { return q[0] + t*(q[1]+t*q[2]) }

// slope returns the derivative at t.
func (q quad) slope(t float64) float64 { return q[1] + 2*q[2]*t }

// shift returns the polynomial t ↦ q(t − d).
func (q quad) shift(d float64) quad {
	return quad{q[0] - q[1]*d + q[2]*d*d, q[1] - 2*q[2]*d, q[2]}
}

// piecewise is a continuous piecewise quadratic function of t: it equals
// pieces[i] on [knots[i−1], knots[i]], where knots[−1] = −∞ and
// knots[len(knots)] = +∞, so len(pieces) = len(knots)+1.
type piecewise struct {
	knots  []float64
	pieces []quad
}

// lo and hi return the ends of piece i (±Inf for the two end pieces).
func (f piecewise) lo(i int) float64 {
	if i == 0 {
		return math.Inf(-1)
	}
	return f.knots[i-1]
}

func (f piecewise) hi(i int) float64 {
	if i == len(f.knots) {
		return math.Inf(1)
	}
	return f.knots[i]
}

// index returns the piece that contains t.
func (f piecewise) index(t float64) int {
	i, _ := slices.BinarySearch(f.knots, t)
	return i
}

func (f piecewise) at(t float64) float64 { return f.pieces[f.index(t)].at(t) }

// shift returns t ↦ f(t − d).
func (f piecewise) shift(d float64) piecewise {
	g := piecewise{knots: make([]float64, len(f.knots)), pieces: make([]quad, len(f.pieces))}
	for i, k := range f.knots {
		g.knots[i] = k + d
	}
	for i, q := range f.pieces {
		g.pieces[i] = q.shift(d)
	}
	return g
}

// combine returns a·f + b·g on the union of their knots.
func combine(a float64, f piecewise, b float64, g piecewise) piecewise {
	knots := slices.Concat(f.knots, g.knots)
	slices.Sort(knots)
	knots = slices.Compact(knots)
	h := piecewise{knots: knots, pieces: make([]quad, len(knots)+1)}
	for i := range h.pieces {
		// A point strictly inside piece i of h picks the right pieces of f, g.
		var t float64
		switch {
		case len(knots) == 0:
			t = 0
		case i == 0:
			t = knots[0] - 1
		case i == len(knots):
			t = knots[i-1] + 1
		default:
			t = knots[i-1] + (knots[i]-knots[i-1])/2
		}
		p, q := f.pieces[f.index(t)], g.pieces[g.index(t)]
		for c := range 3 {
			h.pieces[i][c] = a*p[c] + b*q[c]
		}
	}
	return h
}

// unitNoise describes one release in unit scale: the noise T has density
// exp(−rho(t) − logZ), the neighbouring output is shifted by d > 0 (the
// sensitivity over the scale), and lowerCDF(t) = P(T ≤ t) for t ≤ 0,
// accurate in relative terms far into the tail. Every noise here is
// symmetric, so P(T > t) = lowerCDF(−t).
type unitNoise struct {
	rho      piecewise
	logZ     float64
	d        float64
	lowerCDF func(t float64) float64
}

// laplaceNoise is Laplace(0, 1): ρ(t) = |t|.
func laplaceNoise(d float64) *unitNoise {
	unit, _ := laplace.New(1)
	return &unitNoise{
		rho:      piecewise{knots: []float64{0}, pieces: []quad{{0, -1, 0}, {0, 1, 0}}},
		logZ:     math.Ln2,
		d:        d,
		lowerCDF: unit.CDF,
	}
}

// gaussianNoise is N(0, 1): ρ(t) = t²/2.
func gaussianNoise(d float64) *unitNoise {
	return &unitNoise{
		rho:      piecewise{pieces: []quad{{0, 0, 0.5}}},
		logZ:     0.5 * math.Log(2*math.Pi),
		d:        d,
		lowerCDF: gaussian.Phi,
	}
}

// huberNoise is the unit-scale Huber noise of shape a: ρ = ρ_a, the Huber
// loss. a must be a valid shape (huber.New accepts it).
func huberNoise(a, d float64) (*unitNoise, error) {
	unit, err := huber.New(a, 1)
	if err != nil {
		return nil, err
	}
	kappa, err := huber.Kappa(a)
	if err != nil {
		return nil, err
	}
	return &unitNoise{
		rho: piecewise{
			knots:  []float64{-a, a},
			pieces: []quad{{-a * a / 2, -a, 0}, {0, 0, 0.5}, {-a * a / 2, a, 0}},
		},
		logZ:     -math.Log(kappa),
		d:        d,
		lowerCDF: unit.CDF,
	}, nil
}

// cdf returns P(T ≤ t) and P(T > t), each accurate on its small side.
func (n *unitNoise) cdf(t float64) (lower, upper float64) {
	if t <= 0 {
		lower = n.lowerCDF(t)
		return lower, 1 - lower
	}
	upper = n.lowerCDF(-t)
	return 1 - upper, upper
}

// between returns P(a ≤ X < b) from the two-sided CDF values (P(X ≤ ·),
// P(X > ·)) at a and b, using whichever side avoids cancellation.
func between(a, b, la, ua, lb, ub float64) float64 {
	if !(a < b) {
		return 0
	}
	var m float64
	switch {
	case b <= 0:
		m = lb - la
	case a >= 0:
		m = ua - ub
	default:
		m = 1 - la - ub
	}
	return max(m, 0)
}

// loss returns the privacy-loss function L(t) = log p(t) − log q(t) of the
// pair P = T, Q = T + d: L = ρ(t − d) − ρ(t). It is non-increasing in t
// because every noise here is log-concave.
func (n *unitNoise) loss() piecewise {
	return combine(1, n.rho.shift(n.d), -1, n.rho)
}

// lossRange returns L(−∞) and L(+∞): ±α·d for Huber, ±d for Laplace and
// ±Inf for the Gaussian.
func lossRange(l piecewise) (lmin, lmax float64) {
	end := func(q quad, dir float64) float64 {
		if q[1] == 0 && q[2] == 0 {
			return q[0]
		}
		return dir * math.Inf(1)
	}
	return end(l.pieces[len(l.pieces)-1], -1), end(l.pieces[0], 1)
}

// crossing returns sup{t : L(t) > eps} for the non-increasing piecewise
// quadratic L with range [lmin, lmax]: −Inf if eps ≥ lmax, +Inf if
// eps < lmin. Then P(L(T) > eps) = P(T < crossing).
func crossing(l piecewise, lmin, lmax, eps float64) float64 {
	if eps >= lmax {
		return math.Inf(-1)
	}
	if eps < lmin {
		return math.Inf(1)
	}
	// Find the piece on which L passes through eps: the first knot with
	// L(knot) ≤ eps ends it.
	i := 0
	for i < len(l.knots) && l.pieces[i].at(l.knots[i]) > eps {
		i++
	}
	q := l.pieces[i]
	lo, hi := l.lo(i), l.hi(i)
	var t float64
	if q[2] == 0 {
		t = (eps - q[0]) / q[1]
	} else {
		// c2 t² + c1 t + (c0 − eps) = 0, in the numerically stable form.
		a, b, c := q[2], q[1], q[0]-eps
		disc := math.Max(b*b-4*a*c, 0)
		s := -0.5 * (b + math.Copysign(math.Sqrt(disc), b))
		r1, r2 := s/a, c/s
		if s == 0 {
			r1, r2 = 0, 0
		}
		// Keep the root inside the piece (or the nearer one, after rounding).
		dist := func(r float64) float64 { return math.Max(math.Max(lo-r, r-hi), 0) }
		t = r1
		if dist(r2) < dist(r1) {
			t = r2
		}
	}
	if math.IsNaN(t) {
		t = lo
	}
	return math.Min(math.Max(t, lo), hi)
}
