package userdp

import (
	"cmp"
	"crypto/hmac"
	crand "crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/dpmc/dpmc/internal/exactsum"
	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/discrete"
	"github.com/dpmc/dpmc/rng"
)

// Plan is one run's privacy plan: the options, the calibrated noise of
// every release and the report. It is fixed by the options at NewPlan and
// by the released number of users at Decide, never by the data or by how
// often a computation runs, so every implementation that builds the same
// Plan (Train on one machine, the Beam pipeline of the separate module
// github.com/dpmc/dpmc/beam on many) spends the same budget and reports
// the same guarantee.
//
// A Plan's methods are the building blocks of the pipeline: per user
// (Subset, UserMean, UserBias, FactorWeights, StartTerms, ItemTerm, and a
// Solver's FoldIn) and per item or global (ReleaseMean, ReleaseCount,
// Selected, ReleaseBias, ReleaseTail, Head, ReleaseStart, ReleaseItem,
// NormalizeRows), with exact sums over users (Sum: AddCount, AddBias,
// AddTail, AccumulateStart, AddItemTerm). The noise of a release is
// keyed by (phase, step, ID), so an item's or a user's draw depends on
// nothing but the seed or secret key and its own ID. Sums over users are
// exact, so they may run in any order and partition; each user's ratings
// must be taken in the canonical order of the item IDs (CompareIDs), so
// that a user's own float terms are the same wherever they are computed.
// Then every decision is the same whatever the partitioning.
//
// After NewPlan, a Plan's methods other than SetKey, SetLaunchKey, ReleaseMean (which
// records the centre's origin in the report) and Decide only read it:
// once those have run, they are safe for concurrent use.
type Plan struct {
	opts    Options
	mu      float64 // the GDP parameter of the whole run
	report  *Report
	noise   noiseScales
	key     *[32]byte
	decided bool
	rank    rankPlan // the ranking objective's noise (rankplan.go)
	grids   sumGrids
}

// sumGrids are the grids of the exact sums (package exactsum): every
// released sum adds its users' terms truncated toward zero to a grid
// 2^e, exactly, so that it is a function of the set of terms alone (any
// order, any partition) and its sensitivity is the real sum's. Each
// grid is fixed by the options alone (the bound of one term, GridFor),
// so the workers of a distributed run know it before any release.
type sumGrids struct {
	mean  exactsum.Grid // Σ (m_u − mid): bound (max − min)/2
	total exactsum.Grid // Σ ratings (no noise only): bound max(|min|, |max|)
	ints  exactsum.Grid // numbers of users and of ratings: the integers
	unit  exactsum.Grid // counts, bias weights, the ranking objective's counts and Gram: bound 1
	bias  exactsum.Grid // bias sums and the tail: bound BiasBound
	pca   exactsum.Grid // the start's second moments: bound ResidualBound²
	gram  exactsum.Grid // Gram entries: bound ClipNorm²
	rhs   exactsum.Grid // right-hand sides: bound ResidualBound·ClipNorm
}

// newGrids returns the grids of o's sums.
func newGrids(o *Options) (sumGrids, error) {
	var g sumGrids
	var err error
	for _, c := range []struct {
		dst   *exactsum.Grid
		name  string
		bound float64
	}{
		{&g.mean, "Max", (o.Max - o.Min) / 2},
		{&g.total, "Max", math.Max(math.Abs(o.Min), math.Abs(o.Max))},
		{&g.unit, "MaxItemsPerUser", 1},
		{&g.bias, "BiasBound", o.BiasBound},
		{&g.pca, "ResidualBound", o.ResidualBound * o.ResidualBound},
		{&g.gram, "ClipNorm", o.ClipNorm * o.ClipNorm},
		{&g.rhs, "ResidualBound", o.ResidualBound * o.ClipNorm},
	} {
		b := c.bound
		if b == 0 {
			b = 1 // a zero bound (no such term): any grid
		}
		if *c.dst, err = exactsum.GridFor(b); err != nil {
			return sumGrids{}, &ParamError{Field: c.name, Flag: optionFlags[c.name], Value: fmt.Sprint(c.bound),
				Reason: fmt.Sprintf("sets a term bound the exact sums cannot hold: %v", err)}
		}
	}
	g.ints, _ = exactsum.GridExp(0)
	return g, nil
}

