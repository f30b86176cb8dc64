package solver

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dpmc/dpmc/internal/check"
	"github.com/dpmc/dpmc/internal/dense"
	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/rng"
)

// UserLevel configures user-level differential privacy of the released
// item factors V in the billboard (joint-DP) model of Chien et al. 2021,
// "Private Alternating Least Squares". Only V is released; each user factor
// u_i is computed from the public V and the user's own ratings and is never
// released. See the package documentation for the mechanism and its
// accounting. All four fields must be chosen from public knowledge (the
// rating scale), never from the data.
type UserLevel struct {
	// Center is the public rating centre c, in rating units, e.g.
	// (Min+Max)/2 of the rating scale (finite). Every solve uses x − c, and
	// the model predicts c + u_iᵀv_j (Model.Offset = c).
	Center float64
	// Bound is B, in rating units (> 0): a rating enters item updates
	// clipped to [c − B, c + B], so |x − c| ≤ B there. User solves use the
	// unclipped x − c.
	Bound float64
	// MaxUserRatings is k (≥ 1): each user contributes at most k ratings to
	// item updates, a subset chosen uniformly at random once before
	// training from a stream derived from (Seed, user) when Seeded, else
	// from crypto/rand. User factors are still fit from all of the user's
	// ratings: u_i is private to the user.
	MaxUserRatings int
	// ClipNorm is C (> 0), in the units of the factors: every user factor
	// is scaled to ℓ2 norm ≤ C before it enters an item update. The model
	// keeps the unclipped factor, which the user predicts with.
	ClipNorm float64
}

func (u *UserLevel) validate() error {
	if err := check.Finite("user-level center", u.Center); err != nil {
		return fmt.Errorf("solver: %w", err)
	}
	if err := check.Positive("user-level bound", u.Bound); err != nil {
		return fmt.Errorf("solver: %w", err)
	}
	if u.MaxUserRatings < 1 {
		return fmt.Errorf("solver: %w: user-level max user ratings = %d, want ≥ 1", check.ErrParam, u.MaxUserRatings)
	}
	if err := check.Positive("user-level clip norm", u.ClipNorm); err != nil {
		return fmt.Errorf("solver: %w", err)
	}
	return nil
}

// UserLevelSensitivity returns the L1 and L2 sensitivity, under adding or
// removing one user, of one user-level release step: the stacked vector of
// every item's Gram matrix (on and above the diagonal) and right-hand side
// Σ w (x − c) ũ, at the given rank r, per-user contribution cap k, factor
// clip norm C and rating bound B. L1 is for Laplace and Huber noise, L2 for
// Gaussian noise. The arguments are not checked (Options.Sensitivity
// checks them); they must be r ≥ 1, k ≥ 1, C > 0 and B > 0.
//
// Derivation. One rating x of the user, on item j, adds w·ũũᵀ to item j's
// Gram matrix and w·(x − c)·ũ to its vector, with ‖ũ‖₂ ≤ C (clipping),
// |x − c| ≤ B (clipping) and w ∈ [0, 1] (1 for ALS, a Huber weight for
// IRLS). On the Gram matrix's upper triangle with diagonal, the L2 norm is
// at most ‖ũũᵀ‖_F = ‖ũ‖₂² ≤ C², and the L1 norm is
// Σ_{a≤b} |ũ_a ũ_b| = ((Σ_a |ũ_a|)² + Σ_a ũ_a²)/2 ≤ (r·C² + C²)/2 =
// (r+1)C²/2, by ‖ũ‖₁ ≤ √r·‖ũ‖₂. On the vector, the L2 norm is at most B·C
// and the L1 norm at most B·‖ũ‖₁ ≤ B·√r·C. So one rating moves item j's
// block by at most √(C⁴ + B²C²) in L2 and (r+1)C²/2 + B√r·C in L1. A user
// contributes at most k ratings, all to distinct items, so removing the
// user changes at most k disjoint blocks of the stacked vector (the other
// users' clipped factors and weights depend only on the public V, the
// public IRLS iterate and their own data, so they do not change):
//
//	L2 = √k · √(C⁴ + B²C²),  L1 = k · ((r+1)C²/2 + B·√r·C).
//
// Because the mechanism adds i.i.d. noise to every coordinate of that
// stacked vector, the whole step is one application of the mechanism with
// this sensitivity. Both bounds are attained: L1 by a user with k ratings
// at c ± B and ũ of norm C with equal-magnitude coordinates (w = 1), L2 by
// ũ along one axis.
func UserLevelSensitivity(rank, k int, clipNorm, bound float64) noise.Sensitivity {
	r, kf, c := float64(rank), float64(k), clipNorm
	return noise.Sensitivity{
		L1: kf * ((r+1)*c*c/2 + bound*math.Sqrt(r)*c),
		L2: math.Sqrt(kf) * math.Sqrt(c*c*c*c+bound*bound*c*c),
	}
}

