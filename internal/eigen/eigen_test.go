package eigen

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"
)

// sym returns an n × n symmetric matrix (row-major, both triangles) with
// entries from f(i, j), i ≥ j.
func sym(n int, f func(i, j int) float64) []float64 {
	a := make([]float64, n*n)
	for i := range n {
		for j := 0; j <= i; j++ {
			a[i*n+j] = f(i, j)
			a[j*n+i] = a[i*n+j]
		}
	}
	return a
}

// wigner returns a symmetric matrix of N(0, 1) entries plus the spikes
// Σ s·uuᵀ along random unit vectors u, from seed: the shape of dpmc's
// noisy Gram matrices.
func wigner(n int, seed uint64, spikes ...float64) []float64 {
	r := rand.New(rand.NewPCG(seed, 1))
	a := sym(n, func(i, j int) float64 { return r.NormFloat64() })
	for _, s := range spikes {
		u := make([]float64, n)
		for i := range u {
			u[i] = r.NormFloat64()
		}
		scale(u)
		for i := range n {
			for j := 0; j <= i; j++ {
				a[i*n+j] += s * u[i] * u[j]
				a[j*n+i] = a[i*n+j] // exactly symmetric
			}
		}
	}
	return a
}

// TestTop checks Top against gonum's full mat.EigenSym: the same k
// largest eigenvalues, and vectors that are orthonormal with a residual
// ‖Av − λv‖ at rounding level, each signed so that its entry of largest
// magnitude is positive — including repeated eigenvalues (any orthonormal
// basis of their space is right), a split tridiagonal form and the zero
// matrix.
func TestTop(t *testing.T) {
	for _, tc := range []struct {
		name string
		n, k int
		a    []float64
	}{
		{"order 1", 1, 1, []float64{-2.5}},
		{"order 2", 2, 2, []float64{1, 2, 2, -1}},
		{"random 5, all", 5, 5, wigner(5, 1)},
		{"random 50, top 7", 50, 7, wigner(50, 2)},
		{"spiked 300, top 4", 300, 4, wigner(300, 3, 400, 250, 120, 60)},
		{"spiked 1000, top 16", 1000, 16, wigner(1000, 4, 3000, 2000, 1000, 500, 200)},
		{"identity", 10, 3, sym(10, func(i, j int) float64 { return b2f(i == j) })},
		{"repeated top", 8, 4, sym(8, func(i, j int) float64 { return b2f(i == j) * []float64{3, 1, 3, 0, 3, -2, 1, 3}[i] })},
		{"two blocks", 6, 3, sym(6, func(i, j int) float64 {
			if (i < 3) != (j < 3) {
				return 0
			}
			return 1 / float64(i+j+1)
		})},
		{"zero", 4, 2, make([]float64, 16)},
		{"negative definite", 30, 5, sym(30, func(i, j int) float64 { return -1 / float64(i+j+1) })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vals, vecs, err := Top(blas.Lower, tc.a, tc.n, tc.k)
			if err != nil {
				t.Fatal(err)
			}
			var es mat.EigenSym
			if !es.Factorize(mat.NewSymDense(tc.n, slices.Clone(tc.a)), false) {
				t.Fatal("gonum failed")
			}
			want := es.Values(nil)
			var norm float64
			for _, x := range want {
				norm = math.Max(norm, math.Abs(x))
			}
			tol := 1e-12 * float64(tc.n) * math.Max(norm, 1)
			for c := range tc.k {
				if d := math.Abs(vals[c] - want[tc.n-1-c]); d > tol {
					t.Errorf("eigenvalue %d: %v, gonum %v", c, vals[c], want[tc.n-1-c])
				}
				// Residual ‖Av − λv‖ and orthonormality.
				var res float64
				for i := range tc.n {
					s := -vals[c] * vecs[i*tc.k+c]
					for j := range tc.n {
						s += tc.a[i*tc.n+j] * vecs[j*tc.k+c]
					}
					res += s * s
				}
				if math.Sqrt(res) > tol {
					t.Errorf("vector %d: residual %.3g, want ≤ %.3g", c, math.Sqrt(res), tol)
				}
				for q := 0; q <= c; q++ {
					var dot float64
					for i := range tc.n {
						dot += vecs[i*tc.k+c] * vecs[i*tc.k+q]
					}
					if math.Abs(dot-b2f(q == c)) > 1e-10 {
						t.Errorf("vectors %d, %d: dot %v", c, q, dot)
					}
				}
			}
			for c := range tc.k { // the sign convention
				big := 0.0
				for i := range tc.n {
					if x := vecs[i*tc.k+c]; math.Abs(x) > math.Abs(big) {
						big = x
					}
				}
				if big < 0 {
					t.Errorf("vector %d: its entry of largest magnitude is %v, want it positive", c, big)
				}
			}
			v2, z2, _ := Top(blas.Lower, tc.a, tc.n, tc.k)
			if !slices.Equal(vals, v2) || !slices.Equal(vecs, z2) {
				t.Error("two calls differ")
			}
		})
	}
}

