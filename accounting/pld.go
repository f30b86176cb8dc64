package accounting

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"gonum.org/v1/gonum/dsp/fourier"

	"github.com/dpmc/dpmc/internal/check"
	"github.com/dpmc/dpmc/noise"
)

// PLD grid and truncation parameters. See doc.go for why they are valid.
const (
	// pldBins is the target number of grid points spanned by the composed
	// distribution of up to 1000 releases; the grid width h is chosen to
	// match (h ≈ window/bins). Beyond 1000 releases the target grows like
	// √k, up to pldMaxGrowth times, because the discretization error of
	// each release grows like h² and adds up over k releases.
	pldBins = 1 << 16
	// pldMaxGrowth caps that growth, and with it the FFT (2¹⁹ points, about
	// 20 MiB, from k = 16 000 on): beyond, h grows like √k and the
	// figure, still an upper bound (the discretization is pessimistic at
	// any h), is looser: against the exact Gaussian composition at
	// k = 685 000 by at most 5e-4 relative (1e-4 with a cap of 16, which
	// took 80 MiB), about k·h²/8 in ε (TestPLDGaussianExactLargeK).
	pldMaxGrowth = 4
	// pldMaxFFT bounds the FFT length (memory ≈ 40 bytes per point).
	pldMaxFFT = 1 << 22
	// pldTail is the probability, under the tilted composed distribution,
	// left outside each end of the FFT window (Chernoff bound).
	pldTail = 1e-20
	// pldTruncate is the probability of each tail of the noise T beyond which
	// an unbounded privacy loss (Gaussian) is truncated: the upper part goes
	// to the +∞ atom, the lower part is rounded up.
	pldTruncate = 1e-25
)

// pmf is a discrete privacy-loss distribution: under P the loss is
// (offset+i)·h with probability p[i], and +∞ with probability inf. p has no
// zero at either end. up and down are coarse summaries for Chernoff bounds
// (see summarize).
type pmf struct {
	h        float64
	offset   int
	p        []float64
	inf      float64
	up, down lattice
}

// lattice is a finite distribution on start + i·step, i = 0, 1, ….
type lattice struct {
	start, step float64
	p           []float64
}

// top and bottom return the largest and smallest finite loss.
func (m *pmf) top() float64    { return float64(m.offset+len(m.p)-1) * m.h }
func (m *pmf) bottom() float64 { return float64(m.offset) * m.h }

func (m *pmf) lattice() lattice { return lattice{m.bottom(), m.h, m.p} }

// logMGF returns the exact log Σ p_i e^{t·l_i} of the finite part.
func (m *pmf) logMGF(t float64) float64 { return m.lattice().logMGF(t) }

// boundMGF returns an upper bound on logMGF(t) for t ≥ 0 and an
// approximation of it for t < 0, from the coarse summaries: cheap enough
// for the many evaluations of a Chernoff minimization.
func (m *pmf) boundMGF(t float64) float64 {
	if t >= 0 {
		return m.up.logMGF(t)
	}
	return m.down.logMGF(t)
}

// summarize fills up and down: the masses of blocks of consecutive grid
// points moved to the top (up) or bottom (down) point of their block. For
// t ≥ 0 up's MGF is at least the true one, so Chernoff bounds on the upper
// tail computed from it stay valid. Moving mass shifts the sum of kTotal
// releases by up to kTotal times the block width, so blocks are only used
// while that stays below 1/1000 of the composed window (few releases).
func (m *pmf) summarize(kTotal int) {
	f := max(1, min(len(m.p)/512, pldBins/(1000*kTotal)))
	nb := (len(m.p) + f - 1) / f
	up, down := make([]float64, nb), make([]float64, nb)
	for i, v := range m.p {
		up[i/f] += v
		down[i/f] += v
	}
	step := float64(f) * m.h
	// Block b covers grid points b·f … b·f+f−1; the last block may be short,
	// and its top is then still at most top(): use the full block top only
	// where it exists.
	m.down = lattice{m.bottom(), step, down}
	topStart := m.bottom() + float64(f-1)*m.h
	if nb == 1 {
		topStart = m.top()
	}
	m.up = lattice{topStart, step, up}
}

