package accounting

import (
	"fmt"
	"math"

	gquad "gonum.org/v1/gonum/integrate/quad"

	"github.com/dpmc/dpmc/internal/check"
)

// The pessimistic privacy-loss distribution of the discrete mechanisms at
// any grid size. See the package documentation ("Discrete mechanisms at
// any grid") for why the result dominates the true distribution.

// massRel is the relative error allowed for every closed-form mass and
// for the normalizer: 9 units in the last place, for at most about eight
// correctly rounded or sub-ulp operations (exp, expm1, products, quotients,
// a sum of positive terms) in each; massRelExp adds, per unit of
// |exponent|, the error of an exponent computed in floating point (each
// within 2 ulp relative). Both only lower the masses, so they only move
// probability to the +∞ atom.
const (
	massRel    = 2e-15
	massRelExp = 1e-15
)

// gaussWidth is the half-width, in standard deviations, beyond which the
// discrete Gaussian's largest losses go to the +∞ atom (probability below
// 2·10⁻²⁸ per release).
const gaussWidth = 11

// bounds is an interval [lo, hi] that contains a sum of probabilities.
type bounds struct{ lo, hi float64 }

func (b bounds) add(c bounds) bounds { return bounds{b.lo + c.lo, b.hi + c.hi} }

// widen returns [v·(1 − r), v·(1 + r)] for a value v computed with relative
// error at most r.
func widen(v, r float64) bounds { return bounds{v * (1 - r), v * (1 + r)} }

// posInf marks an unbounded upper end of a sum.
const posInf = math.MaxInt64

// latticeNoise is a symmetric discrete noise on ℤ, P(Y = y) ∝ e^{w(y)} with
// w(0) = 0 and w non-increasing in |y|, under an integer shift d ≥ 1: the
// privacy loss of output y is L(y) = w(y) − w(y − d), non-increasing in y
// for these log-concave noises.
type latticeNoise struct {
	d int64
	// lossUp and lossDown return an upper and a lower bound on L(y).
	lossUp, lossDown func(y int64) float64
	// sumNonneg bounds Σ_{y=a}^{b} e^{w(y)} for 0 ≤ a ≤ b (b may be posInf).
	sumNonneg func(a, b int64) bounds
	// zHi is an upper bound on the normalizer Σ_y e^{w(y)}.
	zHi float64
	// Outputs y < ylo have the loss L(ylo − 1) if bounded (the left tail of
	// constant loss of Laplace and Huber), else go to the +∞ atom; outputs
	// y > yhi have losses at most L(yhi + 1), constant if bounded.
	ylo, yhi int64
	bounded  bool
	// analog is the continuous noise with the same shape and shift, used to
	// choose the grid width.
	analog *unitNoise
}

// sum bounds Σ_{y=a}^{b} e^{w(y)} for any a ≤ b (a may be −posInf, b
// posInf), by symmetry.
func (n *latticeNoise) sum(a, b int64) bounds {
	var s bounds
	if a < 0 {
		hi := min(b, -1)
		lo := int64(posInf)
		if a != -posInf {
			lo = -a
		}
		s = s.add(n.sumNonneg(-hi, lo))
	}
	if b >= 0 {
		s = s.add(n.sumNonneg(max(a, 0), b))
	}
	return s
}

// up returns v plus a bound on the error of a loss computed in floating
// point from terms of total magnitude mag.
func up(v, mag float64) float64 { return v + 8*0x1p-53*mag + 1e-300 }

func down(v, mag float64) float64 { return v - 8*0x1p-53*mag - 1e-300 }

// geometric bounds Σ_{y=a}^{b} e^{−(c0 + c·(y − a))} for b ≥ a (b may be
// posInf), c > 0.
func geometric(c0, c float64, a, b int64) bounds {
	v := math.Exp(-c0)
	if b == posInf {
		v /= -math.Expm1(-c)
	} else {
		v *= math.Expm1(-c*float64(b-a+1)) / math.Expm1(-c)
	}
	return widen(v, massRel+massRelExp*c0)
}

