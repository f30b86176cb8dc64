package huber

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dpmc/dpmc/internal/check"
	"github.com/dpmc/dpmc/internal/ziggurat"
	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/rng"
)

// Mechanism is the Huber mechanism with shape α and scale s: noise s·T with
// T ~ κ_α exp(−ρ_α(t)). Build it with New; the zero value is not usable. It
// is immutable and safe for concurrent use.
type Mechanism struct {
	alpha, scale float64
	logKappa     float64   // log κ_α
	tail         tailSplit // P(|T| > α) split at 25 bits, see sampleFrom
	invAlpha     float64   // 1/α, the mean of the tail's excess beyond α
	uniformBody  bool      // sample the body by a uniform proposal (α < 1)
	// body bounds, per ziggurat layer, the positions of the draws that
	// land in the layer's rectangle within [−α, α]: AddNoise's common case.
	body [ziggurat.Layers]ziggurat.Limit
}

var (
	_ noise.Mechanism    = (*Mechanism)(nil)
	_ noise.VectorNoiser = (*Mechanism)(nil)
)

// New returns the Huber mechanism with shape alpha (α, dimensionless) and
// scale (s, in units of the statistic). The paper's mechanism is scale = 1.
// It returns an error if either is not a finite number in [1e-100, 1e100].
func New(alpha, scale float64) (*Mechanism, error) {
	if err := check.NoiseParam("huber alpha", alpha); err != nil {
		return nil, err
	}
	if err := check.NoiseParam("huber scale s", scale); err != nil {
		return nil, err
	}
	c, t := masses(alpha)
	pTail := t / (c + t)
	return &Mechanism{
		alpha:       alpha,
		scale:       scale,
		logKappa:    logKappa(alpha),
		tail:        splitTail(pTail, 25),
		invAlpha:    1 / alpha,
		uniformBody: alpha < 1,
		body:        ziggurat.Limits(alpha),
	}, nil
}

// Alpha returns the shape α.
func (m *Mechanism) Alpha() float64 { return m.alpha }

// Scale returns the scale s.
func (m *Mechanism) Scale() float64 { return m.scale }

// Name returns "huber".
func (m *Mechanism) Name() string { return "huber" }

// String returns "huber(α=…, s=…)".
func (m *Mechanism) String() string {
	return fmt.Sprintf("huber(α=%.6g, s=%.6g)", m.alpha, m.scale)
}

// Sample draws one noise value s·T exactly: with probability P(|T| > α) a
// tail value ±(α + E/α), E ~ Exp(1); otherwise a standard normal truncated
// to [−α, α], by rejection from N(0, 1) when α ≥ 1 (acceptance ≥ 0.68) and
// from a uniform on [−α, α] when α < 1 (acceptance ≥ 0.85). At α ≥ 1 one
// draw usually takes one 64-bit word from r (see sampleFrom).
func (m *Mechanism) Sample(r *rand.Rand) float64 {
	return m.scale * m.sampleUnit(r)
}

// AddNoise adds one draw of Sample to every element of x, in order: the
// same draws, and the same result, as x[i] += m.Sample(r) for each i, but
// with the common case of a draw inlined in the loop, for callers that
// noise whole vectors (noise.AddNoise uses it).
func (m *Mechanism) AddNoise(x []float64, r *rand.Rand) {
	if m.uniformBody {
		for i := range x {
			x[i] += m.scale * m.sampleUnit(r)
		}
		return
	}
	// The common case of sampleFrom, written out here (a method would not
	// be inlined): a body value (top bits above the tail's share) in the
	// rectangle of a ziggurat layer and within [−α, α] at the first word
	// u, the value sampleFrom would return too; m.body folds the last two
	// tests into one comparison. Every other case goes to sampleFrom with
	// the same word.
	//
	// The words come from r's source directly when rng.SourceOf knows it:
	// runs of buffered words from rng.Crypto's and the keyed generators'
	// (rng.Buffered: no call per value), a direct call per word to a
	// seeded ChaCha8 (no interface call), and
	// r.Uint64() otherwise. sampleFrom takes its further words through r,
	// from the same source: a buffered word that needs sampleFrom is
	// marked read first, so that the words sampleFrom draws are the ones
	// that follow it. The words and their order do not depend on the path
	// (TestAddNoiseDrawsAsSample).
	switch s := rng.SourceOf(r).(type) {
	case rng.Buffered:
		for i := 0; i < len(x); {
			w := s.Words()
			k := m.addCommon(x[i:], w)
			i += k
			if k == len(w) || i == len(x) {
				s.Discard(k)
				continue
			}
			u := w[k] // read before sampleFrom refills the buffer
			s.Discard(k + 1)
			x[i] += m.scale * m.sampleFrom(u, r)
			i++
		}
	case *rand.ChaCha8:
		// The loop of the default case with s.Uint64 for r.Uint64, written
		// out: a type parameter over both would share one instantiation
		// (pointer shapes) and call through its dictionary.
		scale, hi, body := m.scale, m.tail.hi, &m.body
		for i := range x {
			u := s.Uint64()
			t, ok := ziggurat.InsideLimit(u, body)
			if !ok || u>>tailShift <= hi {
				t = m.sampleFrom(u, r)
			}
			x[i] += scale * t
		}
	default:
		scale, hi, body := m.scale, m.tail.hi, &m.body
		for i := range x {
			u := r.Uint64()
			t, ok := ziggurat.InsideLimit(u, body)
			if !ok || u>>tailShift <= hi {
				t = m.sampleFrom(u, r)
			}
			x[i] += scale * t
		}
	}
}

