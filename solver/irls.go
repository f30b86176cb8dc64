package solver

import (
	"math"
	"math/rand/v2"

	"github.com/dpmc/dpmc/internal/dense"
	"github.com/dpmc/dpmc/noise/huber"
)

// R-IRLS at nearly the cost of ALS.
//
// An inner iteration solves (λI + Σ w_k u_k u_kᵀ)·θ = Σ w_k y_k u_k + noise
// with Huber weights w_k = ψ_c(e_k)/e_k of the residuals e_k = y_k − u_kᵀθ.
// A weight is 1 for every residual within the threshold c, so with G₀ =
// λI + Σ u_k u_kᵀ and b₀ = Σ y_k u_k, built once per item and sweep,
//
//	G = G₀ − Σ_{w_k<1} (1 − w_k)·u_k u_kᵀ,  b = b₀ − Σ_{w_k<1} (1 − w_k)·y_k·u_k.
//
// An inner iteration then costs the residuals (one matrix–vector product),
// the few corrections and a solve, not a new Gram matrix. The solve:
//
//   - no correction: x = G₀⁻¹·b, one matrix–vector product with the inverse
//     of G₀, computed from its Cholesky factor once per item (when first
//     needed), as it serves up to K right-hand sides;
//   - m ≤ r/2 corrections: by the Woodbury identity with the same inverse,
//     G⁻¹ = G₀⁻¹ + Z·S⁻¹·Zᵀ with Z = G₀⁻¹C, C = [u_k], S = D⁻¹ − CᵀZ and
//     D = diag(1 − w_k); the columns of Z are kept per rating across the
//     item's inner iterations (outliers tend to stay outliers), so a
//     repeated correction costs only its share of the m × m matrix S;
//   - more: G₀ minus the corrections, factored;
//   - more than half the ratings corrected: G and b built directly, which
//     is no dearer and avoids subtracting most of G₀ from itself.
//
// An item with few ratings (n ≤ r/4, and λ > 0) skips G₀ altogether and
// works in the n-dimensional space of its ratings (irlsDual below), where
// an r × r factorization and inverse per sweep would cost more than all
// its inner iterations.
//
// All five give the direct computation's result up to rounding (a test
// holds them to it), use the same random draws, and depend only on the
// item's data, so results stay the same for any number of workers.

// irlsScratch is a worker's space for R-IRLS item solves.
type irlsScratch struct {
	gram0, inv []float64 // r × r: G₀ (lower triangle) and G₀⁻¹ (full)
	work       []float64 // r × r: scratch for the inverse
	rhs0       []float64 // r: b₀
	corr       []int32   // rows: positions of the ratings with weight < 1
	cw         []float64 // rows: their 1 − w
	cblk       []float64 // rows × r: their factor rows
	slot       []int32   // rows: where rating k's column of Z is in zs, or −1
	zs         []float64 // woodSlots × r: cached columns G₀⁻¹u_k of Z
	s, st, z0  []float64 // woodMax²; woodMax; r: Woodbury's S, its right-hand side, G₀⁻¹b
	kd, md     []float64 // dualMax²: an item's K = BBᵀ and M = λI + SKS, n × n
	q, g       []float64 // dualMax: S·M⁻¹·S·B·c, and B·c
	// paths counts the inner iterations solved each way (pathInverse,
	// pathWoodbury, pathCorrected, pathDirect, pathDual), for the tests.
	paths [numPaths]int
}

// dualMax returns the most ratings of an item that irlsDual solves at
// rank r.
func dualMax(r int) int { return r / 4 }

// The ways an inner iteration is solved.
const (
	pathInverse = iota
	pathWoodbury
	pathCorrected
	pathDirect
	pathDual
	numPaths
)

// woodMax returns the most corrections a Woodbury solve takes at rank r,
// and woodSlots how many columns of Z it keeps per item.
func woodMax(r int) int   { return max(1, r/2) }
func woodSlots(r int) int { return 2 * woodMax(r) }

func newIRLSScratch(r, rows int) *irlsScratch {
	wm := woodMax(r)
	return &irlsScratch{
		gram0: make([]float64, r*r), inv: make([]float64, r*r), work: make([]float64, r*r), rhs0: make([]float64, r),
		corr: make([]int32, rows), cw: make([]float64, rows), cblk: make([]float64, rows*r),
		slot: make([]int32, rows), zs: make([]float64, woodSlots(r)*r),
		s: make([]float64, wm*wm), st: make([]float64, wm), z0: make([]float64, r),
		kd: make([]float64, dualMax(r)*dualMax(r)), md: make([]float64, dualMax(r)*dualMax(r)),
		q: make([]float64, dualMax(r)), g: make([]float64, dualMax(r)),
	}
}

