package audit

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/dpmc/dpmc/internal/check"
	zig "github.com/dpmc/dpmc/internal/ziggurat"
	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/gaussian"
	"github.com/dpmc/dpmc/noise/huber"
	"github.com/dpmc/dpmc/noise/laplace"
)

// Support is the set of values a sampler can release on a given input: the
// Lattice family asks, of a release y on one neighbour, whether y is in
// the set of the input x and whether it is in the set of the other input
// x′. A real-valued mechanism's outputs carry no such information; a
// floating-point sampler's do when its outputs lie on input-dependent
// grids.
//
// Emits must be a fixed function of (x, y): it must not depend on the
// samples drawn, or the confidence statement of the audit is void.
type Support interface {
	// Emits reports whether a release on input x can be exactly y (or,
	// for a sampler with a rarely taken off-grid branch, whether y is on
	// the grid its main branch draws from).
	Emits(x, y float64) bool
	// String describes the set, for reports.
	String() string
}

// Releaser is a Noise whose release on an input x is not x + Sample(r),
// such as a grid-aligned release round_γ(x) + γ·J. Mechanism draws its
// outputs with Release and computes their privacy loss with LogLikelihood
// when the noise implements it.
type Releaser interface {
	// Release returns one release on input x.
	Release(x float64, r *rand.Rand) float64
	// LogLikelihood is the natural log of the probability (discrete
	// noise) or density (continuous noise) that a release on input x is
	// y; −Inf where it cannot be.
	LogLikelihood(x, y float64) float64
}

// Grid is the support of a release on the grid γℤ: round_γ(x) + γ·J for
// an integer J, where round_γ(x) = γ·round(x/γ). Gamma must be a power of
// two (then x/γ and y/γ are exact in float64).
//
// Emits(x, y) reports whether (y − round_γ(x))/γ is an integer. Every
// release of such a sampler passes, on either neighbour: the check gives
// the same answer for x and x + Δ whenever Δ is a multiple of γ (indeed
// for every x), so a secure grid sampler shows no lattice finding.
type Grid struct {
	Gamma float64 // grid spacing γ > 0, a power of two
}

// Emits reports whether y − round_γ(x) is an integer multiple of γ.
func (g Grid) Emits(x, y float64) bool {
	k := y/g.Gamma - math.Round(x/g.Gamma)
	return !math.IsInf(k, 0) && !math.IsNaN(k) && k == math.Trunc(k)
}

// String returns "the grid round_γ(x) + γℤ, γ = …".
func (g Grid) String() string { return "the grid round_γ(x) + γℤ, γ = " + num(g.Gamma) }

// RoundGrid returns round_γ(x) = γ·round(x/γ), ties away from zero.
func RoundGrid(x, gamma float64) float64 { return gamma * math.Round(x/gamma) }

// GridNoise adapts a sampler of integer noise J on the grid γℤ to
// Mechanism: its releases are round_γ(x) + γ·J, and it implements Noise
// (LogPDF is the log pmf at noise/γ) and Releaser. The embedded
// mechanism's Sample must return γ·J exactly.
type GridNoise struct {
	noise.Mechanism
	// Gamma is the grid spacing γ > 0, a power of two.
	Gamma float64
	// LogPMF is log P(J = j).
	LogPMF func(j int64) float64
}

// LogPDF returns log P(J = x/γ), −Inf when x/γ is not an integer.
func (g GridNoise) LogPDF(x float64) float64 {
	j := x / g.Gamma
	if j != math.Trunc(j) || math.Abs(j) > 1<<62 {
		return math.Inf(-1)
	}
	return g.LogPMF(int64(j))
}

// Release returns round_γ(x) + γ·J.
func (g GridNoise) Release(x float64, r *rand.Rand) float64 {
	return RoundGrid(x, g.Gamma) + g.Sample(r)
}

// LogLikelihood returns log P(J = (y − round_γ(x))/γ).
func (g GridNoise) LogLikelihood(x, y float64) float64 {
	return g.LogPDF(y - RoundGrid(x, g.Gamma))
}

// Support returns the grid of the releases, Grid{Gamma}.
func (g GridNoise) Support() Support { return Grid{Gamma: g.Gamma} }

