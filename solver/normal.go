package solver

import (
	"github.com/dpmc/dpmc/internal/asm/f32"
	"github.com/dpmc/dpmc/internal/asm/f64"
	"github.com/dpmc/dpmc/internal/dense"
	"github.com/dpmc/dpmc/noise/huber"
	"github.com/dpmc/dpmc/ratings"
)

// maxBlockRows caps the rows of a gathered block: a row with more ratings
// is processed in blocks of this many, and a worker's block is at most
// maxBlockRows × r values.
const maxBlockRows = 4096

// blockRows returns the number of rows of a worker's gathered block for
// x: the most ratings of any user or item, capped at maxBlockRows, and at
// least 1.
func blockRows(x *ratings.Matrix) int {
	most := 1
	for i := range x.Rows() {
		items, _ := x.Row(i)
		most = max(most, len(items))
	}
	for j := range x.Cols() {
		users, _ := x.Col(j)
		most = max(most, len(users))
	}
	return min(most, maxBlockRows)
}

// scratch is one worker's space for building normal equations from
// gathered blocks, and for R-IRLS; nothing in a row solve allocates.
type scratch struct {
	r     int
	nrows int          // the rows of a block
	block []float64    // rows × r: the other side's factors of a row's ratings
	y     []float64    // rows: their targets, as float64
	pred  []float64    // rows: their predictions uᵀθ
	wt    []float64    // rows: their IRLS weights
	wy    []float64    // rows: weight × target
	irls  *irlsScratch // R-IRLS only, made on first use

	// A Mixed run's float32 space (and none of the float64 blocks above,
	// unless wide).
	block32 []float32 // rows × r
	y32     []float32 // rows
	gram32  []float32 // r × r, the lower triangle
	rhs32   []float32 // r
	// wide: a Mixed run on a CPU whose float32 kernels are the generic
	// loops while the float64 ones are assembly (AVX2 without AVX-512):
	// its float32 rows are gathered widened to float64 into block and
	// summed by the float64 kernels, which are several times faster there
	// than generic float32 loops.
	wide bool
}

// wideMixed reports whether a Mixed run sums its float32 rows in float64
// (scratch.wide): when the float32 sums would be the generic loops (no
// AVX-512) but the float64 ones are assembly.
func wideMixed() bool { return f32.Active() < f32.AVX512 && f64.Active() != f64.Generic }

// newScratch returns the scratch space of blocks of rows rows at rank r:
// float32 if mixed (float64 blocks as well where wideMixed), else float64.
func newScratch(r, rows int, mixed bool) *scratch {
	if mixed && wideMixed() {
		return &scratch{r: r, nrows: rows, wide: true, block: make([]float64, rows*r), y: make([]float64, rows)}
	}
	if mixed {
		return &scratch{
			r:       r,
			nrows:   rows,
			block32: make([]float32, rows*r),
			y32:     make([]float32, rows),
			gram32:  make([]float32, r*r),
			rhs32:   make([]float32, r),
		}
	}
	return &scratch{
		r:     r,
		nrows: rows,
		block: make([]float64, rows*r),
		y:     make([]float64, rows),
		pred:  make([]float64, rows),
		wt:    make([]float64, rows),
		wy:    make([]float64, rows),
	}
}

// rows returns the number of rows the scratch's block holds.
func (s *scratch) rows() int { return s.nrows }

// mixedStats sets gram (the lower triangle) and rhs to λI + Σ f_k·f_kᵀ and
// Σ y_k·f_k over the ratings y of one row, whose other-side factors are
// the rows idx of the float32 factors f (rank s.r): summed in float32
// (addStats32, then widen), or, where s.wide, gathered widened to float64
// and summed by the float64 kernels.
func (s *scratch) mixedStats(f []float32, idx []int32, y ratings.Values, lambda float64, gram, rhs []float64) {
	if !s.wide {
		s.addStats32(f, idx, y)
		s.widen(gram, rhs, lambda)
		return
	}
	r, rows := s.r, s.rows()
	dense.SetRidge(gram, r, lambda)
	clear(rhs)
	for p0 := 0; p0 < len(idx); p0 += rows {
		pe := min(p0+rows, len(idx))
		blk := s.block[:(pe-p0)*r]
		f32.GatherWiden(blk, f, r, idx[p0:pe])
		yk := y.Slice(p0, pe).CopyTo(s.y)
		dense.SyrkLower(gram, r, blk, nil)
		dense.AddMulTransVec(rhs, blk, r, yk)
	}
}

// addStats32 sets s.gram32 (the lower triangle) and s.rhs32 to the
// statistics of the ratings y of one row, whose other-side factors are the
// rows idx of the float32 factors f (rank s.r): Σ f_k·f_kᵀ and Σ y_k·f_k,
// in float32. It gathers at most s.rows() factor rows at a time.
func (s *scratch) addStats32(f []float32, idx []int32, y ratings.Values) {
	r, rows := s.r, s.rows()
	clear(s.gram32)
	clear(s.rhs32)
	for p0 := 0; p0 < len(idx); p0 += rows {
		pe := min(p0+rows, len(idx))
		k := pe - p0
		blk := s.block32[:k*r]
		f32.Gather(blk, f, r, idx[p0:pe])
		yk := y.Slice(p0, pe).CopyTo32(s.y32)
		f32.SyrkLower(r, k, blk, r, s.gram32, r)
		f32.GemvT(k, r, blk, r, yk, 1, s.rhs32)
	}
}

// widen sets gram (its lower triangle) to λI + s.gram32 and rhs to s.rhs32,
// in float64.
func (s *scratch) widen(gram, rhs []float64, lambda float64) {
	r := s.r
	for i := range r {
		src, dst := s.gram32[i*r:i*r+i+1], gram[i*r:i*r+i+1]
		for j, v := range src {
			dst[j] = float64(v)
		}
		dst[i] += lambda
	}
	for k, v := range s.rhs32[:r] {
		rhs[k] = float64(v)
	}
}

// addStats adds to gram (the lower triangle) and rhs the statistics of the
// ratings y of one row, whose other-side factors are the rows idx of f
// (rank s.r): Σ w·f_k·f_kᵀ and Σ w·y_k·f_k. The weight w is 1 if theta is
// nil and otherwise the Huber weight ψ_c(e)/e of the residual
// e = y_k − f_kᵀθ. It gathers at most s.rows() factor rows at a
// time and hands each block to the dense kernels.
func (s *scratch) addStats(f []float64, idx []int32, y ratings.Values, theta []float64, c float64, gram, rhs []float64) {
	r, rows := s.r, s.rows()
	for p0 := 0; p0 < len(idx); p0 += rows {
		pe := min(p0+rows, len(idx))
		blk := dense.Gather(s.block, f, r, idx[p0:pe])
		yk := y.Slice(p0, pe).CopyTo(s.y)
		if theta == nil {
			dense.SyrkLower(gram, r, blk, nil)
			dense.AddMulTransVec(rhs, blk, r, yk)
			continue
		}
		pred, wt, wy := s.pred[:len(yk)], s.wt[:len(yk)], s.wy[:len(yk)]
		dense.MulVec(pred, blk, r, theta)
		for k, v := range yk {
			w := huber.Weight(c, v-pred[k])
			wt[k] = w
			wy[k] = w * v
		}
		dense.SyrkLower(gram, r, blk, wt)
		dense.AddMulTransVec(rhs, blk, r, wy)
	}
}
