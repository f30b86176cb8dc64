package accounting

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/dpmc/dpmc/internal/check"
	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/discrete"
	"github.com/dpmc/dpmc/noise/gaussian"
	"github.com/dpmc/dpmc/noise/huber"
	"github.com/dpmc/dpmc/noise/laplace"
)

// Accountant names, as used in Total.Accountant, Totals' JSON keys and
// Totals.NotApplicable.
const (
	NameBasic = "basic"
	NameKOV   = "advanced_kov"
	NameDRV   = "advanced_drv"
	NameRDP   = "rdp"
	NamePLD   = "pld"
)

// Accountants returns the accountant names in the order of Totals' fields,
// loosest theory first: basic, advanced_kov, advanced_drv, rdp, pld.
func Accountants() []string { return []string{NameBasic, NameKOV, NameDRV, NameRDP, NamePLD} }

// ErrNotApplicable is wrapped by the error an accountant returns when it
// cannot bound the given mechanism (for example RDP or PLD for a mechanism
// whose noise distribution this package does not know).
var ErrNotApplicable = errors.New("accountant not applicable")

// Total is a composed (ε, δ) guarantee and the accountant that proved it:
// k releases together are (Epsilon, Delta)-differentially private. Epsilon
// is in nats; Delta is a probability (0 for pure ε-DP).
type Total struct {
	Epsilon    float64 `json:"epsilon"`
	Delta      float64 `json:"delta"`
	Accountant string  `json:"accountant"`
}

// String formats t as "pld: (ε, δ) = (1.23, 1e-05)".
func (t Total) String() string {
	return fmt.Sprintf("%s: (ε, δ) = (%.6g, %.3g)", t.Accountant, t.Epsilon, t.Delta)
}

// Totals holds one Total per accountant, each valid on its own for the same
// target δ (its Delta is at most the target); a field is nil where the
// accountant does not apply, and NotApplicable then says why.
type Totals struct {
	Basic       *Total `json:"basic"`
	AdvancedKOV *Total `json:"advanced_kov"`
	AdvancedDRV *Total `json:"advanced_drv"`
	RDP         *Total `json:"rdp"`
	PLD         *Total `json:"pld"`

	// NotApplicable maps the name of each accountant whose Total is nil to
	// the reason.
	NotApplicable map[string]string `json:"-"`
}

// ByName returns the Total of the named accountant (one of Accountants),
// or nil if it does not apply or the name is unknown.
func (t Totals) ByName(name string) *Total {
	switch name {
	case NameBasic:
		return t.Basic
	case NameKOV:
		return t.AdvancedKOV
	case NameDRV:
		return t.AdvancedDRV
	case NameRDP:
		return t.RDP
	case NamePLD:
		return t.PLD
	}
	return nil
}

func (t *Totals) set(name string, v *Total) {
	switch name {
	case NameBasic:
		t.Basic = v
	case NameKOV:
		t.AdvancedKOV = v
	case NameDRV:
		t.AdvancedDRV = v
	case NameRDP:
		t.RDP = v
	case NamePLD:
		t.PLD = v
	}
}

// Tightest returns the Total with the smallest ε among those present (on a
// tie, the first in Accountants order). All of them hold for the same
// target δ, so this is the best guarantee proved. It returns an error if no
// accountant applies.
func (t Totals) Tightest() (Total, error) {
	var best *Total
	for _, name := range Accountants() {
		if v := t.ByName(name); v != nil && (best == nil || v.Epsilon < best.Epsilon) {
			best = v
		}
	}
	if best == nil {
		return Total{}, errors.New("accounting: no accountant applies")
	}
	return *best, nil
}

// Compose bounds the privacy of k releases of m (fresh noise each time, on
// a statistic of sensitivity s) under every accountant, at the target
// delta. Laplace and Huber use s.L1, the Gaussian s.L2. It returns an error
// naming the parameter if k < 1, delta is not in (0, 1), m is nil or the
// sensitivity it needs is not positive and finite; an accountant that does
// not apply leaves its field nil with the reason in NotApplicable.
func Compose(m noise.Mechanism, s noise.Sensitivity, k int, delta float64) (Totals, error) {
	return ComposeContext(context.Background(), m, s, k, delta)
}

