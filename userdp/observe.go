package userdp

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
)

// This file is a test hook: it lets the package's tests see, for every
// noised coordinate of every release, the exact statistic, the value
// released and the stated noise, without any per-release code. Every
// release draws its noise through noiser.add, and every noiser is made by
// calibrate, which names the release in the report; so a release added
// later is observed as soon as it exists. With no observer installed (the
// only state outside tests) the cost is one nil check per coordinate.

// coord names one noised coordinate: the release (its name in
// Report.Releases), the random stream (phase, step, ID) its noise was
// drawn from, and its position among that release's draws from the
// stream. The same data released twice, or a neighbour, gives the same
// coordinates the same names, whatever the order of the computation.
type coord struct {
	release string
	phase   int
	step    int
	id      string
	index   int
}

// observer sees every noised coordinate of the plans calibrated while it
// is installed: the exact statistic (before rounding to the grid and
// noise), the noisy value the noiser drew, and the noise's σ and grid γ
// (0 for float noise). It returns the value to release instead — noisy,
// unless a test replays another run or plants a fault. It may be called
// from several goroutines.
type observer interface {
	observe(c coord, sigma, grid, exact, noisy float64) float64
}

// tapState is an installed observer and the names of the seeded streams
// handed out since.
type tapState struct {
	obs     observer
	mu      sync.Mutex
	streams map[*rand.Rand]*streamTag
}

// streamTag is the (phase, step, ID) of a stream and how often each
// release has drawn from it.
type streamTag struct {
	phase, step int
	id          string
	draws       map[string]int
}

// activeTap is the installed observer, nil outside tests. Tests that
// install one must not run in parallel with other Train calls (no test of
// the package calls t.Parallel).
var activeTap atomic.Pointer[tapState]

// installObserver installs o for the plans calibrated until the returned
// function is called.
func installObserver(o observer) (remove func()) {
	t := &tapState{obs: o, streams: map[*rand.Rand]*streamTag{}}
	activeTap.Store(t)
	return func() { activeTap.CompareAndSwap(t, nil) }
}

// tapStream records that r is the seeded stream of (phase, step, id) and
// returns r.
func tapStream(r *rand.Rand, phase, step int, id string) *rand.Rand {
	t := activeTap.Load()
	if t == nil {
		return r
	}
	t.mu.Lock()
	t.streams[r] = &streamTag{phase: phase, step: step, id: id, draws: map[string]int{}}
	t.mu.Unlock()
	return r
}

// noiseTap is a noiser's link to the observer installed when it was
// calibrated, with the name of its release.
type noiseTap struct {
	state   *tapState
	release string
}

// tapped returns z observed under the release's name if an observer is
// installed, else z unchanged.
func tapped(z noiser, release string) noiser {
	if t := activeTap.Load(); t != nil {
		z.tap = &noiseTap{state: t, release: release}
	}
	return z
}

// add draws z's noise for x from r as noiser.add does and hands both to
// the observer, which says what is released.
func (t *noiseTap) add(z noiser, x float64, r *rand.Rand) float64 {
	z.tap = nil
	y := z.add(x, r)
	c := coord{release: t.release, phase: -1}
	t.state.mu.Lock()
	if tag := t.state.streams[r]; tag != nil {
		c.phase, c.step, c.id = tag.phase, tag.step, tag.id
		c.index = tag.draws[t.release]
		tag.draws[t.release]++
	}
	t.state.mu.Unlock()
	var grid float64
	if z.d != nil {
		grid = z.d.Granularity()
	}
	return t.state.obs.observe(c, z.sigma, grid, x, y)
}