// FloatSupport returns the support of the floating-point sampler of m (a
// *laplace.Mechanism, *gaussian.Mechanism or *huber.Mechanism) for
// releases computed as y = x + m.Sample(r), as noise.AddNoise and
// Mechanism compute them. It returns an error for other mechanisms.
//
// These samplers draw from Marsaglia and Tsang's ziggurat: math/rand/v2's
// ExpFloat64 and NormFloat64, and for the Huber body (α ≥ 1) the normal
// of internal/ziggurat. A draw takes a 64-bit word, uses some of its bits
// as a strip i and 32 as an integer j, and returns j·w[i] (rounded to
// float64) unless j falls in the strip's small rejection region, where
// w[i] is one of 128 (normal) or 256 (exponential) constants: float32
// values in math/rand/v2, float64 in internal/ziggurat. Only the base strip's tail (the exponential beyond 7.697,
// the normal beyond 3.443, together less than 0.1 % of the draws) leaves
// this lattice. The noise is then a fixed function of j·w[i] (σ·z for
// Gaussian noise, ±b·E for Laplace noise, s·(±(α + E/α)) or s·z for the
// Huber tail and body), so that y − x lies on a few lattices with spacing
// about 10⁻⁹ times the scale — far coarser than the float64 grid near y,
// so that a release computed from x + Δ is almost never on x's lattice.
//
// Emits(x, y) reports whether some lattice point j·w[i] gives exactly y
// through the sampler's arithmetic (computed both with every product
// rounded and with the final product-and-sum fused, as some architectures
// compile it). The huber sampler with α < 1 draws its body from α·(2U − 1),
// U uniform on multiples of 2⁻⁵³: a lattice denser than float64 near most
// outputs, where Emits is then true (it loses power, not validity). The
// tables w[i] of math/rand/v2 are derived here from the ziggurat's
// published construction (Marsaglia and Tsang 2000) with Go's constants;
// a test checks them against math/rand/v2's output. The Huber body's are
// internal/ziggurat's own.
func FloatSupport(m noise.Mechanism) (Support, error) {
	switch m := m.(type) {
	case *laplace.Mechanism:
		return &floatSupport{kind: "laplace", scale: m.Scale(), desc: m.String()}, nil
	case *gaussian.Mechanism:
		return &floatSupport{kind: "gaussian", scale: m.Sigma(), desc: m.String()}, nil
	case *huber.Mechanism:
		return &floatSupport{kind: "huber", scale: m.Scale(), alpha: m.Alpha(), invAlpha: 1 / m.Alpha(), desc: m.String()}, nil
	case nil:
		return nil, fmt.Errorf("%w: nil mechanism", check.ErrParam)
	default:
		return nil, fmt.Errorf("%w: the %s mechanism has no known floating-point sampler", check.ErrParam, m.Name())
	}
}

// The ziggurat's constants as in math/rand/v2: the right ends of the base
// strips and the common strip areas of Marsaglia and Tsang's setup.
const (
	zigNormR = 3.442619855899
	zigNormV = 9.91256303526217e-3
	zigExpR  = 7.69711747013104972
	zigExpV  = 3.949659822581572e-3
)

// zigTables holds the strip widths w[i] of the two ziggurats of
// math/rand/v2 as float64 (exact copies of the float32 values), those of
// the Huber body's normal (package internal/ziggurat, float64), and their
// reciprocals.
type zigTables struct {
	wn, invWn [128]float64
	we, invWe [256]float64
	hn, invHn [zig.Layers]float64
}

// ziggurat computes the tables once: strip i's right end x_i follows
// from x_{i+1} by equal strip areas v, x_i = f⁻¹(v/x_{i+1} + f(x_{i+1})),
// with w[i] = x_i/2³¹ (normal, j a signed 32-bit integer) or x_i/2³²
// (exponential, j unsigned), and w[0] = (v/f(r))/2³¹ (or 2³²) for the
// base strip, whose rectangle is widened to hold the tail's area.
var ziggurat = sync.OnceValue(func() *zigTables {
	t := new(zigTables)
	const m1, m2 = 1 << 31, 1 << 32
	x := zigNormR
	t.wn[0] = float64(float32(zigNormV / math.Exp(-0.5*x*x) / m1))
	t.wn[127] = float64(float32(x / m1))
	for i := 126; i >= 1; i-- {
		x = math.Sqrt(-2 * math.Log(zigNormV/x+math.Exp(-0.5*x*x)))
		t.wn[i] = float64(float32(x / m1))
	}
	x = zigExpR
	t.we[0] = float64(float32(zigExpV / math.Exp(-x) / m2))
	t.we[255] = float64(float32(x / m2))
	for i := 254; i >= 1; i-- {
		x = -math.Log(zigExpV/x + math.Exp(-x))
		t.we[i] = float64(float32(x / m2))
	}
	for i := range t.wn {
		t.invWn[i] = 1 / t.wn[i]
	}
	for i := range t.hn {
		t.hn[i] = zig.Width(i)
		t.invHn[i] = 1 / t.hn[i]
	}
	for i := range t.we {
		t.invWe[i] = 1 / t.we[i]
	}
	return t
})

// floatSupport is the lattice support of one floating-point sampler.
type floatSupport struct {
	kind            string // "laplace", "gaussian" or "huber"
	scale           float64
	alpha, invAlpha float64 // huber only
	desc            string
}

func (s *floatSupport) String() string {
	return "the ziggurat lattice of the float sampler " + s.desc
}

// unitRound is the unit round-off of float64, 2⁻⁵³.
const unitRound = 0x1p-53

// maxSpan is the widest window of lattice indices Emits checks one by
// one; a wider window means the lattice is denser than float64 there, and
// Emits returns true.
const maxSpan = 64

