package audit

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/dpmc/dpmc/internal/check"
	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/rng"
)

// Noise is a mechanism whose noise has a known log density, as the
// laplace, gaussian and huber mechanisms have.
type Noise interface {
	noise.Mechanism
	// LogPDF is the natural log of the noise density at x.
	LogPDF(x float64) float64
}

// MechanismOptions configure Mechanism. Options.Claim is required (its
// zero value claims ε = 0); Options.Bits adds the bit-pattern test.
type MechanismOptions struct {
	Options
	// Sensitivity is Δ > 0, the norm of the shift between the two
	// neighbours, in units of the statistic.
	Sensitivity float64
	// Samples is the number of outputs per neighbour per test, in
	// [100, 1e8]; 0 means 1e6.
	Samples int
	// Dims is the number of coordinates d of one output, in [1, 1000];
	// 0 means 1. With d > 1 a second test spreads Δ over all d.
	Dims int
	// Norm is the norm in which Sensitivity is measured when spread: 1
	// (Δ/d per coordinate) or 2 (Δ/√d). 0 means 2 for the "gaussian"
	// mechanism and 1 for the others.
	Norm int
	// At is the input x of the first neighbour; the second is x + shift.
	// It must be finite; 0 by default.
	At float64
	// Seeded selects reproducible streams from Seed: chunk c of test j,
	// side s draws from rng.Stream(Seed, ·), so the result does not depend
	// on Workers. Unseeded runs draw from crypto/rand.
	Seeded bool
	Seed   uint64
	// Workers is the number of sampling goroutines; 0 means GOMAXPROCS.
	Workers int
	// Progress, if not nil, is called from the calling goroutine with the
	// outputs drawn so far and the total.
	Progress func(done, total int)
	// Support, if not nil, adds the Lattice family on the first
	// coordinate y₁ of the first test: the events {y₁ ∈ S(x)} and
	// {y₁ ∈ S(x′)}, S(x) the values Support emits on input x. See
	// FloatSupport and Grid.
	Support Support
}

// DefaultMechanismSamples is the default MechanismOptions.Samples.
const DefaultMechanismSamples = 1_000_000

// resolve checks o and fills in the defaults.
func (o MechanismOptions) resolve(m Noise) (MechanismOptions, error) {
	var err error
	if o.Options, err = o.Options.resolve(); err != nil {
		return o, err
	}
	if err := check.Positive("sensitivity", o.Sensitivity); err != nil {
		return o, err
	}
	if o.Samples == 0 {
		o.Samples = DefaultMechanismSamples
	}
	if err := check.InRange("samples", float64(o.Samples), 100, 1e8); err != nil {
		return o, err
	}
	if o.Dims == 0 {
		o.Dims = 1
	}
	if err := check.InRange("dims", float64(o.Dims), 1, 1000); err != nil {
		return o, err
	}
	if o.Norm == 0 {
		o.Norm = 1
		if n := m.Name(); n == "gaussian" || n == "discrete-gaussian" {
			o.Norm = 2
		}
	}
	if o.Norm != 1 && o.Norm != 2 {
		return o, fmt.Errorf("%w: norm = %d, want 1 or 2", check.ErrParam, o.Norm)
	}
	if err := check.Finite("at", o.At); err != nil {
		return o, err
	}
	// The neighbours must be distinct in float64, by the shift asked for:
	// at |x| ≫ Δ, x + Δ rounds (to x itself past 2⁵³·Δ), and the audit
	// would test a different shift than it reports.
	if got := (o.At + o.Sensitivity) - o.At; math.Abs(got-o.Sensitivity) > 1e-6*o.Sensitivity {
		return o, fmt.Errorf("%w: at = %g, sensitivity = %g: x + Δ − x = %g in float64, not Δ; use |at| below %g", check.ErrParam, o.At, o.Sensitivity, got, o.Sensitivity*1e9)
	}
	// The privacy loss of shifts beyond ~10⁶ noise standard deviations
	// overflows (−Inf, NaN), and such neighbours share no output anyway.
	if sd := math.Sqrt(m.Variance()); !(o.Sensitivity <= 1e6*sd) {
		return o, fmt.Errorf("%w: sensitivity = %g is more than 10⁶ noise standard deviations (%g): the two neighbours' outputs do not overlap, so there is nothing to audit", check.ErrParam, o.Sensitivity, sd)
	}
	if o.Workers, err = resolveWorkers(o.Workers); err != nil {
		return o, err
	}
	return o, nil
}