// check asserts that vals and vecs (n × k) are k eigenpairs of the
// symmetric a: residual ‖Av − λv‖ ≤ tol, orthonormal columns, each
// signed by its largest entry, the eigenvalues descending.
func check(t *testing.T, a []float64, n, k int, vals, vecs []float64, tol float64) {
	t.Helper()
	for c := range k {
		if c > 0 && vals[c] > vals[c-1] {
			t.Errorf("eigenvalues %d, %d ascend: %v, %v", c-1, c, vals[c-1], vals[c])
		}
		var big float64
		res := make([]float64, n) // Av − λv
		for i := range n {
			res[i] = -vals[c] * vecs[i*k+c]
			for j := range n {
				res[i] += a[i*n+j] * vecs[j*k+c]
			}
			if x := vecs[i*k+c]; math.Abs(x) > math.Abs(big) {
				big = x
			}
		}
		if r := norm2(res); !(r <= tol) {
			t.Errorf("vector %d: residual %.3g, want ≤ %.3g", c, r, tol)
		}
		if big < 0 {
			t.Errorf("vector %d: its entry of largest magnitude is %v, want it positive", c, big)
		}
		for q := 0; q <= c; q++ {
			var dot float64
			for i := range n {
				dot += vecs[i*k+c] * vecs[i*k+q]
			}
			if !(math.Abs(dot-b2f(q == c)) <= 1e-10) {
				t.Errorf("vectors %d, %d: dot %v", c, q, dot)
			}
		}
	}
}

// TestTopDegenerate checks matrices that gonum's own decomposition gets
// wrong or panics on, with their known eigenvalues: low rank (Dsytrd
// leaves blocks of nearly zero norm, which gonum v0.17.0's Dsterf cannot
// rescale), huge clusters of equal eigenvalues, and entries near the ends
// of float64's range.
func TestTopDegenerate(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 1))
	x01 := make([]float64, 300) // a 0/1 vector: xxᵀ is a 0/1 Gram of rank 1
	var x2 float64
	for i := range x01 {
		if r.IntN(3) == 0 {
			x01[i] = 1
			x2++
		}
	}
	ones := func(n int) []float64 { return sym(n, func(i, j int) float64 { return 1 }) }
	scaled := func(f float64) []float64 {
		a := wigner(40, 12, 30)
		for i := range a {
			a[i] *= f
		}
		return a
	}
	for _, tc := range []struct {
		name string
		n, k int
		a    []float64
		top  []float64 // known leading eigenvalues, then zeros (nil: by gonum on the matrix ×2⁶⁰⁰ or ×2⁻⁶⁰⁰)
		norm float64
	}{
		{"all ones, 1000, top 16", 1000, 16, ones(1000), []float64{1000}, 1000},
		{"all ones, 200, all", 200, 200, ones(200), []float64{200}, 200},
		{"rank-one 0/1 Gram, 300, top 16", 300, 16, sym(300, func(i, j int) float64 { return x01[i] * x01[j] }), []float64{x2}, x2},
		{"tiny off-diagonal", 2, 2, []float64{0, 1e-300, 1e-300, 0}, []float64{1e-300, -1e-300}, 1e-300},
		{"scaled by 2⁻⁶⁰⁰", 40, 5, scaled(0x1p-600), nil, 0},
		{"scaled by 2⁶⁰⁰", 40, 5, scaled(0x1p600), nil, 0},
		{"scaled by 1e-150", 40, 5, scaled(1e-150), nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vals, vecs, err := Top(blas.Lower, tc.a, tc.n, tc.k)
			if err != nil {
				t.Fatal(err)
			}
			want := make([]float64, tc.k)
			norm := tc.norm
			if tc.top == nil { // gonum on the same matrix brought to unit scale
				f := 1 / math.Abs(tc.a[0])
				b := slices.Clone(tc.a)
				for i := range b {
					b[i] *= f
				}
				var es mat.EigenSym
				if !es.Factorize(mat.NewSymDense(tc.n, b), false) {
					t.Fatal("gonum failed")
				}
				all := es.Values(nil)
				for c := range tc.k {
					want[c] = all[tc.n-1-c] / f
					norm = math.Max(norm, math.Abs(want[c]))
				}
			} else {
				copy(want, tc.top)
			}
			for c := range tc.k {
				if math.Abs(vals[c]-want[c]) > 1e-12*float64(tc.n)*norm {
					t.Errorf("eigenvalue %d: %v, want %v", c, vals[c], want[c])
				}
			}
			check(t, tc.a, tc.n, tc.k, vals, vecs, 1e-12*float64(tc.n)*norm)
		})
	}
}