// logMGF returns log Σ p_i e^{t·(start + i·step)} by Horner's rule, with no
// overflow for any t.
func (l lattice) logMGF(t float64) float64 {
	n := len(l.p)
	if t >= 0 {
		// Σ p_i x^{n−1−i}, x = e^{−t·step} ≤ 1, times e^{t·top}.
		x := math.Exp(-t * l.step)
		acc := 0.0
		for _, v := range l.p {
			acc = acc*x + v
		}
		return t*(l.start+float64(n-1)*l.step) + math.Log(acc)
	}
	x := math.Exp(t * l.step)
	acc := 0.0
	for i := n - 1; i >= 0; i-- {
		acc = acc*x + l.p[i]
	}
	return t*l.start + math.Log(acc)
}

// tailCut returns a point tz with P(T > tz) ≤ pldTruncate (within a
// factor 2 of the smallest such power of two). Losses are only resolved for
// noise in [−tz, tz]: by symmetry each side beyond holds at most
// pldTruncate of the mass.
func (n *unitNoise) tailCut() float64 {
	tz := 1.0
	for n.lowerCDF(-tz) > pldTruncate {
		tz *= 2
	}
	return tz
}

// lossSpan returns the range [lo, hi] of the privacy loss after truncation,
// and the exact supremum lmax (+Inf for the Gaussian).
func (n *unitNoise) lossSpan() (lo, hi, lmax float64) {
	l := n.loss()
	_, lmax = lossRange(l)
	tz := n.tailCut()
	return l.at(tz), l.at(-tz), lmax
}

// discretize returns the connect-the-dots discretization (Doroshenko et
// al. 2022) of the privacy-loss distribution of (P, Q) = (T, T + d) on the
// grid {j·h}: the P-mass of losses in each (l_j, l_{j+1}] is split between
// l_j and l_{j+1} so that both the P-mass and the Q-mass E_P[e^{−L}] are
// kept. The privacy curve of the result is the piecewise-linear (in e^ε)
// interpolation of the true curve at the grid points, which lies above the
// true curve because the curve is convex in e^ε. The grid spans the losses
// of noise values in [−tz, tz] (see tailCut); losses above it (probability
// ≤ 1e-25) go to the +∞ atom and losses below it are rounded up to its
// bottom; both only raise the curve.
func (n *unitNoise) discretize(h float64) (*pmf, error) {
	l := n.loss()
	lmin, lmax := lossRange(l)
	tz := n.tailCut()
	llo, lhi := l.at(tz), l.at(-tz)
	// Smallest jhi with jhi·h ≥ lhi and largest jlo with jlo·h ≤ llo, as
	// computed in floating point.
	jhi := int(math.Ceil(lhi / h))
	for float64(jhi-1)*h >= lhi {
		jhi--
	}
	for float64(jhi)*h < lhi {
		jhi++
	}
	jlo := int(math.Floor(llo / h))
	for float64(jlo+1)*h <= llo {
		jlo++
	}
	for float64(jlo)*h > llo {
		jlo--
	}
	size := jhi - jlo + 1
	if size > pldMaxFFT || size < 1 {
		return nil, fmt.Errorf("accounting: PLD grid of %d points (h = %g) is too large", size, h)
	}
	// Cumulative probabilities at the crossing point of every grid value,
	// under P (T) and Q (T + d), each accurate on its small side.
	type tails struct{ t, pl, pu, ql, qu float64 }
	at := make([]tails, size)
	for i := range at {
		t := crossing(l, lmin, lmax, float64(jlo+i)*h)
		pl, pu := n.cdf(t)
		ql, qu := n.cdf(t - n.d)
		at[i] = tails{t, pl, pu, ql, qu}
	}
	p := make([]float64, size)
	split := -math.Expm1(-h) // 1 − e^{−h}
	for i := 0; i+1 < size; i++ {
		lo, hi := at[i+1], at[i] // losses in (l_i, l_{i+1}] ⇔ t in [lo.t, hi.t)
		mp := between(lo.t, hi.t, lo.pl, lo.pu, hi.pl, hi.pu)
		if mp == 0 {
			continue
		}
		mq := between(lo.t-n.d, hi.t-n.d, lo.ql, lo.qu, hi.ql, hi.qu)
		up := mp
		if mq > 0 {
			up = (mp - math.Exp(float64(jlo+i)*h+math.Log(mq))) / split
		}
		up = math.Min(math.Max(up, 0), mp)
		p[i+1] += up
		p[i] += mp - up
	}
	// Above the grid: the +∞ atom. At or below its bottom: round up.
	inf := at[size-1].pl
	if math.IsInf(at[size-1].t, -1) {
		inf = 0
	}
	if !math.IsInf(at[0].t, 1) {
		p[0] += at[0].pu
	}
	return trimmedPMF(h, jlo, p, inf)
}