// noiseScales are the σ of every release, 0 without noise.
type noiseScales struct {
	meanSum, meanCount, counts, biases, gram, rhs, pca noiser
}

// byName returns the release's noise by its Options.oracle name, or nil.
func (n *noiseScales) byName(name string) *noiser {
	switch name {
	case "counts":
		return &n.counts
	case "biases":
		return &n.biases
	case "pca":
		return &n.pca
	case "gram":
		return &n.gram
	case "rhs":
		return &n.rhs
	}
	return nil
}

// NewPlan validates opts and calibrates the first releases (the global
// mean's sum and the number of users). It returns an error wrapping
// ErrParam, naming the option, for invalid options.
func NewPlan(opts Options) (*Plan, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	p := &Plan{opts: opts}
	var err error
	if p.grids, err = newGrids(&p.opts); err != nil {
		return nil, err
	}
	if err := p.plan(); err != nil {
		return nil, err
	}
	return p, nil
}

// Decide applies the AutoFactors rule to the released number of users
// (ReleaseMean's second result) and calibrates the remaining releases;
// for the ranking objective (users from ReleaseUsers) it splits the rest
// between the positive counts and the head Gram, or applies the
// fallback (see the package documentation).
// It must be called once, before any method that releases counts, biases
// or factors; a second call returns an error.
//
// It refuses (with a *ParamError naming Delta) a δ that is not below
// 1/n for n = users + 3σ, the released number of users raised by three
// of its noise's standard deviations (a high estimate of the true
// number, computed from the release alone, so the refusal is
// post-processing): with δ ≥ 1/n, a mechanism that publishes one random
// user's data outright is (0, δ)-DP, so such a δ guarantees nothing at
// the user level.
func (p *Plan) Decide(users float64) error {
	if p.decided {
		return errors.New("userdp: Plan.Decide called twice")
	}
	p.decided = true
	if err := p.checkDelta(users); err != nil {
		return err
	}
	if p.opts.Objective == ObjectiveRanking {
		return p.planRanking(users)
	}
	p.decideFactors(users)
	return p.planRest()
}

// checkDelta refuses a δ that is not below 1/n, n the released number
// of users plus three noise standard deviations (see Decide).
func (p *Plan) checkDelta(users float64) error {
	o := &p.opts
	if o.NoNoise {
		return nil
	}
	n := math.Max(users+3*p.noise.meanCount.sigma, 1)
	if o.Delta*n < 1 {
		return nil
	}
	return &ParamError{Field: "Delta", Flag: optionFlags["Delta"], Value: fmt.Sprintf("%g", o.Delta),
		Reason: fmt.Sprintf("is not below 1/n for n ≈ %.0f users (the released number of users %.0f plus 3σ of its noise): with δ ≥ 1/n, publishing one user's data outright would meet the guarantee; want δ well below %.2g (e.g. %.0e)", n, users, 1/n, math.Pow(10, math.Floor(math.Log10(1/n))-2))}
}

// Options returns the plan's options; after Decide they hold the factor
// decision (Rank 0 when AutoFactors switched factors off) and the shares
// it moved.
func (p *Plan) Options() Options { return p.opts }

// Report returns the privacy report; it is complete after Decide.
func (p *Plan) Report() *Report { return p.report }

// SetKey keys the noise of an unseeded plan with the caller's secret key
// and a fresh launch nonce: it is SetLaunchKey(key, NewLaunchNonce()).
// Because the nonce is new at every call, one key never draws the same
// noise twice: two plans given the same key (two runs, on the same data
// or on neighbouring data sets) carry independent noise, and the
// difference of their releases is not the difference of their data.
// The key must still come from crypto/rand and stay secret for the
// run's lifetime (whoever holds the key and the nonce can remove the
// noise); it may be reused across runs. Without a key an unseeded plan
// draws every release from crypto/rand. Seeded plans ignore the key.
func (p *Plan) SetKey(key [32]byte) { p.SetLaunchKey(key, NewLaunchNonce()) }