// Sensitivity returns UserLevelSensitivity for the options' rank and user
// level settings: the sensitivity of each of the Releases() release steps.
// It returns an error naming the option if the options are invalid, and an
// error wrapping check.ErrParam if UserLevel is nil, since the paper's
// algorithms bound no user's contribution and have no such sensitivity.
func (o Options) Sensitivity() (noise.Sensitivity, error) {
	if err := o.validate(); err != nil {
		return noise.Sensitivity{}, err
	}
	u := o.UserLevel
	if u == nil {
		return noise.Sensitivity{}, fmt.Errorf("solver: %w: user level is nil: the paper's algorithms have no per-release sensitivity bound", check.ErrParam)
	}
	return UserLevelSensitivity(o.Rank, u.MaxUserRatings, u.ClipNorm, u.Bound), nil
}

// Releases returns the number of release steps of a training run: Iters
// for ALS, Iters·IRLSIters for IRLS. Each step releases (with noise from
// Options.Noise) the statistics of every item once. In user-level mode
// each step is one mechanism application with sensitivity
// Options.Sensitivity, and a run composes Releases() of them adaptively;
// in the paper's mode no per-step sensitivity is known (see the package
// documentation). Releases does not check the options.
func (o Options) Releases() int {
	if o.Algorithm == IRLS {
		return o.Iters * o.IRLSIters
	}
	return o.Iters
}

// contributions are the ratings that enter item updates in user-level
// mode, by item: item j's are users[start[j]:start[j+1]] with values
// vals[…], clipped to [c − B, c + B] and centred (x − c). Within an item,
// users are in increasing order.
type contributions struct {
	start []int
	users []int32
	vals  []float64
}

// selectContributions keeps, for every user, at most k of the user's
// ratings, a uniformly random subset drawn by a partial Fisher–Yates
// shuffle from the user's stream (seed, phaseSelect, user) when seeded,
// else from crypto/rand.
func selectContributions(x *ratings.Matrix, ul *UserLevel, seed uint64, seeded bool) *contributions {
	k := ul.MaxUserRatings
	lo, hi := ul.Center-ul.Bound, ul.Center+ul.Bound
	var (
		streams *rng.Reseeder
		crypto  *rand.Rand
	)
	if seeded {
		streams = rng.NewReseeder()
	} else {
		crypto = rng.Crypto()
	}
	// chosen[from[i]:from[i+1]] are user i's kept positions in x.Row(i).
	from := make([]int, x.Rows()+1)
	for i := range x.Rows() {
		items, _ := x.Row(i)
		from[i+1] = from[i] + min(len(items), k)
	}
	chosen := make([]int32, from[x.Rows()])
	var perm []int32
	count := make([]int, x.Cols()+1)
	for i := range x.Rows() {
		items, _ := x.Row(i)
		n := len(items)
		dst := chosen[from[i]:from[i+1]]
		if n <= k {
			for p := range dst {
				dst[p] = int32(p)
			}
		} else {
			rnd := crypto
			if seeded {
				rnd = streams.Stream(seed, streamID(0, phaseSelect, i))
			}
			if cap(perm) < n {
				perm = make([]int32, n)
			}
			perm = perm[:n]
			for p := range perm {
				perm[p] = int32(p)
			}
			for a := range k {
				b := a + rnd.IntN(n-a)
				perm[a], perm[b] = perm[b], perm[a]
			}
			copy(dst, perm[:k])
		}
		for _, p := range dst {
			count[items[p]+1]++
		}
	}
	c := &contributions{start: count, users: make([]int32, len(chosen)), vals: make([]float64, len(chosen))}
	for j := range x.Cols() {
		c.start[j+1] += c.start[j]
	}
	next := make([]int, x.Cols())
	copy(next, c.start)
	for i := range x.Rows() {
		items, vals := x.Row(i)
		for _, p := range chosen[from[i]:from[i+1]] {
			j := items[p]
			c.users[next[j]] = int32(i)
			c.vals[next[j]] = math.Min(math.Max(vals.At(int(p)), lo), hi) - ul.Center
			next[j]++
		}
	}
	return c
}