// trimmedPMF returns the pmf of masses p on the grid h·(offset + k) and
// mass inf at +∞, with the zeros at both ends of p trimmed so that both
// ends carry mass (logMGF relies on it). It returns an error if p has no
// nonzero mass.
func trimmedPMF(h float64, offset int, p []float64, inf float64) (*pmf, error) {
	first, last := 0, len(p)-1
	for first < last && p[first] == 0 {
		first++
	}
	for last > first && p[last] == 0 {
		last--
	}
	if len(p) == 0 || p[last] == 0 {
		return nil, errors.New("accounting: privacy-loss distribution has no finite mass")
	}
	return &pmf{h: h, offset: offset + first, p: p[first : last+1], inf: inf}, nil
}

// part is a pmf composed k times.
type part struct {
	m *pmf
	k int
}

// sumLogMGF is the boundMGF of the sum of all parts.
func sumLogMGF(parts []part, t float64) float64 {
	s := 0.0
	for _, pt := range parts {
		s += float64(pt.k) * pt.m.boundMGF(t)
	}
	return s
}

// minimize returns the argument and value of the minimum of the unimodal
// function f(e^u) over u in [log lo, log hi], by golden-section search.
func minimize(f func(t float64) float64, lo, hi float64) (float64, float64) {
	const g = 0.6180339887498949
	a, b := math.Log(lo), math.Log(hi)
	c, d := b-g*(b-a), a+g*(b-a)
	fc, fd := f(math.Exp(c)), f(math.Exp(d))
	for range 50 {
		if fc <= fd {
			b, d, fd = d, c, fc
			c = b - g*(b-a)
			fc = f(math.Exp(c))
		} else {
			a, c, fc = c, d, fd
			d = a + g*(b-a)
			fd = f(math.Exp(d))
		}
	}
	if fc <= fd {
		return math.Exp(c), fc
	}
	return math.Exp(d), fd
}

// tRange returns the range of Chernoff parameters t searched for losses on
// a grid of width h: the optimum lies far inside it whatever the scale of
// the loss (about 1/(spread of the composed loss), or up to 1/h for tilts).
func tRange(h float64) (lo, hi float64) { return 1e-12 / h, 1e3 / h }

// upperBound returns the smallest x with P(S ≥ x) ≤ tail by the Chernoff
// bound, where S has log-MGF g on a grid of width h.
func upperBound(g func(t float64) float64, tail, h float64) float64 {
	lo, hi := tRange(h)
	_, v := minimize(func(t float64) float64 { return (g(t) - math.Log(tail)) / t }, lo, hi)
	return v
}

// composed is the distribution of the total privacy loss of several
// composed pmfs on a common grid, as computed by FFT from the distribution
// tilted by e^{θ·l}: the untilted probability of loss (base+i)·h is
// w[i]·exp(logMK − θ·(base+i)·h).
type composed struct {
	h      float64
	base   int
	w      []float64
	theta  float64
	logMK  float64
	inf    float64 // probability of +∞ plus the bound on aliased upper mass
	fftErr float64 // bound on Σ|error in w| from floating point
}

// saddle returns the tilt θ ≥ 0 that minimizes the Chernoff bound
// log E[e^{θ(S−ε)}] on P(S ≥ ε): the tilt under which the composed loss S
// has mean ε, so that the FFT's relative precision is best around ε.
func saddle(parts []part, eps float64) float64 {
	g := func(t float64) float64 { return sumLogMGF(parts, t) }
	lo, hi := tRange(parts[0].m.h)
	t, v := minimize(func(t float64) float64 { return g(t) - t*eps }, lo, hi)
	if t <= 10*lo || v >= g(0) {
		return 0
	}
	return t
}