// ComposeContext is Compose, stopped when ctx is done: it then returns an
// error wrapping ctx.Err(). The accountants check ctx between them and
// within their long loops (KOV's bisection takes seconds at k = 10⁸).
func ComposeContext(ctx context.Context, m noise.Mechanism, s noise.Sensitivity, k int, delta float64) (Totals, error) {
	if err := checkDelta(delta); err != nil {
		return Totals{}, err
	}
	md, err := prepare(m, s, k)
	if err != nil {
		return Totals{}, err
	}
	md.ctx = ctx
	return md.compose(k, delta)
}

// cancelled returns an error wrapping md.ctx's error once it is done.
func (md *model) cancelled() error {
	if md.ctx == nil {
		return nil
	}
	if err := md.ctx.Err(); err != nil {
		return fmt.Errorf("accounting: %w", err)
	}
	return nil
}

func (md *model) compose(k int, delta float64) (Totals, error) {
	var t Totals
	run := []func(int, float64) (*Total, error){md.basicTotal, md.kovTotal, md.drvTotal, md.rdpTotal, md.pldTotal}
	for i, name := range Accountants() {
		if err := md.cancelled(); err != nil {
			return Totals{}, err
		}
		v, err := run[i](k, delta)
		switch {
		case errors.Is(err, ErrNotApplicable):
			if t.NotApplicable == nil {
				t.NotApplicable = map[string]string{}
			}
			t.NotApplicable[name] = notApplicableReason(err)
		case err != nil && md.cancelled() != nil:
			return Totals{}, md.cancelled()
		case err != nil:
			return Totals{}, fmt.Errorf("accounting: %s: %w", name, err)
		case math.IsInf(v.Epsilon, 0) || math.IsNaN(v.Epsilon):
			return Totals{}, fmt.Errorf("%w: accounting: %s: ε = %v overflows: the sensitivity is too large for the noise", check.ErrParam, name, v.Epsilon)
		default:
			t.set(name, v)
		}
	}
	return t, nil
}

// notApplicableReason strips the sentinel and the accountant prefix from
// an ErrNotApplicable error.
func notApplicableReason(err error) string {
	msg := err.Error()
	for _, p := range Accountants() {
		prefix := ErrNotApplicable.Error() + ": " + p + ": "
		if len(msg) > len(prefix) && msg[:len(prefix)] == prefix {
			return msg[len(prefix):]
		}
	}
	return msg
}

// Calibrate finds, by bisection on log p, the smallest noise parameter p in
// [lo, hi] (to a relative precision of 1e-6) such that k releases of
// family(p) on a statistic of sensitivity s are (epsilon, delta)-DP under
// the tightest accountant, and returns p with the Totals at p. family must
// give less privacy loss for larger p (σ, a Laplace scale b or a Huber scale
// s at fixed α). If family(lo) already meets the target, p = lo. It returns
// an error naming the parameter for invalid arguments, an error if even
// family(hi) does not meet the target, and any error of family.
func Calibrate(family func(p float64) (noise.Mechanism, error), s noise.Sensitivity, k int, epsilon, delta, lo, hi float64) (p float64, t Totals, err error) {
	return CalibrateContext(context.Background(), family, s, k, epsilon, delta, lo, hi)
}

// CalibrateContext is Calibrate, stopped when ctx is done: it then
// returns an error wrapping ctx.Err().
func CalibrateContext(ctx context.Context, family func(p float64) (noise.Mechanism, error), s noise.Sensitivity, k int, epsilon, delta, lo, hi float64) (p float64, t Totals, err error) {
	if family == nil {
		return 0, Totals{}, fmt.Errorf("%w: family is nil", check.ErrParam)
	}
	return calibrate(ctx, func(p float64) (Totals, error) {
		m, err := family(p)
		if err != nil {
			return Totals{}, err
		}
		return ComposeContext(ctx, m, s, k, delta)
	}, k, epsilon, delta, lo, hi)
}