// NewLaunchNonce returns 256 fresh bits from crypto/rand: the nonce of
// one launch of a run (SetLaunchKey).
func NewLaunchNonce() [32]byte {
	var n [32]byte
	crand.Read(n[:]) // never fails (Go ≥ 1.24 crashes the program instead)
	return n
}

// SetLaunchKey makes the noise of an unseeded plan a deterministic
// function of the run key HMAC-SHA-256(key, domain ‖ nonce) and the
// release's (phase, step, ID): a ChaCha8 stream keyed by
// HMAC-SHA-256(run key, stream name). It is for the workers of one
// distributed run, which must all draw the same noise (and a re-executed
// bundle exactly the noise it drew the first time): the launcher draws
// the nonce once (NewLaunchNonce) and ships it with the key to every
// worker. The key's and the nonce's lifetime is that one run: a nonce
// given to two runs with one key makes their noise identical, and the
// difference of their releases is then the exact difference of their
// data. Use SetKey everywhere else. Seeded plans ignore the key.
func (p *Plan) SetLaunchKey(key, nonce [32]byte) {
	m := hmac.New(sha256.New, key[:])
	m.Write([]byte(launchDomain))
	m.Write(nonce[:])
	var k [32]byte
	m.Sum(k[:0])
	p.key = &k
}

const launchDomain = "dpmc/userdp/launch/v1"

// phase tags of the random streams derived from (seed, phase, row).
const (
	phaseSubset = iota + 1
	phaseMean
	phaseCounts
	phaseBias
	phaseStart
	phaseGram
	phaseRHS
	phasePCA
	phaseTail
)

// streamName is the name of the stream of (phase, step, id): a domain
// tag, the phase and step as 8 bytes each, then the user's or item's
// external ID (last, so the encoding is unambiguous).
func streamName(phase, step int, id string) []byte {
	return append(appendStreamPrefix(make([]byte, 0, len(streamDomain)+16+len(id)), phase, step), id...)
}

// appendStreamPrefix appends a stream name without its ID to dst.
func appendStreamPrefix(dst []byte, phase, step int) []byte {
	dst = append(dst, streamDomain...)
	dst = binary.LittleEndian.AppendUint64(dst, uint64(phase))
	return binary.LittleEndian.AppendUint64(dst, uint64(step))
}

const streamDomain = "dpmc/userdp/v1"

// streamKey is the seeded stream of (phase, step, id): the first 8 bytes
// of SHA-256 over its name. Keying by ID rather than by position makes
// the noise of an item independent of the file's order, so that any
// implementation that knows the IDs (a distributed one, say) draws the
// same noise.
func streamKey(phase, step int, id string) uint64 {
	sum := sha256.Sum256(streamName(phase, step, id))
	return binary.LittleEndian.Uint64(sum[:])
}

// rand returns the generator of (phase, step, id): a derived stream when
// seeded, a stream keyed by the secret key when one is set, crypto/rand
// otherwise.
func (p *Plan) rand(phase, step int, id string) *rand.Rand {
	switch {
	case p.opts.Seeded:
		return tapStream(rng.Stream(p.opts.Seed, streamKey(phase, step, id)), phase, step, id)
	case p.key != nil:
		m := hmac.New(sha256.New, p.key[:])
		m.Write(streamName(phase, step, id))
		var k [32]byte
		m.Sum(k[:0])
		return rand.New(rand.NewChaCha8(k))
	}
	return rng.Crypto()
}