// discreteLaplaceNoise is P(Y = y) ∝ exp(−|y|/t) under the shift d:
// L(y) = (|y − d| − |y|)/t, d/t for y ≤ 0 and −d/t for y ≥ d.
func discreteLaplaceNoise(t, d int64) (*latticeNoise, error) {
	if t < 1 || d < 1 || t > 1<<52 || d > 1<<52 {
		return nil, fmt.Errorf("accounting: %w: discrete Laplace t = %d, shift d = %d: want both in [1, 2⁵²]", check.ErrParam, t, d)
	}
	tf := float64(t)
	loss := func(y int64) float64 { return float64(abs(y-d)-abs(y)) / tf }
	c := 1 / tf
	z := -(1 + math.Exp(-c)) / math.Expm1(-c)
	return &latticeNoise{
		d:        d,
		lossUp:   func(y int64) float64 { return math.Nextafter(loss(y), math.Inf(1)) },
		lossDown: func(y int64) float64 { return math.Nextafter(loss(y), math.Inf(-1)) },
		sumNonneg: func(a, b int64) bounds {
			return geometric(float64(a)/tf, c, a, b)
		},
		zHi: z * (1 + massRel), ylo: 1, yhi: d - 1, bounded: true,
		analog: laplaceNoise(float64(d) / tf),
	}, nil
}

// discreteGaussianNoise is P(Y = y) ∝ exp(−y²/(2S)) under the shift d:
// L(y) = d(d − 2y)/(2S).
func discreteGaussianNoise(s uint64, d int64) (*latticeNoise, error) {
	if s < 1 || s > 1<<60 || d < 1 || d > 1<<52 {
		return nil, fmt.Errorf("accounting: %w: discrete Gaussian S = %d, shift d = %d: want 1 ≤ S ≤ 2⁶⁰ and 1 ≤ d ≤ 2⁵²", check.ErrParam, s, d)
	}
	sf := float64(s)
	w := int64(math.Ceil(gaussWidth * math.Sqrt(sf)))
	loss := func(y int64) (float64, float64) {
		v := float64(d) * float64(d-2*y) / (2 * sf)
		return v, 2 * math.Abs(v)
	}
	// Poisson summation: Σ_y e^{−y²/(2S)} = √(2πS)·Σ_k e^{−2π²S·k²}.
	q := math.Exp(-2 * math.Pi * math.Pi * sf)
	z := math.Sqrt(2*math.Pi*sf) * (1 + 2*q/(1-q))
	gl := newGaussLegendre()
	return &latticeNoise{
		d:         d,
		lossUp:    func(y int64) float64 { return up(loss(y)) },
		lossDown:  func(y int64) float64 { return down(loss(y)) },
		sumNonneg: func(a, b int64) bounds { return gl.sumGauss(a, b, sf) },
		zHi:       z * (1 + massRel), ylo: -w, yhi: w,
		analog: gaussianNoise(float64(d) / math.Sqrt(sf)),
	}, nil
}

// discreteHuberNoise is P(J = j) ∝ exp(−R(j)/(2τ²)), R(j) = j² for |j| ≤ a
// and 2a|j| − a² beyond, under the shift d: L(y) = (R(y−d) − R(y))/(2τ²),
// a·d/τ² for y ≤ −a and −a·d/τ² for y ≥ d + a.
func discreteHuberNoise(tau, a uint64, d int64) (*latticeNoise, error) {
	if tau < 1 || a < 1 || tau > 1<<50 || a > 1<<50 || d < 1 || d > 1<<52 {
		return nil, fmt.Errorf("accounting: %w: discrete Huber τ = %d, a = %d, shift d = %d: want τ, a in [1, 2⁵⁰] and d in [1, 2⁵²]", check.ErrParam, tau, a, d)
	}
	tf, af := float64(tau), float64(a)
	t2 := 2 * tf * tf
	ai := int64(a)
	r := func(j int64) float64 {
		j = abs(j)
		if j <= ai {
			return float64(j) * float64(j)
		}
		return 2*af*float64(j) - af*af
	}
	loss := func(y int64) (float64, float64) {
		r1, r2 := r(y-d), r(y)
		return (r1 - r2) / t2, (math.Abs(r1) + math.Abs(r2) + af*af) / t2 * 2
	}
	c := af / (tf * tf) // tail rate per unit beyond a
	gl := newGaussLegendre()
	sumNonneg := func(lo, hi int64) bounds {
		var s bounds
		if lo <= ai {
			s = s.add(gl.sumGauss(lo, min(hi, ai), tf*tf))
		}
		if hi > ai {
			from := max(lo, ai+1)
			s = s.add(geometric((2*af*float64(from)-af*af)/t2, c, from, hi))
		}
		return s
	}
	z := sumNonneg(1, posInf)
	nz, err := huberNoise(af/tf, float64(d)/tf)
	if err != nil {
		return nil, err
	}
	return &latticeNoise{
		d:         d,
		lossUp:    func(y int64) float64 { return up(loss(y)) },
		lossDown:  func(y int64) float64 { return down(loss(y)) },
		sumNonneg: sumNonneg,
		zHi:       (1 + 2*z.hi) * (1 + massRel),
		ylo:       -ai + 1, yhi: d + ai - 1, bounded: true,
		analog: nz,
	}, nil
}