// chernoffTilt returns the tilt at which the Chernoff bound gives the
// smallest ε for the target delta, at most 1/h (a larger tilt would
// amplify the rounding error between adjacent grid points by more than e).
func chernoffTilt(parts []part, delta float64) float64 {
	g := func(t float64) float64 { return sumLogMGF(parts, t) }
	lo, hi := tRange(parts[0].m.h)
	t, _ := minimize(func(t float64) float64 { return (g(t) - math.Log(delta)) / t }, lo, hi)
	return math.Min(t, 1/parts[0].m.h)
}

// compose convolves the parts by FFT with the tilt theta. The window is
// chosen so that the tilted distribution has at most pldTail outside each
// end; mass above the window would wrap round to lower losses, so a
// Chernoff bound on it is added to inf, and mass below it wraps to higher
// losses, which only raises δ.
func compose(parts []part, theta float64) (*composed, error) {
	return composeWith(parts, theta, nil)
}

// fftScratch holds the FFT plan and the buffers of composeWith, kept
// between the compositions of one accountant call so that the second
// (tilted) composition reuses the first one's memory instead of adding its
// own: the buffers are the bulk of the PLD accountant's memory (about 40
// bytes per point of the FFT: gonum's plan 24, the sequence 8, the
// spectrum 8). The composed result of composeWith aliases seq, so it is
// invalid once the scratch is used again.
type fftScratch struct {
	n    int
	fft  *fourier.FFT
	seq  []float64
	prod []complex128
}

// get returns the plan and buffers for length n, reusing the memory of
// earlier lengths where it is large enough.
func (s *fftScratch) get(n int) (*fourier.FFT, []float64, []complex128) {
	if s.fft == nil {
		s.fft = fourier.NewFFT(n)
	} else if s.n != n {
		s.fft.Reset(n)
	}
	s.n = n
	if cap(s.seq) < n {
		s.seq = make([]float64, n)
	}
	if cap(s.prod) < n/2+1 {
		s.prod = make([]complex128, n/2+1)
	}
	return s.fft, s.seq[:n], s.prod[:n/2+1]
}

// composeWith is compose with its buffers taken from scratch (nil: fresh
// ones). It computes in place where it can: one real sequence, one
// spectrum (plus a second one only when there are several parts), and the
// window rotated within the sequence, so the values are those of the
// straightforward computation, bit for bit.
func composeWith(parts []part, theta float64, scratch *fftScratch) (*composed, error) {
	h := parts[0].m.h
	base, jmax, kTotal := 0, 0, 0
	logMK := 0.0
	infLog := 0.0 // log P(no +∞ atom)
	for _, pt := range parts {
		if pt.m.h != h {
			return nil, errors.New("accounting: composing PLDs on different grids")
		}
		base += pt.k * pt.m.offset
		jmax += pt.k * (len(pt.m.p) - 1)
		kTotal += pt.k
		logMK += float64(pt.k) * pt.m.logMGF(theta)
		infLog += float64(pt.k) * math.Log1p(-pt.m.inf)
	}
	// Window of the tilted sum.
	tilted := func(t float64) float64 { return sumLogMGF(parts, theta+t) - logMK }
	hiLoss := upperBound(tilted, pldTail, h)
	loLoss := -upperBound(func(t float64) float64 { return tilted(-t) }, pldTail, h)
	jlo := clampInt(int(math.Floor(loLoss/h))-base, 0, jmax)
	jhi := clampInt(int(math.Ceil(hiLoss/h))-base, jlo, jmax)
	n := 1 << bits.Len(uint(jhi-jlo)) // power of two > jhi − jlo
	if n > pldMaxFFT {
		return nil, fmt.Errorf("accounting: PLD needs an FFT of length %d (> %d)", n, pldMaxFFT)
	}
	if jmax+1 <= n {
		jlo = 0
	} else if jlo+n-1 > jmax {
		jlo = jmax - n + 1
	}
	alias := 0.0
	if jlo+n-1 < jmax {
		top := float64(base+jlo+n) * h
		tlo, thi := tRange(h)
		_, lb := minimize(func(t float64) float64 { return sumLogMGF(parts, t) - t*top }, tlo, thi)
		alias = math.Exp(lb)
	}

	if scratch == nil {
		scratch = new(fftScratch)
	}
	fft, seq, prod := scratch.get(n)
	// With one part its spectrum is raised to the k-th power in place;
	// with several, each part's spectrum goes to coef and multiplies prod.
	coef := prod
	if len(parts) > 1 {
		for i := range prod {
			prod[i] = 1
		}
		coef = make([]complex128, n/2+1)
	}
	for _, pt := range parts {
		clear(seq)
		lm := pt.m.logMGF(theta)
		for i, v := range pt.m.p {
			if v > 0 {
				l := float64(pt.m.offset+i) * h
				seq[i%n] += math.Exp(math.Log(v) + theta*l - lm)
			}
		}
		fft.Coefficients(coef, seq)
		if len(parts) == 1 {
			for i, c := range coef {
				prod[i] = cpow(c, pt.k)
			}
			continue
		}
		for i, c := range coef {
			prod[i] *= cpow(c, pt.k)
		}
	}
	fft.Sequence(seq, prod)
	// Window position j holds residue r = (j + jlo) mod n: rotate seq left
	// by jlo mod n, in place, then scale and clip.
	rotateLeft(seq, ((jlo%n)+n)%n)
	w := seq
	inv := 1 / float64(n)
	for j, v := range w {
		w[j] = math.Max(v*inv, 0)
	}
	log2n := float64(bits.Len(uint(n)) - 1)
	fftErr := 0x1p-52 * math.Sqrt(float64(n)) * (5*log2n + 2) * float64(kTotal+1)
	return &composed{
		h: h, base: base + jlo, w: w, theta: theta, logMK: logMK,
		inf:    -math.Expm1(infLog) + alias,
		fftErr: fftErr,
	}, nil
}