// TestTopReadsOneTriangle checks that only the triangle uplo names is
// read (the other is NaN here), with the same result from either, and
// that a is left as it was.
func TestTopReadsOneTriangle(t *testing.T) {
	const n = 20
	a := wigner(n, 5, 50)
	want, wantVecs, err := Top(blas.Lower, a, n, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, uplo := range []blas.Uplo{blas.Lower, blas.Upper} {
		b := slices.Clone(a)
		for i := range n {
			for j := range n {
				if uplo == blas.Lower && j > i || uplo == blas.Upper && j < i {
					b[i*n+j] = math.NaN()
				}
			}
		}
		c := slices.Clone(b)
		vals, vecs, err := Top(uplo, b, n, 3)
		if err != nil {
			t.Fatalf("%c: %v", uplo, err)
		}
		if !slices.Equal(vals, want) || !slices.Equal(vecs, wantVecs) {
			t.Errorf("%c: not the result of the whole matrix", uplo)
		}
		for i := range c {
			if math.Float64bits(b[i]) != math.Float64bits(c[i]) {
				t.Fatalf("%c: a[%d] changed", uplo, i)
			}
		}
	}
}

func TestTopErrors(t *testing.T) {
	nan := []float64{1, 0, math.NaN(), 1}
	for _, tc := range []struct {
		a    []float64
		n, k int
		want string
	}{
		{nil, 0, 1, "order 0"},
		{[]float64{1, 0, 0, 1}, 2, 3, "3 eigenpairs of an order-2 matrix"},
		{[]float64{1, 0, 0, 1}, 2, 0, "0 eigenpairs"},
		{[]float64{1, 0, 0}, 2, 1, "3 entries"},
		{nan, 2, 1, "entry (1, 0) is NaN"},
		{[]float64{math.Inf(1)}, 1, 1, "entry (0, 0) is +Inf"},
	} {
		if _, _, err := Top(blas.Lower, tc.a, tc.n, tc.k); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Top(%v, %d, %d): %v, want %q", tc.a, tc.n, tc.k, err, tc.want)
		}
	}
}

func TestTopUplo(t *testing.T) {
	if _, _, err := Top(blas.All, []float64{1}, 1, 1); err == nil || !strings.Contains(err.Error(), "want blas.Upper or blas.Lower") {
		t.Errorf("blas.All: %v", err)
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// BenchmarkTop compares Top with gonum's full decomposition at the sizes
// dpmc uses: the rating model's start (300, rank 4) and the ranking
// model's Gram (1 000, 16 components).
func BenchmarkTop(b *testing.B) {
	for _, bc := range []struct {
		name string
		n, k int
	}{{"n=300/k=4", 300, 4}, {"n=1000/k=16", 1000, 16}} {
		a := wigner(bc.n, 9, 10*float64(bc.n))
		b.Run("impl=top/"+bc.name, func(b *testing.B) {
			for b.Loop() {
				if _, _, err := Top(blas.Lower, a, bc.n, bc.k); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("impl=gonum/"+bc.name, func(b *testing.B) {
			s := mat.NewSymDense(bc.n, a)
			for b.Loop() {
				var es mat.EigenSym
				es.Factorize(s, true)
			}
		})
	}
}