// streams hands out the generators of Plan.rand without allocating one
// per call, for a loop over many users on one goroutine: seeded streams
// re-key one ChaCha8 (rng.Reseeder), keyed ones one ChaCha8 and one
// HMAC, and unseeded ones share one crypto/rand generator (its draws
// are independent whatever the sharing). Each generator it returns is
// valid until the next call. Not safe for concurrent use.
type streams struct {
	p      *Plan
	name   []byte // the current stream's name (streamName), reused
	seeded *rng.Reseeder
	keyed  *rand.ChaCha8
	keyedR *rand.Rand
	mac    hash.Hash
	crypto *rand.Rand
}

func (p *Plan) newStreams() *streams { return &streams{p: p} }

// get is s.rand, or p.rand for a nil s.
func (s *streams) get(p *Plan, phase, step int, id string) *rand.Rand {
	if s == nil {
		return p.rand(phase, step, id)
	}
	return s.rand(phase, step, id)
}

// rand returns the generator of (phase, step, id), drawing exactly what
// Plan.rand's would.
func (s *streams) rand(phase, step int, id string) *rand.Rand {
	s.name = append(appendStreamPrefix(s.name[:0], phase, step), id...)
	return s.named(phase, step, id)
}

// decimal returns the generator of (phase, step, the decimal n), drawing
// exactly what rand's would, without allocating the ID (a tail bucket's
// stream: one per bucket, 2¹⁶ of them by default).
func (s *streams) decimal(phase, step, n int) *rand.Rand {
	s.name = strconv.AppendInt(appendStreamPrefix(s.name[:0], phase, step), int64(n), 10)
	id := ""
	if activeTap.Load() != nil {
		id = strconv.Itoa(n) // the test hook names the stream
	}
	return s.named(phase, step, id)
}

// named returns the generator of the stream whose name is in s.name, of
// (phase, step, id) for the test hook.
func (s *streams) named(phase, step int, id string) *rand.Rand {
	p := s.p
	switch {
	case p.opts.Seeded:
		if s.seeded == nil {
			s.seeded = rng.NewReseeder()
		}
		sum := sha256.Sum256(s.name)
		return tapStream(s.seeded.Stream(p.opts.Seed, binary.LittleEndian.Uint64(sum[:])), phase, step, id)
	case p.key != nil:
		if s.mac == nil {
			s.mac = hmac.New(sha256.New, p.key[:])
			s.keyed = rand.NewChaCha8([32]byte{})
			s.keyedR = rand.New(s.keyed)
		}
		s.mac.Reset()
		s.mac.Write(s.name)
		var k [32]byte
		s.mac.Sum(k[:0])
		s.keyed.Seed(k)
		return s.keyedR
	}
	if s.crypto == nil {
		s.crypto = rng.Crypto()
	}
	return s.crypto
}

// CompareIDs orders user and item IDs canonically: integers numerically
// first (equal numbers, such as "7" and "07", by their text), then the
// rest lexicographically. It is a total order on distinct strings.
func CompareIDs(a, b string) int {
	ia, ea := strconv.ParseInt(a, 10, 64)
	ib, eb := strconv.ParseInt(b, 10, 64)
	switch {
	case ea == nil && eb == nil:
		if c := cmp.Compare(ia, ib); c != 0 {
			return c
		}
	case ea == nil:
		return -1
	case eb == nil:
		return 1
	}
	return cmp.Compare(a, b)
}