// rotateLeft moves s[r] to s[r−by] (indices mod len(s)) in place, by three
// reversals.
func rotateLeft(s []float64, by int) {
	if by == 0 {
		return
	}
	slices.Reverse(s[:by])
	slices.Reverse(s[by:])
	slices.Reverse(s)
}

func clampInt(v, lo, hi int) int { return min(max(v, lo), hi) }

// cpow returns c^k by repeated squaring.
func cpow(c complex128, k int) complex128 {
	r := complex(1, 0)
	for k > 0 {
		if k&1 == 1 {
			r *= c
		}
		c *= c
		k >>= 1
	}
	return r
}

// loss returns the loss of grid position i.
func (c *composed) loss(i int) float64 { return float64(c.base+i) * c.h }

// prob returns the (untilted) probability at position i.
func (c *composed) prob(i int) float64 {
	if c.w[i] <= 0 {
		return 0
	}
	return math.Exp(math.Log(c.w[i]) + c.logMK - c.theta*c.loss(i))
}

// slack is the bound on the floating-point error of δ(ε).
func (c *composed) slack(eps float64) float64 {
	return c.fftErr * math.Exp(c.logMK-c.theta*eps)
}

// delta returns an upper bound on δ(ε) = Σ_{l>ε} p(l)(1 − e^{ε−l}) + p(∞).
func (c *composed) delta(eps float64) float64 {
	s := 0.0
	for i := len(c.w) - 1; i >= 0 && c.loss(i) > eps; i-- {
		s += c.prob(i) * -math.Expm1(eps-c.loss(i))
	}
	return s + c.inf + c.slack(eps)
}

// epsilon returns the smallest ε ≥ 0 with delta(ε) ≤ target, or false if
// no ε reaches it (the +∞ atom and the error bounds alone exceed it).
func (c *composed) epsilon(target float64) (float64, bool) {
	// Walk down the grid from the top keeping, for the current point l_j,
	// a = Σ_{m>j} p_m and cc = Σ_{m>j} p_m e^{l_j − l_m}, so that
	// δ(l_j + x) = a − e^x·cc + inf + slack for 0 ≤ x ≤ h.
	eh := math.Exp(-c.h)
	j := len(c.w) - 1
	a, cc := 0.0, 0.0
	at := func(x float64) float64 { return a - math.Exp(x)*cc + c.inf + c.slack(c.loss(j)+x) }
	if at(0) > target {
		return 0, false
	}
	for j > 0 && c.loss(j) > 0 {
		pj := c.prob(j)
		j, a, cc = j-1, a+pj, (cc+pj)*eh
		if at(0) > target {
			return c.solve(at, j, 0, c.h, target), true
		}
	}
	if c.loss(j) <= 0 {
		return 0, true // δ(0) ≤ δ(l_j) ≤ target
	}
	// The bottom of the window is above 0 and still within target: below it
	// all mass is above ε, δ(l_0 + x) = (a + p_0) − e^x·(cc + p_0) + ….
	p0 := c.prob(j)
	a, cc = a+p0, cc+p0
	return c.solve(at, j, math.Inf(-1), 0, target), true
}

