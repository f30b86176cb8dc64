package userdp

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// start fills the head rows of v with the release's starting item
// factors. Without a PCA share it draws them data-independently, N(0, 1/r)
// per entry. With one, it releases the noisy second-moment matrix of the
// users' weighted residual vectors over the head items,
//
//	M = Σ_users z zᵀ,  z_j = w_j · clip(x_j − μ − b_j − β_user, ±B_r),
//
// whose ℓ2 (Frobenius) sensitivity is ‖z‖₂² ≤ B_r² because each user's
// weights have ‖w‖₂ ≤ 1, and starts from its top-r eigenvectors, each
// scaled by the square root of its eigenvalue (clamped at 0). With no
// head item V stays zero; with fewer head items h than the rank r, only h
// columns are filled.
func (t *trainer) start(ctx context.Context, res *Result, v []float64, head []bool, wt [][]float64) error {
	o := &t.opts
	r := o.Rank
	if o.NoNoise || t.noise.pca.sigma == 0 {
		for j, h := range head {
			if !h {
				continue
			}
			rnd := t.rand(phaseStart, 0, t.itemIDs[j])
			for k := range r {
				v[j*r+k] = rnd.NormFloat64() / math.Sqrt(float64(r))
			}
		}
		return nil
	}
	var cand []int
	for j, h := range head {
		if h {
			cand = append(cand, j)
		}
	}
	h := len(cand)
	if h == 0 {
		return nil // no item qualifies: V stays zero, biases only
	}
	pos := make([]int32, len(res.ItemIDs))
	for j := range pos {
		pos[j] = -1
	}
	for k, j := range cand {
		pos[j] = int32(k)
	}
	m := make([]float64, h*h)
	idx := make([]int32, 0, 64)
	z := make([]float64, 0, 64)
	for i := range t.users {
		if i%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		idx, z = idx[:0], z[:0]
		beta := t.localOffset(i, res.Mu)
		for p, j := range t.ccol[i] {
			k := pos[j]
			if k < 0 || wt[i][p] == 0 {
				continue
			}
			e := t.cval[i][p] - res.Mu - res.ItemBias[j] - beta
			e = math.Min(math.Max(e, -o.ResidualBound), o.ResidualBound)
			idx = append(idx, k)
			z = append(z, wt[i][p]*e)
		}
		for a, ka := range idx {
			row := m[int(ka)*h:]
			za := z[a]
			for b, kb := range idx {
				if kb <= ka {
					row[kb] += za * z[b]
				}
			}
		}
	}
	for a := range h {
		rnd := t.rand(phasePCA, 0, t.itemIDs[cand[a]])
		for b := 0; b <= a; b++ {
			m[a*h+b] = t.noise.pca.add(m[a*h+b], rnd)
		}
	}
	sym := mat.NewSymDense(h, nil)
	for a := range h {
		for b := 0; b <= a; b++ {
			sym.SetSym(a, b, m[a*h+b])
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(sym, true) {
		return fmt.Errorf("userdp: eigendecomposition of the start matrix failed")
	}
	vals := eig.Values(nil) // ascending
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	// With fewer head items than the rank, the extra columns stay zero.
	for c := range min(r, h) {
		col := h - 1 - c
		s := math.Sqrt(math.Max(vals[col], 0))
		for k, j := range cand {
			v[j*r+c] = s * vecs.At(k, col)
		}
	}
	normalizeRows(v, r, head)
	return nil
}