// plan starts the report and calibrates the first releases (the global
// mean's sum and the number of users) to the target; planRest does the
// others once the factor decision is made.
func (p *Plan) plan() error {
	o := &p.opts
	r := &Report{Unit: "user", Mode: "user", NoNoise: o.NoNoise, Seeded: o.Seeded && !o.NoNoise, Epsilon: o.Epsilon, Delta: o.Delta, Sampler: o.Sampler.String()}
	p.report = r
	switch {
	case o.Items != nil && o.NoNoise:
		r.Items = fmt.Sprintf("public catalogue of %d items (--items), no noise: nothing released is private", len(o.Items))
	case o.Items != nil:
		r.Items = fmt.Sprintf("public catalogue of %d items (--items)", len(o.Items))
	case o.NoNoise:
		r.Items = "every item some user rated, with no selection and no noise: the item list is NOT private"
	default:
		r.Items = "private selection: an item is released only if its noisy weighted count clears the threshold"
	}
	if o.NoNoise {
		r.Guarantee = "none: the pipeline ran without noise (a non-private baseline); nothing it releases is private"
		r.Factors = fmt.Sprintf("rank %d", o.Rank)
		if o.Objective != ObjectiveRanking {
			r.Biases = "exact sums over (weights + λ_b)"
		}
		r.Sampler = ""
		return nil
	}
	deltaGDP := o.Delta
	if o.Items == nil {
		r.SelectionDelta = o.Delta * o.SelectionDelta
		deltaGDP = o.Delta - selectionCost(r.SelectionDelta)
	}
	if o.Sampler == SamplerDiscrete {
		// Every release is ρᵢ-zCDP with ρᵢ = μᵢ²/2, μᵢ = Δ₂′/σ: shares of
		// μ² are shares of ρ, so μ = √(2ρ) plays the part of the GDP μ.
		rho, err := RhoFor(o.Epsilon, deltaGDP)
		if err != nil {
			return err
		}
		p.mu = math.Sqrt(2 * rho)
	} else {
		mu, err := MuFor(o.Epsilon, deltaGDP)
		if err != nil {
			return err
		}
		p.mu = mu
	}
	B0 := (o.Max - o.Min) / 2
	s := o.Shares
	var err error
	if math.IsNaN(o.Center) && o.Objective != ObjectiveRanking {
		if p.noise.meanSum, err = p.calibrate("global mean: sum of users' mean ratings minus the scale's midpoint", B0, 1, s.Mean/2, 1); err != nil {
			return err
		}
		p.noise.meanCount, err = p.calibrate("number of users", 1, 1, s.Mean/2, 1)
	} else {
		p.noise.meanCount, err = p.calibrate("number of users", 1, 1, s.Mean, 1)
	}
	return err
}

// noiser draws the noise of one release: σ·N(0, 1) in floating point, or
// the statistic rounded to the grid γℤ plus γ times an exact discrete
// Gaussian integer.
type noiser struct {
	sigma float64            // the noise standard deviation, statistic units
	d     *discrete.Gaussian // nil: the float sampler
	tap   *noiseTap          // nil but in tests (observe.go)
}

// addSum releases the exact sum s (on grid g) with one draw of the
// noise from r. The float sampler adds σ·N(0, 1) to s's correctly
// rounded float64 value. The discrete sampler rounds s exactly, half to
// even, to its grid γℤ (an integer q; γ ≥ 2g, checked by calibrate, but
// exactness does not depend on it) and releases the float64 nearest to
// γ·(q + K), K the discrete Gaussian integer: what add gives for a value
// already on the grid. It returns an error only for a sum marked Bad
// (exactsum: a non-finite or oversized term).
func (z noiser) addSum(s exactsum.Sum, g exactsum.Grid, r *rand.Rand) (float64, error) {
	if z.d == nil {
		x, err := s.Float64(g)
		if err != nil {
			return 0, err
		}
		return z.add(x, r), nil
	}
	gamma, _ := exactsum.GridExp(math.Ilogb(z.d.Granularity()))
	q, err := s.RoundTo(g, gamma)
	if err != nil {
		return 0, err
	}
	if x, _ := q.Float64(gamma); z.tap != nil || math.Abs(x) < 1<<53*z.d.Granularity() {
		return z.add(x, r), nil // x is q·γ exactly: add rounds it to itself
	}
	q.AddUnits(z.d.Int(r)) // q beyond 2⁵³: exactly, then rounded once
	return q.Float64(gamma)
}

// add returns x plus one draw of the noise from r.
func (z noiser) add(x float64, r *rand.Rand) float64 {
	if z.tap != nil {
		return z.tap.add(z, x, r)
	}
	if z.d == nil {
		return x + z.sigma*r.NormFloat64()
	}
	return z.d.AddTo(x, r)
}