// itemIRLS solves item j by R-IRLS (Algorithm 3): K inner iterations of
// Huber-weighted ridge least squares, with fresh noise on AᵀWy in each,
// as described at the top of this file.
func (t *trainer) itemIRLS(w *worker, sweep, j int) error {
	r := t.opts.Rank
	users, stored := t.x.Col(j)
	rnd := w.rand(sweep, phaseItems, j)
	v := t.model.V[j*r : j*r+r]
	t.startTheta(w, rnd, v)
	n := len(users)
	if n > w.rows() {
		if err := t.irlsDirect(w, sweep, j, rnd); err != nil {
			return err
		}
		copy(v, w.theta)
		return nil
	}
	if w.irls == nil {
		w.irls = newIRLSScratch(r, w.rows())
	}
	ir, c, lambda := w.irls, t.opts.Threshold, t.lambda(n)
	vals := stored.CopyTo(w.y)
	blk := dense.Gather(w.block, t.model.U, r, users)
	if n <= dualMax(r) && lambda > 0 {
		if err := t.irlsDual(w, sweep, j, rnd, blk, vals, lambda); err != nil {
			return err
		}
		copy(v, w.theta)
		return nil
	}
	dense.SetRidge(ir.gram0, r, lambda)
	dense.SyrkLower(ir.gram0, r, blk, nil)
	clear(ir.rhs0)
	dense.AddMulTransVec(ir.rhs0, blk, r, vals)
	inverted, cached := false, 0 // G₀⁻¹ computed yet; columns of Z cached
	pred, wt, wy := w.pred[:len(vals)], w.wt[:len(vals)], w.wy[:len(vals)]
	for range t.opts.IRLSIters {
		dense.MulVec(pred, blk, r, w.theta)
		// The ratings with weight huber.Weight(c, e) < 1: |e| > c and c/|e|
		// below 1 after rounding (a NaN residual has weight NaN, as there).
		m := 0
		for k, y := range vals {
			if e := math.Abs(y - pred[k]); e > c {
				if wk := c / e; wk < 1 {
					ir.corr[m], ir.cw[m] = int32(k), 1-wk
					m++
				}
			}
		}
		direct := 2*m > n
		if direct {
			for k, y := range vals {
				wt[k] = huber.Weight(c, y-pred[k])
				wy[k] = wt[k] * y
			}
			clear(w.rhs)
			dense.AddMulTransVec(w.rhs, blk, r, wy)
		} else {
			copy(w.rhs, ir.rhs0)
			for a, k := range ir.corr[:m] {
				dense.Axpy(w.rhs, -ir.cw[a]*vals[k], blk[int(k)*r:int(k)*r+r])
			}
		}
		if t.opts.Noise != nil {
			addNoise(t.opts.Noise, w.rhs, rnd)
		}
		if m <= woodMax(r) {
			if !inverted {
				copy(w.gram, ir.gram0)
				if err := dense.Cholesky(w.gram, r); err != nil {
					return t.singular(sweep, "item", j, err)
				}
				dense.CholeskyInverse(ir.inv, w.gram, r, ir.work)
				inverted = true
				for k := range ir.slot[:n] {
					ir.slot[k] = -1
				}
			}
			if m == 0 {
				dense.MulVec(w.theta, ir.inv, r, w.rhs)
				ir.paths[pathInverse]++
				if err := t.finite(sweep, "item", j, w.theta, w.theta); err != nil {
					return err
				}
				continue
			}
			if ok := ir.woodbury(r, blk, m, &cached, w.rhs, w.theta); ok {
				ir.paths[pathWoodbury]++
				if err := t.finite(sweep, "item", j, w.theta, w.theta); err != nil {
					return err
				}
				continue
			}
		}
		if direct {
			ir.paths[pathDirect]++
			dense.SetRidge(w.gram, r, lambda)
			dense.SyrkLower(w.gram, r, blk, wt)
		} else {
			ir.paths[pathCorrected]++
			copy(w.gram, ir.gram0)
			cblk := dense.Gather(ir.cblk, blk, r, ir.corr[:m])
			neg := ir.cw[:m]
			for a := range neg {
				neg[a] = -neg[a]
			}
			dense.SyrkLower(w.gram, r, cblk, neg)
		}
		if err := t.solve(w, sweep, "item", j, w.theta); err != nil {
			return err
		}
	}
	copy(v, w.theta)
	return nil
}

// woodbury solves (G₀ − C·D·Cᵀ)·x = b into x with G₀⁻¹ in ir.inv, for
// the m corrections in ir.corr and ir.cw (the rows of C
// are rows of blk). It reports false, x unusable, if it has no room for
// another column of Z (cached counts those in use) or S is not positive
// definite at rounding level; the caller then factors G itself.
func (ir *irlsScratch) woodbury(r int, blk []float64, m int, cached *int, b, x []float64) bool {
	row := func(k int32) []float64 { return blk[int(k)*r : int(k)*r+r] }
	z := func(k int32) []float64 { s := int(ir.slot[k]); return ir.zs[s*r : s*r+r] }
	for _, k := range ir.corr[:m] {
		if ir.slot[k] >= 0 {
			continue
		}
		if *cached == woodSlots(r) {
			return false
		}
		ir.slot[k] = int32(*cached)
		*cached++
		dense.MulVec(z(k), ir.inv, r, row(k))
	}
	z0 := ir.z0
	dense.MulVec(z0, ir.inv, r, b)
	s, st := ir.s[:m*m], ir.st[:m]
	for a, ka := range ir.corr[:m] {
		ua := row(ka)
		for bb, kb := range ir.corr[:a+1] {
			s[a*m+bb] = -dense.Dot(ua, z(kb))
		}
		s[a*m+a] += 1 / ir.cw[a]
		st[a] = dense.Dot(ua, z0)
	}
	if dense.CholeskySolve(s, m, st) != nil {
		return false
	}
	copy(x, z0)
	for a, k := range ir.corr[:m] {
		dense.Axpy(x, st[a], z(k))
	}
	return true
}