// addCommon adds the draws of words w to x while they are the common
// case of sampleFrom (AddNoise's test), and returns how many words it
// used: min(len(w), len(x)), or the index of the first word that needs
// sampleFrom (which it does not use).
func (m *Mechanism) addCommon(x []float64, w []uint64) int {
	if len(w) > len(x) {
		w = w[:len(x)]
	}
	x = x[:len(w)]
	scale, hi, body := m.scale, m.tail.hi, &m.body
	for k, u := range w {
		t, ok := ziggurat.InsideLimit(u, body)
		if !ok || u>>tailShift <= hi {
			return k
		}
		x[k] += scale * t
	}
	return len(w)
}

// tailSplit is P(|T| > α) for a uniform whose first bits come from a
// word: hi = ⌊2ᵇP⌋ and frac = 2ᵇP − hi, for b bits.
type tailSplit struct {
	hi   uint64
	frac float64
}

// splitTail splits p at b bits; both parts are exact, as 2ᵇ is a power of
// two.
func splitTail(p float64, b int) tailSplit {
	hi := math.Floor(math.Ldexp(p, b))
	return tailSplit{hi: uint64(hi), frac: math.Ldexp(p, b) - hi}
}

// sampleUnit draws T.
func (m *Mechanism) sampleUnit(r *rand.Rand) float64 {
	return m.sampleFrom(r.Uint64(), r)
}

// tailShift is where the bits of a word that start the choice between
// tail and body begin: its top 25 bits.
const tailShift = 39

// sampleFrom draws T from a fresh word u and, when needed, more words
// from r. The choice between the tails and the body compares a uniform U
// on [0, 1) with P = P(|T| > α), and U is drawn lazily: its first 25 bits
// a, the top bits of u, settle U < P when a < ⌊2²⁵P⌋ and U ≥ P when
// a > ⌊2²⁵P⌋; only when a = ⌊2²⁵P⌋ (probability 2⁻²⁵) do 53 more bits V
// of a new word decide, by V < 2²⁵P − a. The choice is thus exact to
// 2⁻⁷⁸ (a single Float64 would give 2⁻⁵³). The low 39 bits of u, which are
// independent of a, then start the body's normal (α ≥ 1, from
// ziggurat.Normal, which reads only those bits) or give the tail's sign
// (bit 31).
func (m *Mechanism) sampleFrom(u uint64, r *rand.Rand) float64 {
	a, p := u>>tailShift, m.tail
	tail := a < p.hi
	if a == p.hi {
		tail = r.Float64() < p.frac
	}
	if tail {
		t := m.alpha + r.ExpFloat64()*m.invAlpha
		if int32(u) < 0 {
			return -t
		}
		return t
	}
	if m.uniformBody {
		for {
			t := m.alpha * (2*r.Float64() - 1)
			// Accept with probability exp(−t²/2), i.e. when Exp(1) > t²/2.
			if r.ExpFloat64() > t*t/2 {
				return t
			}
		}
	}
	for {
		if t := ziggurat.Normal(u, r); math.Abs(t) <= m.alpha {
			return t
		}
		u = r.Uint64()
	}
}

// Variance returns s² · Var T, with Var T from UnitVariance.
func (m *Mechanism) Variance() float64 {
	return m.scale * m.scale * unitVariance(m.alpha)
}

// Guarantee returns pure ε-DP with ε = α·sens.L1/s (ρ_α is α-Lipschitz, so
// the log density ratio of noise shifted by Δ₁ never exceeds α·Δ₁/s); delta
// is ignored. It returns an error if sens.L1 is not positive and finite.
func (m *Mechanism) Guarantee(sens noise.Sensitivity, delta float64) (noise.Guarantee, error) {
	if err := check.Positive("sensitivity L1 (Huber uses the ℓ1 sensitivity)", sens.L1); err != nil {
		return noise.Guarantee{}, err
	}
	return noise.Guarantee{Epsilon: m.alpha * sens.L1 / m.scale}, nil
}

// PDF returns the density of the noise s·T at x.
func (m *Mechanism) PDF(x float64) float64 { return math.Exp(m.LogPDF(x)) }

// LogPDF returns the natural log of the density of s·T at x:
// log κ_α − ρ_α(x/s) − log s.
func (m *Mechanism) LogPDF(x float64) float64 {
	return m.logKappa - Loss(m.alpha, x/m.scale) - math.Log(m.scale)
}

// CDF returns P(s·T ≤ x).
func (m *Mechanism) CDF(x float64) float64 {
	return unitCDF(m.alpha, m.logKappa, x/m.scale)
}