// calibrate bisects on log p for the smallest p in [lo, hi] whose totals
// (from totalsAt) meet epsilon under the tightest accountant, checking ctx
// before each evaluation.
func calibrate(ctx context.Context, totalsAt func(p float64) (Totals, error), k int, epsilon, delta, lo, hi float64) (p float64, t Totals, err error) {
	if err := checkK(k); err != nil {
		return 0, Totals{}, err
	}
	if err := check.Positive("epsilon", epsilon); err != nil {
		return 0, Totals{}, err
	}
	if err := checkDelta(delta); err != nil {
		return 0, Totals{}, err
	}
	if err := check.Positive("lo", lo); err != nil {
		return 0, Totals{}, err
	}
	if err := check.Positive("hi", hi); err != nil {
		return 0, Totals{}, err
	}
	if lo >= hi {
		return 0, Totals{}, fmt.Errorf("%w: lo = %g, hi = %g, want lo < hi", check.ErrParam, lo, hi)
	}
	eval := func(p float64) (Totals, bool, error) {
		if err := ctx.Err(); err != nil {
			return Totals{}, false, fmt.Errorf("accounting: %w", err)
		}
		t, err := totalsAt(p)
		if err != nil && ctx.Err() != nil {
			return Totals{}, false, fmt.Errorf("accounting: %w", ctx.Err())
		}
		if err != nil {
			return Totals{}, false, fmt.Errorf("accounting: calibrate at p = %g: %w", p, err)
		}
		best, err := t.Tightest()
		if err != nil {
			return Totals{}, false, err
		}
		return t, best.Epsilon <= epsilon, nil
	}
	tHi, ok, err := eval(hi)
	if err != nil {
		return 0, Totals{}, err
	}
	if !ok {
		return 0, Totals{}, fmt.Errorf("accounting: even p = hi = %g does not give (ε, δ) = (%g, %g) after %d releases; raise hi", hi, epsilon, delta, k)
	}
	tLo, ok, err := eval(lo)
	if err != nil {
		return 0, Totals{}, err
	}
	if ok {
		return lo, tLo, nil
	}
	for hi/lo > 1+1e-6 {
		mid := math.Sqrt(lo * hi)
		if mid <= lo || mid >= hi {
			break
		}
		t, ok, err := eval(mid)
		if err != nil {
			return 0, Totals{}, err
		}
		if ok {
			hi, tHi = mid, t
		} else {
			lo = mid
		}
	}
	return hi, tHi, nil
}

func checkK(k int) error {
	if k < 1 {
		return fmt.Errorf("%w: k (compositions) = %d, want ≥ 1", check.ErrParam, k)
	}
	return nil
}

func checkDelta(delta float64) error { return check.Probability("delta", delta) }

// model is what the accountants know about one release of a mechanism on a
// statistic of a given sensitivity.
type model struct {
	// ctx, if not nil, stops the long computations (see cancelled).
	ctx   context.Context
	pure  bool
	eps0  float64                               // pure: ε of one release
	epsAt func(delta0 float64) (float64, error) // approximate: ε of one release at δ₀

	rdp   func(order float64) (float64, error) // nil: unknown RDP curve
	noRDP string
	shape *unitNoise // nil: unknown noise distribution
	// lattice is the noise of a discrete mechanism (shape is then nil).
	lattice *latticeNoise
	// scalar is the discrete Gaussian's lattice noise, valid only when one
	// neighbouring change moves one coordinate (see ComposeDiscrete).
	scalar *latticeNoise
	noPLD  string
}

// pldParts discretizes one release for k releases: pessimistically on the
// lattice for a discrete mechanism, else by connecting the dots of the
// continuous distribution. It returns an error wrapping ErrNotApplicable
// if the noise distribution is unknown.
func (md *model) pldParts(k int) ([]part, error) {
	switch {
	case md.lattice != nil:
		parts, err := md.lattice.pldParts(k)
		if err != nil {
			// A grid finer than the FFT allows (losses of thousands of
			// nats per release): the other accountants still apply.
			return nil, fmt.Errorf("%w: pld: %v", ErrNotApplicable, err)
		}
		return parts, nil
	case md.shape != nil:
		return md.shape.pldParts(k)
	}
	return nil, fmt.Errorf("%w: pld: %s", ErrNotApplicable, md.noPLD)
}