// mechTest is one sampling test: outputs of x and of x + shift.
type mechTest struct {
	name  string
	shift []float64
	l     [2][]float64 // privacy loss of each output, side A and B
	raw   [2][]float64 // first coordinate of each output, if kept
	// emit holds, for the first coordinate of each output, 1 if it is in
	// the support of x plus 2 if it is in that of x′ (with a Support).
	emit [2][]float64
}

// Mechanism audits one release of the noise mechanism m against
// opts.Claim: it draws opts.Samples outputs y = x + noise (d coordinates)
// on each of two neighbours x and x + shift with ‖shift‖ = Sensitivity,
// reduces each to the privacy-loss statistic
// L(y) = Σᵢ log p(yᵢ − xᵢ) − log p(yᵢ − xᵢ − shiftᵢ), computed from the
// floating-point outputs with m.LogPDF and rounded to 2⁻³² nats (see
// lossGrid), and audits L with the Thresholds
// and Histogram families (side A is x, side B is x + shift). The tests
// are: Δ on the first coordinate; if Dims > 1, Δ spread over all
// coordinates; if Bits, the raw first coordinate of the first test with the
// bit-pattern family; if Support is set, the same coordinate with the
// Lattice family. One union bound covers all their events. If m is a
// Releaser, its outputs are m.Release(xᵢ) and their privacy loss is
// computed with m.LogLikelihood instead.
//
// It needs about 16 bytes per output per test, 8 more for the first test
// with Bits and 8 more with Support. It returns an error naming the option if one is out of range or m
// is nil, and one wrapping the context's error if ctx is cancelled while
// sampling.
func Mechanism(ctx context.Context, m Noise, opts MechanismOptions) (Result, error) {
	if m == nil {
		return Result{}, fmt.Errorf("%w: nil mechanism", check.ErrParam)
	}
	opts, err := opts.resolve(m)
	if err != nil {
		return Result{}, err
	}
	d, n := opts.Dims, opts.Samples
	tests := []*mechTest{{name: fmt.Sprintf("privacy loss L(y), Δ on 1 of %d coordinate(s)", d), shift: make([]float64, d)}}
	tests[0].shift[0] = opts.Sensitivity
	if d > 1 {
		per := opts.Sensitivity / float64(d)
		how := "Δ/d"
		if opts.Norm == 2 {
			per = opts.Sensitivity / math.Sqrt(float64(d))
			how = "Δ/√d"
		}
		spread := &mechTest{name: fmt.Sprintf("privacy loss L(y), %s = %s on each of %d coordinates", how, num(per), d), shift: make([]float64, d)}
		for i := range spread.shift {
			spread.shift[i] = per
		}
		tests = append(tests, spread)
	}
	for j, t := range tests {
		for s := range 2 {
			t.l[s] = make([]float64, n)
			if opts.Bits && j == 0 {
				t.raw[s] = make([]float64, n)
			}
			if opts.Support != nil && j == 0 {
				t.emit[s] = make([]float64, n)
			}
		}
	}
	if err := sampleTests(ctx, m, tests, opts); err != nil {
		return Result{}, err
	}
	var stats []Statistic
	for _, t := range tests {
		stats = append(stats, Statistic{Name: t.name, Symbol: "L(y)", A: t.l[0], B: t.l[1], Families: Thresholds | Histogram})
	}
	if opts.Bits {
		stats = append(stats, Statistic{Name: "raw output y₁ (floating-point bits)", Symbol: "y₁",
			A: tests[0].raw[0], B: tests[0].raw[1], Families: Bits})
	}
	if sup := opts.Support; sup != nil {
		x1 := opts.At + tests[0].shift[0]
		stats = append(stats, Statistic{
			Name: "raw output y₁ (emitted set S(x) of " + sup.String() + ")", Symbol: "y₁",
			A: tests[0].emit[0], B: tests[0].emit[1], Families: Lattice,
			Sets: []Set{
				{Description: "y₁ ∈ S(x), x = " + num(opts.At), Contains: func(c float64) bool { return int(c)&1 != 0 }},
				{Description: "y₁ ∈ S(x′), x′ = " + num(x1), Contains: func(c float64) bool { return int(c)&2 != 0 }},
			},
		})
	}
	return audit(stats, opts.Options, true)
}