// Emits reports whether y is x plus a lattice draw of the sampler.
func (s *floatSupport) Emits(x, y float64) bool {
	if math.IsNaN(y) || math.IsInf(y, 0) {
		return false
	}
	z := (y - x) / s.scale
	// A bound on |z − z₀| for the z₀ that produced y, from the four
	// roundings between them (each at most 2⁻⁵³ relative), doubled.
	tol := 8 * unitRound * ((math.Abs(y)+math.Abs(x)+3*math.Abs(y-x))/s.scale + math.Abs(z))
	t := ziggurat()
	switch s.kind {
	case "gaussian":
		return s.normal(&t.wn, &t.invWn, x, y, z, tol, math.Inf(1))
	case "laplace":
		return s.exponential(t, x, y, math.Abs(z), tol, func(e float64) float64 { return e })
	}
	// huber: the tail ±(α + E/α), the body a normal truncated to [−α, α]
	// or, for α < 1, α·(2U − 1).
	if math.Abs(z) >= s.alpha*(1-1e-9) {
		tolE := (tol + 8*unitRound*(math.Abs(z)+s.alpha)) * s.alpha * (1 + 1e-9)
		if s.exponential(t, x, y, (math.Abs(z)-s.alpha)*s.alpha, tolE, s.huberTail) {
			return true
		}
	}
	if math.Abs(z) <= s.alpha*(1+1e-9)+tol {
		if s.alpha >= 1 {
			return s.normal(&t.hn, &t.invHn, x, y, z, tol, s.alpha)
		}
		return s.uniformBody(x, y, z, tol)
	}
	return false
}

// huberTail maps an exponential draw E to the Huber tail value α + E/α,
// rounded as the sampler rounds it (plain; the fused form is tried by
// release).
func (s *floatSupport) huberTail(e float64) float64 { return s.alpha + float64(e*s.invAlpha) }

// release reports whether y = x + scale·(±u) for the unit draw u, with
// the products rounded or the final multiply-add fused.
func (s *floatSupport) release(x, y, u float64, neg bool) bool {
	if neg {
		u = -u
	}
	return x+float64(s.scale*u) == y || math.FMA(s.scale, u, x) == y
}

// normal reports whether y = x + σ·j·w[i] for some strip i and signed
// 32-bit j with |j·w[i]| ≤ limit (the Huber body's α, else +Inf), for the
// strip widths w and their reciprocals inv (math/rand/v2's for Gaussian
// noise, internal/ziggurat's for the Huber body).
func (s *floatSupport) normal(w, inv *[128]float64, x, y, z, tol, limit float64) bool {
	for i := range w {
		c, r := z*inv[i], tol*inv[i]*(1+1e-9)+1e-9
		lo, hi := math.Ceil(c-r), math.Floor(c+r)
		if lo > hi {
			continue
		}
		if hi-lo > maxSpan {
			return true
		}
		for j := max(lo, -(1 << 31)); j <= min(hi, 1<<31-1); j++ {
			u := float64(j * w[i])
			if math.Abs(u) <= limit && s.release(x, y, u, false) {
				return true
			}
		}
	}
	return false
}

// exponential reports whether y = x + scale·(±g(E)) for an exponential
// lattice draw E = j·we[i], j an unsigned 32-bit integer, near e (within
// tol), with the sign of y − x. For the Huber tail, g(E) = α + E/α, also
// tried fused.
func (s *floatSupport) exponential(t *zigTables, x, y, e, tol float64, g func(float64) float64) bool {
	neg := y < x
	for i := range t.we {
		c, r := e*t.invWe[i], tol*t.invWe[i]*(1+1e-9)+1e-9
		lo, hi := math.Ceil(c-r), math.Floor(c+r)
		if lo > hi {
			continue
		}
		if hi-lo > maxSpan {
			return true
		}
		for j := max(lo, 0); j <= min(hi, 1<<32-1); j++ {
			ev := float64(j * t.we[i])
			if s.release(x, y, g(ev), neg) {
				return true
			}
			if s.kind == "huber" && s.release(x, y, math.FMA(ev, s.invAlpha, s.alpha), neg) {
				return true
			}
		}
	}
	return false
}

// uniformBody reports whether y = x + s·α·k·2⁻⁵² for an integer k in
// [−2⁵², 2⁵²): the Huber body for α < 1, α·(2U − 1) with U = m·2⁻⁵³.
func (s *floatSupport) uniformBody(x, y, z, tol float64) bool {
	step := s.alpha * 0x1p-52
	c, r := z/step, tol/step*(1+1e-9)+1e-9
	lo, hi := math.Ceil(c-r), math.Floor(c+r)
	if lo > hi {
		return false
	}
	if hi-lo > maxSpan {
		return true
	}
	for k := max(lo, -(1 << 52)); k <= min(hi, 1<<52-1); k++ {
		if s.release(x, y, float64(s.alpha*float64(k*0x1p-52)), false) {
			return true
		}
	}
	return false
}