// calibrate sets the noise of a release of ℓ2 sensitivity l2 over at most
// coords coordinates that one user can change, made times times with the
// given share of μ² (times·(Δ₂/σ)² = share·μ²), and lists it in the
// report. With the discrete sampler the statistic is rounded to the grid
// γℤ, which can move each changed coordinate by up to γ more, so the
// release is calibrated and reported at Δ₂′ = Δ₂ + γ·√coords
// (discrete.RoundedSensitivity); γ is about 2⁻²⁸σ, so Δ₂′/Δ₂ − 1 is
// negligible, but it is accounted.
func (p *Plan) calibrate(name string, l2 float64, coords int, share float64, times int) (noiser, error) {
	sigmaFor := func(l2 float64) float64 { return l2 * math.Sqrt(float64(times)/(share*p.mu*p.mu)) }
	sigma := sigmaFor(l2)
	if p.opts.Sampler == SamplerFloat {
		p.report.Releases = append(p.report.Releases, Release{Name: name, L2: l2, Sigma: sigma, Times: times})
		return tapped(noiser{sigma: sigma}, name), nil
	}
	// γ depends on σ and σ on Δ₂′: raise σ until its grid's rounding cost
	// is covered (γ only grows with σ, so this settles at once unless
	// γ·√coords is comparable to Δ₂).
	l2r := l2
	for range 16 {
		if !(sigma >= 1e-100 && sigma <= 1e100) {
			return noiser{}, p.sigmaRangeError(name, sigma)
		}
		d, err := discrete.NewGaussian(sigma)
		if err != nil {
			return noiser{}, fmt.Errorf("userdp: %s: %w", name, err)
		}
		sens, err := discrete.RoundedSensitivity(noise.Sensitivity{L2: l2}, coords, d.Granularity())
		if err != nil {
			return noiser{}, fmt.Errorf("userdp: %s: %w", name, err)
		}
		if sg, err := exactsum.GridFor(l2); err != nil || math.Ilogb(d.Granularity()) <= sg.Exp() {
			// γ ≥ 2g for the finest grid a term of this release can
			// need: with g ≤ 2⁻⁶²·Δ₂ and γ ≈ 2⁻²⁸σ this needs σ > 2⁻³³Δ₂,
			// far beyond MaxEpsilon.
			return noiser{}, p.sigmaRangeError(name, sigma)
		}
		if sens.L2 <= l2r && d.Sigma() >= sigmaFor(l2r) {
			p.report.Releases = append(p.report.Releases, Release{Name: name, L2: l2r, Sigma: d.Sigma(), Times: times, Grid: d.Granularity()})
			return tapped(noiser{sigma: d.Sigma(), d: d}, name), nil
		}
		l2r = sens.L2
		sigma = sigmaFor(l2r)
	}
	return noiser{}, &ParamError{Field: "MaxItemsPerUser", Flag: optionFlags["MaxItemsPerUser"], Value: fmt.Sprint(p.opts.MaxItemsPerUser),
		Reason: fmt.Sprintf("is too large for Epsilon = %g (--epsilon): the rounding of %s to the discrete noise's grid (γ·√%d) outgrows its sensitivity %g; lower it or raise the ε", p.opts.Epsilon, name, coords, l2)}
}

// sigmaRangeError explains a noise scale outside what the exact sampler
// takes ([1e-100, 1e100]) by the option that set it.
func (p *Plan) sigmaRangeError(name string, sigma float64) error {
	o := &p.opts
	if sigma < 1e-100 {
		return &ParamError{Field: "Epsilon", Flag: optionFlags["Epsilon"], Value: fmt.Sprintf("%g", o.Epsilon),
			Reason: fmt.Sprintf("is too large for the bounds (clip norm, bias and residual bounds, rating range): the noise of %s would be σ = %.3g, below the exact sampler's 1e-100; want a smaller ε (accepted: [%g, %g]) or larger bounds", name, sigma, float64(MinEpsilon), float64(MaxEpsilon))}
	}
	return &ParamError{Field: "Epsilon", Flag: optionFlags["Epsilon"], Value: fmt.Sprintf("%g", o.Epsilon),
		Reason: fmt.Sprintf("is too small for the bounds (clip norm, bias and residual bounds, rating range): the noise of %s would be σ = %.3g, above the exact sampler's 1e100; want a larger ε (accepted: [%g, %g]) or smaller bounds", name, sigma, float64(MinEpsilon), float64(MaxEpsilon))}
}