// chunkSize is the number of outputs one random stream draws.
const chunkSize = 1 << 13

type chunk struct {
	test, side, index int
}

// sampleTests fills the tests' outputs over a pool of workers, one random
// stream per chunk.
func sampleTests(ctx context.Context, m Noise, tests []*mechTest, opts MechanismOptions) error {
	n := opts.Samples
	perSide := (n + chunkSize - 1) / chunkSize
	total := len(tests) * 2 * n
	jobs := make(chan chunk)
	done := make(chan int, opts.Workers)
	var wg sync.WaitGroup
	for range opts.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var (
				reseeder *rng.Reseeder
				crypto   *rand.Rand
			)
			if opts.Seeded {
				reseeder = rng.NewReseeder()
			} else {
				crypto = rng.Crypto()
			}
			for c := range jobs {
				if ctx.Err() != nil {
					continue // drain
				}
				r := crypto
				if opts.Seeded {
					stream := uint64(c.test*2+c.side)<<40 | uint64(c.index)
					r = reseeder.Stream(opts.Seed, stream)
				}
				lo := c.index * chunkSize
				hi := min(lo+chunkSize, n)
				sampleChunk(m, tests[c.test], c.side, opts.At, lo, hi, r, opts.Support)
				done <- hi - lo
			}
		}()
	}
	go func() {
		defer close(jobs)
		for t := range tests {
			for s := range 2 {
				for i := range perSide {
					select {
					case jobs <- chunk{t, s, i}:
					case <-ctx.Done():
						return
					}
				}
			}
		}
	}()
	go func() {
		wg.Wait()
		close(done)
	}()
	drawn := 0
	for k := range done {
		drawn += k
		if opts.Progress != nil {
			opts.Progress(drawn, total)
		}
	}
	if drawn < total {
		return fmt.Errorf("audit: sampling stopped after %d of %d outputs: %w", drawn, total, ctx.Err())
	}
	return nil
}

// sampleChunk draws outputs lo..hi−1 of one side of test t: y = μ + noise
// with μ = x (side 0) or x + shift (side 1), computed in float64 as a
// release would be (or m.Release(μ) for a Releaser), their privacy loss
// against the two neighbours and, with a support, whether the first
// coordinate is in the support of each neighbour.
func sampleChunk(m Noise, t *mechTest, side int, x float64, lo, hi int, r *rand.Rand, sup Support) {
	d := len(t.shift)
	rel, _ := m.(Releaser)
	mu1 := make([]float64, d)
	for i, s := range t.shift {
		mu1[i] = x + s
	}
	for k := lo; k < hi; k++ {
		var l float64
		for i := range d {
			mu := x
			if side == 1 {
				mu = mu1[i]
			}
			var y float64
			if rel != nil {
				y = rel.Release(mu, r)
			} else {
				y = mu + m.Sample(r)
			}
			if i == 0 && t.raw[side] != nil {
				t.raw[side][k] = y
			}
			if i == 0 && t.emit[side] != nil {
				var c float64
				if sup.Emits(x, y) {
					c++
				}
				if sup.Emits(mu1[0], y) {
					c += 2
				}
				t.emit[side][k] = c
			}
			if t.shift[i] != 0 {
				if rel != nil {
					l += rel.LogLikelihood(x, y) - rel.LogLikelihood(mu1[i], y)
				} else {
					l += m.LogPDF(y-x) - m.LogPDF(y-mu1[i])
				}
			}
		}
		t.l[side][k] = math.Round(l*lossGrid) / lossGrid
	}
}

// lossGrid is the inverse of the grid L(y) is rounded to, 2⁻³² nats. The
// rounding is a post-processing of the outputs, so every bound stays
// valid; it removes the round-off of computing L in float64, which would
// otherwise carry the low-order-bit effects of the outputs into the
// likelihood-ratio family (at x = 0, Δ = 1 the Laplace loss computes to
// 1 + 2⁻⁵² on one neighbour only). Those effects are the Bits family's
// business; L measures the real-valued mechanism.
const lossGrid = 1 << 32