func prepare(m noise.Mechanism, s noise.Sensitivity, k int) (*model, error) {
	if err := checkK(k); err != nil {
		return nil, err
	}
	return describe(m, s)
}

// describe builds the model of m at sensitivity s, checking the
// sensitivity the mechanism uses.
func describe(m noise.Mechanism, s noise.Sensitivity) (*model, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: mechanism is nil", check.ErrParam)
	}
	finite := func(name string, v float64) error {
		if math.IsInf(v, 0) || math.IsNaN(v) || v <= 0 {
			return fmt.Errorf("%w: %s = %g: sensitivity over noise scale must be positive and finite", check.ErrParam, name, v)
		}
		return nil
	}
	switch mm := m.(type) {
	case *laplace.Mechanism:
		g, err := mm.Guarantee(s, 0)
		if err != nil {
			return nil, err
		}
		d := s.L1 / mm.Scale()
		if err := finite("sensitivity L1 / laplace scale b", d); err != nil {
			return nil, err
		}
		eps0 := g.Epsilon
		return &model{
			pure: true, eps0: eps0,
			rdp:   func(a float64) (float64, error) { return math.Min(laplaceRDP(a, d), eps0), nil },
			shape: laplaceNoise(d),
		}, nil
	case *huber.Mechanism:
		g, err := mm.Guarantee(s, 0)
		if err != nil {
			return nil, err
		}
		d := s.L1 / mm.Scale()
		if err := finite("sensitivity L1 / huber scale s", d); err != nil {
			return nil, err
		}
		nz, err := huberNoise(mm.Alpha(), d)
		if err != nil {
			return nil, err
		}
		eps0 := g.Epsilon
		return &model{
			pure: true, eps0: eps0,
			rdp: func(a float64) (float64, error) {
				// Pure ε₀-DP implies D_a ≤ ε₀ and D_a ≤ a·ε₀²/2 (Bun &
				// Steinke 2016, Proposition 3.3): caps, and the fallback
				// when quadrature would be too costly (huge a·ε₀).
				bound := math.Min(eps0, a*eps0*eps0/2)
				r, err := nz.renyiNumeric(a)
				if errors.Is(err, errTooCostly) {
					return bound, nil
				}
				if err != nil {
					return 0, err
				}
				return math.Min(r, bound), nil
			},
			shape: nz,
		}, nil
	case *gaussian.Mechanism:
		if err := check.Positive("sensitivity L2 (Gaussian uses the ℓ2 sensitivity)", s.L2); err != nil {
			return nil, err
		}
		sigma := mm.Sigma()
		d := s.L2 / sigma
		if err := finite("sensitivity L2 / gaussian sigma", d); err != nil {
			return nil, err
		}
		return &model{
			epsAt: func(delta0 float64) (float64, error) { return gaussian.Epsilon(sigma, s.L2, delta0) },
			rdp:   func(a float64) (float64, error) { return a * d * d / 2, nil },
			shape: gaussianNoise(d),
		}, nil
	case *discrete.Gaussian:
		// s is the sensitivity after rounding to the grid (see
		// discrete.RoundedSensitivity). The discrete Gaussian's Rényi
		// divergence under an integer shift of norm Δ is at most the
		// continuous one, a·Δ²/(2σ²) (Canonne, Kamath & Steinke 2020,
		// Theorem 14), so RDP applies. Its PLD is the pessimistic lattice
		// distribution of the one-coordinate shift by ⌈Δ₂/γ⌉ grid units,
		// which is the worst case only for a change of one coordinate: a
		// shift spread over two coordinates can be worse
		// (TestDiscreteSplitShifts), so PLD applies only through
		// ComposeDiscrete with n = 1.
		if err := check.Positive("sensitivity L2 (Gaussian uses the ℓ2 sensitivity)", s.L2); err != nil {
			return nil, err
		}
		d := s.L2 / mm.Sigma()
		if err := finite("sensitivity L2 / discrete gaussian sigma", d); err != nil {
			return nil, err
		}
		md := &model{
			epsAt: func(delta0 float64) (float64, error) {
				g, err := mm.Guarantee(s, delta0)
				return g.Epsilon, err
			},
			rdp:   func(a float64) (float64, error) { return a * d * d / 2, nil },
			noPLD: "the discrete Gaussian's one-coordinate privacy-loss distribution is not the worst case for a change spread over several coordinates (only a one-coordinate change, n = 1 in ComposeDiscrete, is accounted by PLD)",
		}
		shift, err := gridUnits("sensitivity L2", s.L2, mm.Granularity())
		if err != nil {
			md.noPLD = err.Error()
			return md, nil
		}
		if md.scalar, err = discreteGaussianNoise(mm.GridSigma2(), shift); err != nil {
			return nil, err
		}
		return md, nil
	case *discrete.Laplace, *discrete.Huber:
		// Pure ε₀-DP at the rounded sensitivity: Rényi divergence at most
		// min(ε₀, a·ε₀²/2) (Bun & Steinke 2016, Proposition 3.3). PLD uses
		// the pessimistic lattice distribution of the one-coordinate shift
		// by ⌈Δ₁/γ⌉ grid units: exact for a change of one coordinate, and
		// for spread changes the same numerical finding as for the
		// continuous mechanisms (TestDiscreteSplitShifts).
		g, err := m.Guarantee(s, 0)
		if err != nil {
			return nil, err
		}
		eps0 := g.Epsilon
		if err := finite("sensitivity L1 / discrete noise scale", eps0); err != nil {
			return nil, err
		}
		md := &model{
			pure: true, eps0: eps0,
			rdp: func(a float64) (float64, error) { return math.Min(eps0, a*eps0*eps0/2), nil },
		}
		shift, err := gridUnits("sensitivity L1", s.L1, m.(discrete.Mechanism).Granularity())
		if err != nil {
			md.noPLD = err.Error()
			return md, nil
		}
		var ln *latticeNoise
		if mm, ok := m.(*discrete.Laplace); ok {
			ln, err = discreteLaplaceNoise(int64(mm.GridScale()), shift)
		} else {
			tau, a := m.(*discrete.Huber).GridParams()
			ln, err = discreteHuberNoise(tau, a, shift)
		}
		if err != nil {
			return nil, err
		}
		md.lattice = ln
		return md, nil
	}
	// A mechanism this package does not know: only its per-release
	// Guarantee can be composed.
	g, err := m.Guarantee(s, 1e-10)
	if err != nil {
		return nil, err
	}
	why := fmt.Sprintf("the noise distribution of %q is not known to this package", m.Name())
	md := &model{noRDP: why, noPLD: why}
	if g.Delta == 0 {
		md.pure, md.eps0 = true, g.Epsilon
		return md, nil
	}
	md.epsAt = func(delta0 float64) (float64, error) {
		g, err := m.Guarantee(s, delta0)
		if err != nil {
			return 0, err
		}
		if g.Delta > delta0 {
			return 0, fmt.Errorf("accounting: %s guarantees δ = %g, more than the %g asked for", m.Name(), g.Delta, delta0)
		}
		return g.Epsilon, nil
	}
	return md, nil
}

// gridUnits returns ⌈l/γ⌉, the shift in grid units of a grid-rounded
// statistic of (rounded) sensitivity l, or the reason the lattice
// accountant cannot take it (beyond 2⁵² grid units, where the loss of one
// release is thousands of nats).
func gridUnits(name string, l, gamma float64) (int64, error) {
	d := math.Ceil(l / gamma)
	if !(d >= 1) || d > 1<<52 {
		return 0, fmt.Errorf("%s = %g is %g grid units of γ = %g, beyond the lattice accountant's 2⁵²", name, l, d, gamma)
	}
	return int64(d), nil
}