// decideFactors applies the AutoFactors rule to the released number of
// users: without factors, their share goes to the item biases.
func (p *Plan) decideFactors(users float64) {
	o := &p.opts
	r := p.report
	if o.Rank == 0 {
		r.Factors = "none (rank 0)"
		return
	}
	if o.NoNoise {
		r.Factors = fmt.Sprintf("rank %d", o.Rank)
		return
	}
	if !o.AutoFactors {
		start := "the PCA start"
		if o.Shares.PCA == 0 {
			start = "a random start (no PCA share)"
		}
		r.Factors = fmt.Sprintf("rank %d, %d ALS step(s) after %s, set explicitly (--rank/--iters): the users × ε rule was not applied", o.Rank, o.Iters, start)
		return
	}
	score := users * o.Epsilon
	// The noisy count can be negative (a catalogue that no rating
	// matches, say); it is shown clamped at 0, as post-processing. The
	// rule compares the count itself.
	shown := math.Max(users, 0)
	if score >= o.AutoFactorThreshold {
		r.Factors = fmt.Sprintf("rank %d: released users × ε = %.0f × %g ≥ %g", o.Rank, shown, o.Epsilon, o.AutoFactorThreshold)
		return
	}
	o.Rank = 0
	// Under private selection part of it (Defaults: half) goes to the
	// counts: with few users, how many items clear the threshold limits
	// the model more than the noise of their biases.
	c := o.Shares.CountsWithoutFactors
	switch c {
	case 0:
		r.Factors = fmt.Sprintf("none: released users × ε = %.0f × %g < %g, so the factor share went to the item biases", shown, o.Epsilon, o.AutoFactorThreshold)
	case 0.5:
		r.Factors = fmt.Sprintf("none: released users × ε = %.0f × %g < %g, so the factor share went to the item counts and biases (half each)", shown, o.Epsilon, o.AutoFactorThreshold)
	default:
		r.Factors = fmt.Sprintf("none: released users × ε = %.0f × %g < %g, so the factor share went to the item counts (%.3g of it) and biases", shown, o.Epsilon, o.AutoFactorThreshold, c)
	}
	o.Shares.Counts += c * o.Shares.Factors
	o.Shares.Biases += (1 - c) * o.Shares.Factors
	o.Shares.Factors = 0
}

