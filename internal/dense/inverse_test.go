package dense

import (
	"fmt"
	"math"
	"math/big"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dpmc/dpmc/rng"
)

// spdWithCondition returns the lower triangle (row-major n × n, the strict
// upper triangle NaN) of Q·diag(λ)·Qᵀ, for a random orthogonal Q (seeded)
// and eigenvalues λ spread log-uniformly from 1 down to 1/cond, the first
// 1 and the last 1/cond.
func spdWithCondition(seed uint64, n int, cond float64) []float64 {
	g := rng.Seeded(seed)
	z := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			z.Set(i, j, g.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(z)
	var q mat.Dense
	qr.QTo(&q)
	a := make([]float64, n*n)
	for i := range n {
		for j := range n {
			if j > i {
				a[i*n+j] = math.NaN()
				continue
			}
			var s float64
			for k := range n {
				lam := 1.0
				if n > 1 {
					lam = math.Pow(cond, -float64(k)/float64(n-1))
				}
				s += q.At(i, k) * lam * q.At(j, k)
			}
			a[i*n+j] = s
		}
	}
	return a
}

// bigInverse returns the inverse of the symmetric matrix whose lower
// triangle is a, computed in 256-bit floating point (Cholesky, then the
// inverse of the factor, then its product with its transpose) and rounded
// to float64: the reference the float64 code is held to.
func bigInverse(a []float64, n int) []float64 {
	const prec = 256
	nb := func() *big.Float { return new(big.Float).SetPrec(prec) }
	l := make([]*big.Float, n*n)
	for i := range l {
		l[i] = nb()
	}
	t := nb()
	for j := range n {
		d := nb().SetFloat64(a[j*n+j])
		for k := range j {
			d.Sub(d, t.Mul(l[j*n+k], l[j*n+k]))
		}
		l[j*n+j].Sqrt(d)
		for i := j + 1; i < n; i++ {
			s := nb().SetFloat64(a[i*n+j])
			for k := range j {
				s.Sub(s, t.Mul(l[i*n+k], l[j*n+k]))
			}
			l[i*n+j].Quo(s, l[j*n+j])
		}
	}
	// x = L⁻¹ by forward substitution, column by column.
	x := make([]*big.Float, n*n)
	for i := range x {
		x[i] = nb()
	}
	for c := range n {
		for i := c; i < n; i++ {
			s := nb()
			if i == c {
				s.SetInt64(1)
			}
			for k := c; k < i; k++ {
				s.Sub(s, t.Mul(l[i*n+k], x[k*n+c]))
			}
			x[i*n+c].Quo(s, l[i*n+i])
		}
	}
	inv := make([]float64, n*n)
	for i := range n {
		for j := range i + 1 {
			s := nb()
			for p := i; p < n; p++ {
				s.Add(s, t.Mul(x[p*n+i], x[p*n+j]))
			}
			v, _ := s.Float64()
			inv[i*n+j], inv[j*n+i] = v, v
		}
	}
	return inv
}

// TestCholeskyInverseAccuracy holds Cholesky then CholeskyInverse to the
// inverse computed in 256-bit arithmetic, on well- and ill-conditioned
// positive definite matrices (condition numbers 10 to 10¹²) at every size
// the blocked code treats differently (blocks of 4 rows, panels of 8,
// sizes not a multiple of either). The first-order error bound of an
// inverse computed from a Cholesky factor is ‖X̂ − A⁻¹‖₂ ≲ c·n·u·κ₂(A)·
// ‖A⁻¹‖₂ with u = 2⁻⁵³ and c a small constant; every entry is held to it
// with c = 2, and ‖A⁻¹‖₂ = cond (the smallest eigenvalue is 1/cond). An
// inverse wrong by more than rounding (a misplaced block, a missing
// term) is off by O(‖A⁻¹‖), far past this.
func TestCholeskyInverseAccuracy(t *testing.T) {
	const u = 0x1p-53
	type tc struct {
		n    int
		cond float64
	}
	var tests []tc
	for _, n := range []int{1, 2, 3, 4, 5, 7, 8, 9, 12, 13, 16, 17, 31, 32, 33, 40, 64} {
		for _, cond := range []float64{10, 1e6, 1e12} {
			tests = append(tests, tc{n, cond})
		}
	}
	mats, refs := make([][]float64, len(tests)), make([][]float64, len(tests))
	for i, tt := range tests {
		mats[i] = spdWithCondition(uint64(100+i), tt.n, tt.cond)
		refs[i] = bigInverse(mats[i], tt.n)
	}
	forEachImpl(t, func(t *testing.T) {
		worst := 0.0
		for i, tt := range tests {
			t.Run(fmt.Sprintf("n=%d/cond=%g", tt.n, tt.cond), func(t *testing.T) {
				n, a, want := tt.n, mats[i], refs[i]
				l := append([]float64(nil), a...)
				if err := Cholesky(l, n); err != nil {
					t.Fatal(err)
				}
				inv, work := make([]float64, n*n), make([]float64, n*n)
				CholeskyInverse(inv, l, n, work)
				tol := 2 * float64(n) * u * tt.cond * tt.cond
				var maxErr float64
				for i := range n {
					for j := range n {
						if inv[i*n+j] != inv[j*n+i] {
							t.Fatalf("inverse not symmetric at (%d, %d)", i, j)
						}
						d := math.Abs(inv[i*n+j] - want[i*n+j])
						if !(d <= tol) {
							t.Errorf("inv[%d][%d] = %v, reference %v: error %.3g > %.3g", i, j, inv[i*n+j], want[i*n+j], d, tol)
						}
						maxErr = max(maxErr, d)
					}
				}
				worst = max(worst, maxErr/tol)
			})
		}
		t.Logf("largest error: %.3g of the tolerance", worst)
	})
}

// TestCholesky8MatchesUnblocked holds the unrolled 8 × 8 factorization to
// the loop it unrolls, bit for bit, inside a larger matrix (leading
// dimension 11, the strict upper triangle NaN, never read), and to its
// ErrNotPositiveDefinite on a spoiled pivot.
func TestCholesky8MatchesUnblocked(t *testing.T) {
	const lda = 11
	for seed := range uint64(20) {
		a := spdWithCondition(200+seed, 8, math.Pow(10, float64(seed%13)))
		want, got := make([]float64, 8*lda), make([]float64, 8*lda)
		for i := range 8 {
			copy(want[i*lda:i*lda+8], a[i*8:i*8+8])
		}
		copy(got, want)
		if seed >= 15 {
			want[int(seed-15)*lda+int(seed-15)] = []float64{-1, 0, math.NaN(), math.Inf(1), -1e-300}[seed-15]
			copy(got, want)
		}
		errWant, errGot := choleskyUnblocked(want, 8, lda), cholesky8(got, lda)
		if errWant != errGot {
			t.Fatalf("seed %d: cholesky8 returned %v, choleskyUnblocked %v", seed, errGot, errWant)
		}
		if errWant != nil {
			continue
		}
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) && !(math.IsNaN(got[i]) && math.IsNaN(want[i])) {
				t.Fatalf("seed %d: element (%d, %d) = %v, choleskyUnblocked %v", seed, i/lda, i%lda, got[i], want[i])
			}
		}
	}
}

// TestCholeskyInverse8MatchesLoops holds the unrolled 8 × 8 inverse to the
// loops it unrolls, bit for bit, at condition numbers 1 to 10¹².
func TestCholeskyInverse8MatchesLoops(t *testing.T) {
	for seed := range uint64(13) {
		l := spdWithCondition(300+seed, 8, math.Pow(10, float64(seed)))
		if err := Cholesky(l, 8); err != nil {
			t.Fatal(err)
		}
		got, want, work := make([]float64, 64), make([]float64, 64), make([]float64, 64)
		choleskyInverse8(got, l)
		choleskyInverseSmall(want, l, 8, work)
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("cond 1e%d: inv[%d][%d] = %v, loops %v", seed, i/8, i%8, got[i], want[i])
			}
		}
	}
}