// irlsDual runs item j's K inner iterations for an item with few
// ratings, n ≤ dualMax(r), from w.theta, leaving the result there: blk
// (n × r, rows u_k) is B and vals the targets y. With the weights W of an
// inner iteration, S = W^½, and c = Bᵀ·W·y + noise, the push-through
// (Woodbury) identity for λ > 0 gives
//
//	θ = (λI + BᵀWB)⁻¹·c = (c − Bᵀ·q)/λ,  q = S·M⁻¹·S·B·c,  M = λI + S·K·S,
//
// with K = B·Bᵀ, n × n, built once; and the next residuals need only
// B·θ = (B·c − K·q)/λ. An inner iteration then costs c and B·c (2nr),
// M and its factorization (n² and n³/6) and a few n-vectors, instead of
// r × r work; θ itself is formed once, after the last.
func (t *trainer) irlsDual(w *worker, sweep, j int, rnd *rand.Rand, blk, vals []float64, lambda float64) error {
	r, n, c := t.opts.Rank, len(vals), t.opts.Threshold
	if t.opts.IRLSIters == 0 {
		return nil
	}
	ir := w.irls
	kd, md, q, g := ir.kd[:n*n], ir.md[:n*n], ir.q[:n], ir.g[:n]
	pred, wt, wy := w.pred[:n], w.wt[:n], w.wy[:n]
	for a := range n {
		ua := blk[a*r : a*r+r]
		for b := range a + 1 {
			kd[a*n+b] = dense.Dot(ua, blk[b*r:b*r+r])
			kd[b*n+a] = kd[a*n+b]
		}
	}
	dense.MulVec(pred, blk, r, w.theta)
	// unitFactored: md holds the Cholesky factor of λI + K, the M of unit
	// weights, which most inner iterations share; unitRHS: ir.rhs0 holds
	// their Bᵀy (the G₀ way's b₀, which this item does not use).
	unitFactored, unitRHS := false, false
	for range t.opts.IRLSIters {
		unit := true
		for k, y := range vals {
			wk := huber.Weight(c, y-pred[k])
			wy[k], wt[k] = wk*y, 1
			if wk < 1 {
				wt[k], unit = math.Sqrt(wk), false // S
			}
		}
		if unit && unitRHS {
			copy(w.rhs, ir.rhs0) // wy = y, as when it was computed
		} else {
			clear(w.rhs)
			dense.AddMulTransVec(w.rhs, blk, r, wy)
			if unit {
				copy(ir.rhs0, w.rhs)
				unitRHS = true
			}
		}
		if t.opts.Noise != nil {
			addNoise(t.opts.Noise, w.rhs, rnd)
		}
		dense.MulVec(g, blk, r, w.rhs)
		if unit && unitFactored {
			// The same M, and q = g, as below with S = I.
			copy(q, g)
			dense.SolveCholesky(md, n, q)
		} else {
			for a := range n {
				for b := range a + 1 {
					md[a*n+b] = wt[a] * kd[a*n+b] * wt[b]
				}
				md[a*n+a] += lambda
				q[a] = wt[a] * g[a]
			}
			if err := dense.CholeskySolve(md, n, q); err != nil {
				return t.singular(sweep, "item", j, err)
			}
			unitFactored = unit
		}
		for a := range q {
			q[a] *= wt[a]
		}
		dense.MulVec(pred, kd, n, q)
		for a := range pred {
			pred[a] = (g[a] - pred[a]) / lambda
		}
		ir.paths[pathDual]++
	}
	for a := range q {
		q[a] = -q[a]
	}
	dense.AddMulTransVec(w.rhs, blk, r, q)
	for a := range w.rhs {
		w.rhs[a] /= lambda
	}
	return t.finite(sweep, "item", j, w.rhs, w.theta)
}

// irlsDirect runs item j's K inner iterations the direct way, each
// building the weighted normal equations from scratch, block by block,
// starting from w.theta and leaving the result there: for items with more
// ratings than a worker's block holds, and the reference itemIRLS is
// tested against.
func (t *trainer) irlsDirect(w *worker, sweep, j int, rnd *rand.Rand) error {
	r := t.opts.Rank
	users, vals := t.x.Col(j)
	for range t.opts.IRLSIters {
		dense.SetRidge(w.gram, r, t.lambda(len(users)))
		clear(w.rhs)
		w.addStats(t.model.U, users, vals, w.theta, t.opts.Threshold, w.gram, w.rhs)
		if t.opts.Noise != nil {
			addNoise(t.opts.Noise, w.rhs, rnd)
		}
		if err := t.solve(w, sweep, "item", j, w.theta); err != nil {
			return err
		}
	}
	return nil
}