// planRest calibrates the releases after the number of users.
func (p *Plan) planRest() error {
	o := &p.opts
	r := p.report
	if o.NoNoise {
		p.describeFeatures() // after decideFactors, which sets the line
		return nil
	}
	s := o.Shares
	k := o.MaxItemsPerUser
	var err error
	if p.noise.counts, err = p.calibrate("item counts (weights 1/√n per user)", 1, k, s.Counts, 1); err != nil {
		return err
	}
	biasName, biasCoords := "item bias sums", k
	switch {
	case p.Buckets() > 0:
		// A user's k contributed items fill at most k buckets.
		biasName, biasCoords = fmt.Sprintf("item bias sums, the tail's (items not released) sum and weight, and each of %d tail buckets' sum and weight", p.Buckets()), 2*k+2
	case o.Items == nil && !o.NoTail:
		biasName, biasCoords = "item bias sums, and the tail's (items not released) sum and weight", k+2
	}
	if p.noise.biases, err = p.calibrate(biasName, o.BiasBound, biasCoords, s.Biases, 1); err != nil {
		return err
	}
	// A user changes at most min(k, HeadItems) head items' entries, and
	// min(k, start items) of the start's.
	h := min(k, o.HeadItems)
	if o.Rank > 0 && s.PCA > 0 {
		sh := p.startItems()
		hs := min(k, sh)
		what := "weighted residuals"
		if a := o.StartRatedWeight; a > 0 {
			what = fmt.Sprintf("weighted residuals, %g of each term the fact of rating (co-occurrence),", a)
		}
		name := fmt.Sprintf("start: second-moment matrix of %s over the (at most %d) most popular head items", what, sh)
		if p.noise.pca, err = p.calibrate(name, o.ResidualBound*o.ResidualBound, hs*(hs+1)/2, s.Factors*s.PCA, 1); err != nil {
			return err
		}
	}
	if o.Rank > 0 && o.Iters > 0 {
		c := o.ClipNorm
		als := s.Factors * (1 - s.PCA)
		rk := o.Rank
		if p.noise.gram, err = p.calibrate("item Gram matrices Σ w·ũũᵀ, per ALS step", c*c, h*rk*(rk+1)/2, als*s.Gram, o.Iters); err != nil {
			return err
		}
		if p.noise.rhs, err = p.calibrate("item right-hand sides Σ w·r̃·ũ, per ALS step", o.ResidualBound*c, h*rk, als*(1-s.Gram), o.Iters); err != nil {
			return err
		}
	}
	for _, name := range o.oracle {
		if z := p.noise.byName(name); z != nil {
			z.sigma /= 1000
		}
	}
	if o.Items == nil {
		r.Threshold = SelectionThreshold(p.noise.counts.sigma, o.MaxItemsPerUser, r.SelectionDelta)
		if d := p.noise.counts.d; d != nil {
			// A lone user's count 1/√n rounds up by at most γ/2, and a
			// discrete Gaussian's tail P[K ≥ m] is at most the normal's
			// P[N(0, σ_K²) ≥ m − 1] (Poisson summation), so raising the
			// threshold by 2γ keeps δ_sel.
			r.Threshold += 2 * d.Granularity()
		}
	}
	switch {
	case o.Objective == ObjectiveRanking:
	case o.NoBiasTrend:
		r.Biases = "noisy sums shrunk by the noisy counts towards 0 (prior N(0, τ_b²))"
	default:
		r.Biases = "noisy sums shrunk by the noisy counts towards a line in ln(released count), fitted to the released sums and counts (empirical Bayes prior N(b₀ + b₁·ln n̂, τ_b²)); post-processing"
	}
	p.describeFeatures()
	r.finish()
	what := "item list, global mean, number of users, noisy item counts, item biases"
	if o.Items == nil && !o.NoTail {
		what += ", tail bias"
	}
	if p.Buckets() > 0 {
		what += fmt.Sprintf(", %d tail buckets' biases and weights", p.Buckets())
	}
	if o.Rank > 0 {
		what += ", item factors"
	}
	if len(p.features()) > 0 {
		what += ", feature columns (computed from the counts and biases)"
	}
	r.Guarantee = "user-level (ε, δ)-DP of everything released: " + what + " (billboard model: each user's bias, factor and predictions are computed from the release and the user's own ratings, so they are joint-DP)"
	if o.Seeded {
		r.Guarantee = "NONE in this run: the noise is seeded (reproducible), so anyone with the seed can remove it; unseeded runs give " + r.Guarantee
	}
	return nil
}

// describeFeatures adds the feature columns to the report's factors
// line, once the selection threshold (and so n₀) is known.
func (p *Plan) describeFeatures() {
	var cols []string
	for _, f := range p.features() {
		switch f {
		case FeaturePopularity:
			n0 := p.PopularityFloor()
			cols = append(cols, fmt.Sprintf("popularity %g·ln(max(n̂, %.3g)/%.3g) of the released counts n̂", p.opts.PopularityScale, n0, n0))
		case FeatureItemBias:
			cols = append(cols, fmt.Sprintf("item bias %g·(b − b_tail) of the released biases", p.opts.BiasColumnScale))
		}
	}
	if len(cols) > 0 {
		p.report.Factors += "; plus feature columns " + strings.Join(cols, " and ") + ", whose coefficients each user fits locally (post-processing: no budget)"
	}
}