// solve returns the smallest ε = l_j + x ≥ 0 with x in [xlo, xhi] and
// at(x) ≤ target, where at is non-increasing and at(xhi) ≤ target.
func (c *composed) solve(at func(float64) float64, j int, xlo, xhi, target float64) float64 {
	xlo = math.Max(xlo, -c.loss(j))
	if xlo >= xhi {
		return math.Max(c.loss(j)+xhi, 0)
	}
	if at(xlo) <= target {
		return math.Max(c.loss(j)+xlo, 0)
	}
	lo, hi := xlo, xhi
	for range 200 {
		mid := (lo + hi) / 2
		if mid <= lo || mid >= hi {
			break
		}
		if at(mid) > target {
			lo = mid
		} else {
			hi = mid
		}
	}
	return c.loss(j) + hi
}

// pldGrid returns the grid width for composing n k times: the composed
// distribution's Chernoff window divided by pldBins, at most 1/64 of the
// span of one release's loss, and dividing the largest loss exactly when it
// is finite (so that the atom of Laplace and Huber noise at ε₀ sits on the
// grid).
func (n *unitNoise) pldGrid(k int) (float64, error) {
	lo, hi, lmax := n.lossSpan()
	span := hi - lo
	if !(span > 0) || math.IsInf(span, 0) || math.IsNaN(span) {
		return 0, fmt.Errorf("accounting: degenerate privacy loss range [%g, %g]", lo, hi)
	}
	coarse, err := n.discretize(span / 1024)
	if err != nil {
		return 0, err
	}
	coarse.summarize(k)
	g := func(t float64) float64 { return float64(k) * coarse.boundMGF(t) }
	upper := math.Min(upperBound(g, pldTail, coarse.h), float64(k)*coarse.top())
	lower := math.Max(-upperBound(func(t float64) float64 { return g(-t) }, pldTail, coarse.h), float64(k)*coarse.bottom())
	bins := pldBins * math.Min(math.Max(math.Sqrt(float64(k)/1000), 1), pldMaxGrowth)
	h := math.Min((upper-lower)/bins, span/64)
	if !(h > 0) {
		h = span / bins
	}
	if !math.IsInf(lmax, 1) && lmax > 0 {
		h = stepDividing(lmax, math.Ceil(lmax/h))
	}
	return h, nil
}

// stepDividing returns the bucket width lmax/steps, raised by ulps until
// steps of it reach lmax, so that lmax falls on the grid's last edge.
func stepDividing(lmax, steps float64) float64 {
	h := lmax / steps
	for steps*h < lmax {
		h = math.Nextafter(h, math.Inf(1))
	}
	return h
}

// pldParts discretizes one release of n on the grid chosen for k releases.
func (n *unitNoise) pldParts(k int) ([]part, error) {
	h, err := n.pldGrid(k)
	if err != nil {
		return nil, err
	}
	m, err := n.discretize(h)
	if err != nil {
		return nil, err
	}
	m.summarize(k)
	return []part{{m, k}}, nil
}