// gaussLegendre holds 16 Gauss–Legendre nodes and weights on [−1, 1].
type gaussLegendre struct{ x, w [16]float64 }

func newGaussLegendre() *gaussLegendre {
	g := &gaussLegendre{}
	gquad.Legendre{}.FixedLocations(g.x[:], g.w[:], -1, 1)
	return g
}

// expNegSq returns ∫_{va}^{vb} e^{−v²} dv for 0 ≤ va ≤ vb: by erfc for
// vb = ∞, else by 16-point Gauss–Legendre on pieces of width at most 1/2
// (no difference of erfc values, which would cancel), a sum of positive
// terms. The Gauss–Legendre remainder, (w^{33}(16!)⁴/(33·(32!)³))·
// max|f^{(32)}| for a piece of width w, is below 1e-22 of the piece's
// integral for v ≤ 40 (|f^{(32)}| ≤ (2v)^{32}·e^{−v²} roughly).
func (g *gaussLegendre) expNegSq(va, vb float64) float64 {
	if math.IsInf(vb, 1) {
		return math.SqrtPi / 2 * math.Erfc(va)
	}
	pieces := max(1, math.Ceil((vb-va)/0.5))
	width := (vb - va) / pieces
	s := 0.0
	for p := range int(pieces) {
		lo := va + float64(p)*width
		hi := min(lo+width, vb)
		mid, half := (lo+hi)/2, (hi-lo)/2
		for i, x := range g.x {
			v := mid + half*x
			s += g.w[i] * math.Exp(-v*v) * half
		}
	}
	return s
}

// emMinS is the smallest S for which sumGauss uses the Euler–Maclaurin
// bounds; below it (small grids only) it sums term by term.
const emMinS = 1 << 40

// sumGauss bounds Σ_{y=a}^{b} e^{−y²/(2S)} for 0 ≤ a ≤ b (b may be
// posInf). For S < 2⁴⁰ or fewer than 64 terms it sums term by term
// (compensated). Otherwise, with f(y) = e^{−u²/2}, u = y/√S, by the
// Euler–Maclaurin formula to second order:
//
//	Σ = ∫_a^b f + (f(a) + f(b))/2 + (f′(b) − f′(a))/12 − (f‴(b) − f‴(a))/720 + R,
//	|R| ≤ (1/720)·∫_a^b |f⁗| ≤ (b − a)/720 · (u_b⁴ + 6u_b² + 3)·e^{−u_a²/2}/S²,
//
// with f′ = −u·f/√S, f‴ = (3u − u³)·f/S^{3/2} and f⁗ = (u⁴ − 6u² + 3)·f/S²;
// at S ≥ 2⁴⁰ R is below 1e-22 of the sum. For b = ∞:
// ∫_a^∞ f ≤ Σ ≤ f(a) + ∫_a^∞ f, since f falls on [0, ∞).
func (g *gaussLegendre) sumGauss(a, b int64, s float64) bounds {
	f := func(y float64) float64 { return math.Exp(-y * y / (2 * s)) }
	rs := math.Sqrt(2 * s)
	va := float64(a) / rs
	rel := massRel + massRelExp*va*va
	if b == posInf {
		i := rs * g.expNegSq(va, math.Inf(1))
		return bounds{i * (1 - rel), (i + f(float64(a))) * (1 + rel)}
	}
	if s < emMinS || b-a < 64 {
		v, c := 0.0, 0.0 // Neumaier summation
		for y := a; y <= b; y++ {
			x := f(float64(y))
			t := v + x
			if v >= x {
				c += (v - t) + x
			} else {
				c += (x - t) + v
			}
			v = t
		}
		vb := float64(b) / rs
		return widen(v+c, massRel+massRelExp*vb*vb)
	}
	vb := float64(b) / rs
	fa, fb := f(float64(a)), f(float64(b))
	ua, ub := va*math.Sqrt2, vb*math.Sqrt2
	sq := math.Sqrt(s)
	d1 := (-ub*fb + ua*fa) / sq
	d3 := ((3*ub-ub*ub*ub)*fb - (3*ua-ua*ua*ua)*fa) / (s * sq)
	t := rs*g.expNegSq(va, vb) + (fa+fb)/2 + d1/12 - d3/720
	r := float64(b-a) / 720 * (ub*ub*ub*ub + 6*ub*ub + 3) * fa / (s * s)
	return bounds{(t - r) * (1 - rel), (t + r) * (1 + rel)}
}