// clipFactor sets dst to u scaled to ℓ2 norm ≤ c: u itself if ‖u‖₂ ≤ c,
// else (c/‖u‖₂)·u, nudged down by an ulp at a time if rounding left it
// above c.
func clipFactor(dst, u []float64, c float64) {
	copy(dst, u)
	norm := math.Sqrt(dense.Dot(u, u))
	if norm <= c {
		return
	}
	s := c / norm
	for {
		for a := range dst {
			dst[a] = s * u[a]
		}
		if math.Sqrt(dense.Dot(dst, dst)) <= c || s == 0 {
			return
		}
		s = math.Nextafter(s, 0)
	}
}

// userLevelStatsWith sets gram (lower triangle) and rhs to item j's
// un-noised user-level statistics Σ w·ũũᵀ and Σ w·(x − c)·ũ over the item's
// contributions, where ũ are the clipped user factors and w = 1 if theta is
// nil (ALS), else the Huber weight ψ(e)/e of the residual
// e = (x − c) − ũᵀθ (IRLS), using the scratch space s. This is exactly what
// one release step adds noise to; the sensitivity test calls it too.
func (t *trainer) userLevelStatsWith(s *scratch, j int, theta, gram, rhs []float64) {
	r := t.opts.Rank
	dense.SetRidge(gram, r, 0)
	clear(rhs)
	c := t.contrib
	lo, hi := c.start[j], c.start[j+1]
	s.addStats(t.clipped, c.users[lo:hi], ratings.ValuesOf(c.vals[lo:hi]), 0, theta, t.opts.Threshold, gram, rhs)
}

// release adds the mechanism's noise to w.gram (one draw per entry on and
// below the diagonal, i.e. the upper triangle mirrored) and then to w.rhs,
// adds λI and, if noise was added, projects w.gram so that its eigenvalues
// are ≥ λ. Without noise Gram + λI has eigenvalues ≥ λ by construction and
// the projection is skipped.
func (t *trainer) release(w *worker, sweep, j int, rnd *rand.Rand) error {
	r, mech, lambda := t.opts.Rank, t.opts.Noise, t.opts.Lambda
	if mech != nil {
		for a := range r {
			noise.AddNoise(mech, w.gram[a*r:a*r+a+1], rnd)
		}
		noise.AddNoise(mech, w.rhs, rnd)
	}
	for a := range r {
		w.gram[a*r+a] += lambda
	}
	if mech != nil && !w.psd.project(w.gram, lambda) {
		return fmt.Errorf("solver: sweep %d, item %d: noisy Gram matrix is not finite or its eigen-decomposition failed (noise too large?)", sweep, j)
	}
	return nil
}

// itemUserALS solves item j's user-level noisy ridge least squares: one
// release of (Gram, vector) per sweep.
func (t *trainer) itemUserALS(w *worker, sweep, j int) error {
	r := t.opts.Rank
	t.userLevelStatsWith(w.scratch, j, nil, w.gram, w.rhs)
	if err := t.release(w, sweep, j, w.rand(sweep, phaseItems, j)); err != nil {
		return err
	}
	return t.solve(w, sweep, "item", j, t.model.V[j*r:j*r+r])
}

// itemUserIRLS solves item j by user-level R-IRLS: K inner iterations, each
// one release of the Huber-weighted (Gram, vector).
func (t *trainer) itemUserIRLS(w *worker, sweep, j int) error {
	r := t.opts.Rank
	rnd := w.rand(sweep, phaseItems, j)
	v := t.model.V[j*r : j*r+r]
	t.startTheta(w, rnd, v)
	for range t.opts.IRLSIters {
		t.userLevelStatsWith(w.scratch, j, w.theta, w.gram, w.rhs)
		if err := t.release(w, sweep, j, rnd); err != nil {
			return err
		}
		if err := t.solve(w, sweep, "item", j, w.theta); err != nil {
			return err
		}
	}
	copy(v, w.theta)
	return nil
}