// pldEpsilon returns the smallest ε with δ(ε) ≤ delta for the composition
// of parts, or false if delta is below what the computation resolves. It
// composes without tilt first; unless that is already precise to 0.1 % of
// delta, it composes again with the tilt that centres the distribution on
// the ε found (or, if none was found, the Chernoff tilt for delta), and
// keeps the smaller ε. Both are valid upper bounds.
//
// The two compositions share one set of buffers (the first result is dead
// when the second is computed), so the peak memory is that of the larger
// one alone.
func pldEpsilon(parts []part, delta float64) (float64, bool, error) {
	var scratch fftScratch
	c, err := composeWith(parts, 0, &scratch)
	if err != nil {
		return 0, false, err
	}
	eps, ok := c.epsilon(delta)
	if ok && c.fftErr <= 1e-3*delta {
		return eps, true, nil
	}
	theta := chernoffTilt(parts, delta)
	if ok {
		theta = saddle(parts, eps)
	}
	if theta == 0 {
		return eps, ok, nil
	}
	// c is dead from here on: c2 reuses its window's memory.
	c2, err := composeWith(parts, theta, &scratch)
	if err != nil {
		return 0, false, err
	}
	eps2, ok2 := c2.epsilon(delta)
	switch {
	case ok && ok2:
		return math.Min(eps, eps2), true, nil
	case ok2:
		return eps2, true, nil
	}
	return eps, ok, nil
}

// PLD is the privacy-loss-distribution accountant (Meiser & Mohammadi
// 2018; Koskela et al. 2020; Doroshenko et al. 2022): the distribution of
// the privacy loss of one release is discretized pessimistically on a grid,
// composed k times by FFT, and δ(ε) = E[(1 − e^{ε−L})₊] + P(L = ∞) of the
// result is inverted for the smallest ε with δ(ε) ≤ delta. Every
// approximation only raises δ(ε), so the ε is an upper bound on the true
// one (see the package documentation). When delta is below what the
// computation resolves (around 1e-55 for the Gaussian, whose loss is
// truncated), a pure mechanism gets ε = k·ε₀, where δ is exactly 0, and
// the Gaussian an error wrapping ErrNotApplicable. For the discrete
// mechanisms (package discrete; s is then the rounded sensitivity) the
// distribution is the pessimistic lattice one described in the package
// documentation; the discrete Gaussian is not applicable here (a change
// spread over several coordinates can be worse than its one-coordinate
// shift): ComposeDiscrete with n = 1 accounts for it. It also returns an
// error wrapping ErrNotApplicable for mechanisms whose noise distribution
// this package does not know, and an error naming the parameter for
// invalid input.
func PLD(m noise.Mechanism, s noise.Sensitivity, k int, delta float64) (*Total, error) {
	if err := checkDelta(delta); err != nil {
		return nil, err
	}
	md, err := prepare(m, s, k)
	if err != nil {
		return nil, err
	}
	return md.pldTotal(k, delta)
}

func (md *model) pldTotal(k int, delta float64) (*Total, error) {
	parts, err := md.pldParts(k)
	if err != nil {
		return nil, err
	}
	eps, ok, err := pldEpsilon(parts, delta)
	if err != nil {
		// The composed window needs a longer FFT than allowed (about 10⁸
		// releases of a pure mechanism): the other accountants still apply.
		return nil, fmt.Errorf("%w: pld: %v", ErrNotApplicable, err)
	}
	if !ok {
		if md.pure {
			// The loss of k pure ε₀-DP releases never exceeds k·ε₀, so
			// δ(k·ε₀) = 0 whatever the numerics resolve.
			return &Total{Epsilon: float64(k) * md.eps0, Delta: delta, Accountant: NamePLD}, nil
		}
		return nil, fmt.Errorf("%w: pld: delta = %g is below what the accountant can resolve", ErrNotApplicable, delta)
	}
	return &Total{Epsilon: eps, Delta: delta, Accountant: NamePLD}, nil
}

// PLDDelta returns the PLD accountant's upper bound on δ(epsilon), the
// smallest δ for which k releases are (epsilon, δ)-DP. It returns an error
// wrapping ErrNotApplicable for mechanisms other than Laplace, Gaussian and
// Huber and their discrete versions (except the discrete Gaussian, as for
// PLD), and an error naming the parameter if k < 1, epsilon is negative or
// not finite, or the sensitivity is invalid.
func PLDDelta(m noise.Mechanism, s noise.Sensitivity, k int, epsilon float64) (float64, error) {
	if err := check.NonNegative("epsilon", epsilon); err != nil {
		return 0, err
	}
	md, err := prepare(m, s, k)
	if err != nil {
		return 0, err
	}
	parts, err := md.pldParts(k)
	if err != nil {
		return 0, err
	}
	c, err := compose(parts, saddle(parts, epsilon))
	if err != nil {
		return 0, err
	}
	return math.Min(c.delta(epsilon), 1), nil
}