// bucketOf returns the smallest j with j·h ≥ l, as computed in floating
// point.
func bucketOf(l, h float64) int {
	j := int(math.Ceil(l / h))
	for float64(j-1)*h >= l {
		j--
	}
	for float64(j)*h < l {
		j++
	}
	return j
}

// pessimistic returns a privacy-loss distribution on the grid {j·h} that
// dominates the one of n: outputs are grouped into runs whose losses all
// lie in one bucket (l_{j−1}, l_j]; each run's P-mass is replaced by a lower
// bound, and with ctd its mass is split between l_{j−1} and l_j so that a
// lower bound on its Q-mass is kept (connect the dots), else it all goes to
// l_j (rounding up). Whatever the lower bounds miss, 1 − Σ, goes to the +∞
// atom.
func (n *latticeNoise) pessimistic(h float64, ctd bool) (*pmf, error) {
	if !(h > 0) || math.IsInf(h, 0) {
		return nil, fmt.Errorf("accounting: PLD grid width h = %g", h)
	}
	var lTop float64
	if n.bounded {
		lTop = n.lossUp(n.ylo - 1)
	} else {
		lTop = n.lossUp(n.ylo)
	}
	lBottom := n.lossUp(n.yhi + 1)
	jmax, jmin := bucketOf(lTop, h), bucketOf(lBottom, h)-1
	// lTop bounds every loss from above and lBottom is below none of the
	// upper bounds that matter, so clamping keeps lossUp an upper bound
	// while keeping floating-point noise inside [jmin, jmax].
	lossUp := func(y int64) float64 { return max(min(n.lossUp(y), lTop), lBottom) }
	size := jmax - jmin + 1
	if size > pldMaxFFT || size < 1 {
		return nil, fmt.Errorf("accounting: PLD grid of %d points (h = %g) is too large", size, h)
	}
	p := make([]float64, size)
	zinv := 1 / n.zHi
	// add puts the outputs [a, b] (losses in bucket j) on the grid. The
	// split needs every loss of the run above l_{j−1}: L(b), the smallest,
	// must be bounded below by it.
	var bad error
	add := func(j int, a, b int64, ctd bool) {
		if j > jmax || j-1 < jmin {
			bad = fmt.Errorf("accounting: lattice PLD: bucket %d outside [%d, %d]", j, jmin+1, jmax)
			return
		}
		if b == posInf {
			ctd = ctd && n.lossDown(a) >= float64(j-1)*h
		} else {
			ctd = ctd && n.lossDown(b) >= float64(j-1)*h
		}
		mp := n.sum(a, b)
		if mp.lo <= 0 {
			return
		}
		lo := mp.lo * zinv
		if !ctd {
			p[j-jmin] += lo
			return
		}
		// Q(y) = P(Y = y − d): a lower bound on the Q-mass of λ·(the run)
		// for the λ that leaves P-mass lo is lo·q.lo/mp.hi.
		mq := n.sum(sat(a, -n.d), sat(b, -n.d))
		q := lo * mq.lo / mp.hi
		// The grid points are the floats j·h and (j−1)·h, whose difference
		// (exact by Sterbenz's lemma for j ≥ 2) is the width to split over.
		// exp is within 1 ulp but its argument l_{j−1} + log q carries an
		// error of about |l_{j−1}| ulp: the margin moves that much more
		// mass up.
		lj := float64(j-1) * h
		hj := float64(j)*h - lj
		eq := 0.0 // e^{l_{j−1}}·q without overflow
		if q > 0 {
			eq = math.Exp(lj + math.Log(q))
		}
		upper := (lo - eq + (2e-15+5e-16*math.Abs(lj))*lo) / -math.Expm1(-hj)
		upper = min(max(upper, 0), lo)
		p[j-jmin] += upper
		p[j-1-jmin] += lo - upper
	}
	if n.bounded {
		add(bucketOf(lTop, h), -posInf, n.ylo-1, ctd)
	}
	rightTail := true
	for it, y := 0, n.ylo; y <= n.yhi; it++ {
		// Once all the rest, [y, ∞), has P-mass below pldTruncate, leave it
		// out: it goes to the +∞ atom.
		if it%64 == 63 && n.sum(y, posInf).hi*zinv <= pldTruncate {
			rightTail = false
			break
		}
		j := bucketOf(lossUp(y), h)
		// The run is [y, y1], y1 the last output still certified inside
		// the bucket (lower bound on the loss above l_{j−1}), split by
		// connecting the dots. Where the bounds straddle l_{j−1} already at
		// y (bucket width below the loss's rounding error), the run is
		// instead the outputs whose upper bound is above l_{j−1}, rounded
		// up: valid for any run starting at y, as L falls in y.
		connect := ctd
		in := func(v int64) bool { return n.lossDown(v) > float64(j-1)*h }
		if !in(y) {
			connect = false
			in = func(v int64) bool { return lossUp(v) > float64(j-1)*h }
		}
		lo, hi := y, n.yhi
		if !in(hi) {
			for hi-lo > 1 { // in(lo), !in(hi)
				mid := lo + (hi-lo)/2
				if in(mid) {
					lo = mid
				} else {
					hi = mid
				}
			}
		} else {
			lo = hi
		}
		add(j, y, lo, connect)
		y = lo + 1
	}
	if rightTail {
		add(bucketOf(lBottom, h), n.yhi+1, posInf, ctd && n.bounded)
	}
	if bad != nil {
		return nil, bad
	}
	total, comp := 0.0, 0.0 // Neumaier summation
	for _, v := range p {
		t := total + v
		if math.Abs(total) >= math.Abs(v) {
			comp += (total - t) + v
		} else {
			comp += (v - t) + total
		}
		total = t
	}
	total += comp
	inf := min(1, max(0, 1-total)+4*0x1p-53)
	return trimmedPMF(h, jmin, p, inf)
}

// sat returns b + c, or b if b is ±posInf.
func sat(b, c int64) int64 {
	if b == posInf || b == -posInf {
		return b
	}
	return b + c
}

// grid returns the grid width for k releases: that of the continuous
// analogue (see noise.pldGrid), adjusted for bounded losses so that the
// largest one, as bounded above, sits on the grid.
func (n *latticeNoise) grid(k int) (float64, error) {
	h, err := n.analog.pldGrid(k)
	if err != nil {
		return 0, err
	}
	if n.bounded {
		lmax := n.lossUp(n.ylo - 1)
		// The analogue's h divides its largest loss, which lmax exceeds
		// by an ulp: round, not ceil, so that h stays the same.
		h = stepDividing(lmax, math.Max(1, math.Round(lmax/h)))
	}
	return h, nil
}

// pldParts discretizes one release pessimistically on the grid chosen for
// k releases.
func (n *latticeNoise) pldParts(k int) ([]part, error) {
	h, err := n.grid(k)
	if err != nil {
		return nil, err
	}
	m, err := n.pessimistic(h, true)
	if err != nil {
		return nil, err
	}
	m.summarize(k)
	return []part{{m, k}}, nil
}
