package dense

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dpmc/dpmc/internal/asm/f64"
	"github.com/dpmc/dpmc/internal/procstat"
	"github.com/dpmc/dpmc/rng"
)

// forEachImpl runs f with each kernel implementation this machine has
// (generic, and AVX2 and AVX-512 where present).
func forEachImpl(t *testing.T, f func(t *testing.T)) {
	for _, impl := range f64.Available() {
		t.Run(impl.String(), func(t *testing.T) {
			defer f64.Use(f64.Use(impl))
			f(t)
		})
	}
}

// TestCholeskySolveAgainstGonum builds λI + Σ w xxᵀ with AddOuter and checks
// the solve against gonum's dense solver.
func TestCholeskySolveAgainstGonum(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		r := rng.Seeded(1)
		for _, n := range []int{1, 2, 5, 8, 9, 16, 17, 32, 33, 64, 67, 260} {
			a := make([]float64, n*n)
			SetRidge(a, n, 0.5)
			full := mat.NewDense(n, n, nil)
			for i := range n {
				full.Set(i, i, 0.5)
			}
			x := make([]float64, n)
			for range 3 * n {
				for i := range x {
					x[i] = r.NormFloat64()
				}
				w := r.Float64()
				AddOuter(a, n, w, x)
				xv := mat.NewVecDense(n, append([]float64(nil), x...))
				full.RankOne(full, w, xv, xv)
			}
			b := make([]float64, n)
			for i := range b {
				b[i] = r.NormFloat64()
			}
			var want mat.VecDense
			if err := want.SolveVec(full, mat.NewVecDense(n, append([]float64(nil), b...))); err != nil {
				t.Fatal(err)
			}
			if err := CholeskySolve(a, n, b); err != nil {
				t.Fatalf("n=%d: %v", n, err)
			}
			for i := range n {
				if math.Abs(b[i]-want.AtVec(i)) > 1e-9*math.Max(1, math.Abs(want.AtVec(i))) {
					t.Errorf("n=%d: x[%d] = %v, gonum %v", n, i, b[i], want.AtVec(i))
				}
			}
		}
	})
}

// TestCholeskyFactor checks the factor itself against gonum's, and that
// the strict upper triangle is neither read nor written.
func TestCholeskyFactor(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		g := rng.Seeded(2)
		for _, n := range []int{1, 3, 8, 12, 31, 40, 64} {
			sym := mat.NewSymDense(n, nil)
			a := make([]float64, n*n)
			block := make([]float64, 2*n*n)
			for i := range block {
				block[i] = g.NormFloat64()
			}
			SetRidge(a, n, 1)
			SyrkLower(a, n, block, nil)
			for i := range n {
				for j := range i + 1 {
					sym.SetSym(i, j, a[i*n+j])
				}
				for j := i + 1; j < n; j++ {
					a[i*n+j] = math.NaN()
				}
			}
			var chol mat.Cholesky
			if !chol.Factorize(sym) {
				t.Fatalf("n=%d: gonum says not positive definite", n)
			}
			var l mat.TriDense
			chol.LTo(&l)
			if err := Cholesky(a, n); err != nil {
				t.Fatalf("n=%d: %v", n, err)
			}
			for i := range n {
				for j := range n {
					got := a[i*n+j]
					if j > i {
						if !math.IsNaN(got) {
							t.Fatalf("n=%d: upper triangle (%d, %d) written", n, i, j)
						}
						continue
					}
					if want := l.At(i, j); math.Abs(got-want) > 1e-11*math.Max(1, math.Abs(want)) {
						t.Errorf("n=%d: L[%d][%d] = %v, gonum %v", n, i, j, got, want)
					}
				}
			}
		}
	})
}

func TestCholeskyRejectsIndefinite(t *testing.T) {
	tests := [][]float64{
		{0},
		{-1},
		{1, 0, 2, 1}, // [[1,2],[2,1]] has a negative eigenvalue
		{math.NaN()},
		{math.Inf(1)},
	}
	// Larger ones, past the first panel: I with one entry spoiled.
	for _, n := range []int{9, 20, 40} {
		for _, bad := range []float64{-1, math.NaN(), math.Inf(1)} {
			a := make([]float64, n*n)
			SetRidge(a, n, 1)
			a[(n-1)*n+n-1] = bad
			tests = append(tests, a)
			a = append([]float64(nil), a...)
			a[(n-1)*n+n-1] = 1
			a[(n-1)*n+3] = bad * 10 // below the diagonal
			tests = append(tests, a)
		}
	}
	forEachImpl(t, func(t *testing.T) {
		for _, a := range tests {
			n := int(math.Sqrt(float64(len(a))))
			b := make([]float64, n)
			if err := CholeskySolve(append([]float64(nil), a...), n, b); !errors.Is(err, ErrNotPositiveDefinite) {
				t.Errorf("CholeskySolve(%d × %d) err = %v, want ErrNotPositiveDefinite", n, n, err)
			}
		}
	})
}

// TestSolveCholeskyReusesFactor solves two right-hand sides with one
// factorization.
func TestSolveCholeskyReusesFactor(t *testing.T) {
	const n = 20
	g := rng.Seeded(3)
	a := make([]float64, n*n)
	block := make([]float64, 30*n)
	for i := range block {
		block[i] = g.NormFloat64()
	}
	SetRidge(a, n, 0.1)
	SyrkLower(a, n, block, nil)
	orig := append([]float64(nil), a...)
	if err := Cholesky(a, n); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		b := make([]float64, n)
		for i := range b {
			b[i] = g.NormFloat64()
		}
		x := append([]float64(nil), b...)
		SolveCholesky(a, n, x)
		// Residual of the original (lower triangle, mirrored) system.
		for i := range n {
			s := -b[i]
			for j := range n {
				s += orig[max(i, j)*n+min(i, j)] * x[j]
			}
			if math.Abs(s) > 1e-10 {
				t.Errorf("residual[%d] = %v", i, s)
			}
		}
	}
}

// TestSyrkLowerMatchesAddOuter checks the block Gram matrix against one
// AddOuter per row, with and without weights, and that SyrkLower leaves
// the strict upper triangle alone.
func TestSyrkLowerMatchesAddOuter(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		g := rng.Seeded(4)
		for n := range 68 {
			for _, k := range []int{0, 1, 5, 33, 700} {
				for _, weighted := range []bool{false, true} {
					if n == 0 && k > 0 {
						continue
					}
					block := make([]float64, k*n)
					for i := range block {
						block[i] = g.NormFloat64()
					}
					var w []float64
					if weighted {
						w = make([]float64, k)
						for p := range w {
							w[p] = g.Float64()
						}
					}
					got, want := make([]float64, n*n), make([]float64, n*n)
					for i := range n {
						for j := i + 1; j < n; j++ {
							got[i*n+j] = 7 // the strict upper triangle
						}
					}
					for p := range k {
						wp := 1.0
						if w != nil {
							wp = w[p]
						}
						AddOuter(want, n, wp, block[p*n:p*n+n])
					}
					SyrkLower(got, n, block, w)
					for i := range n {
						for j := range n {
							if j > i {
								if got[i*n+j] != 7 {
									t.Fatalf("n=%d k=%d: upper triangle (%d, %d) written", n, k, i, j)
								}
							} else if d := math.Abs(got[i*n+j] - want[i*n+j]); d > 1e-12*float64(k+1) {
								t.Errorf("n=%d k=%d weighted=%v: (%d, %d) = %v, AddOuter %v", n, k, weighted, i, j, got[i*n+j], want[i*n+j])
							}
						}
					}
				}
			}
		}
	})
}

func TestGatherMulVec(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		g := rng.Seeded(5)
		const n, rows = 7, 12
		src := make([]float64, rows*n)
		for i := range src {
			src[i] = g.NormFloat64()
		}
		idx := []int32{3, 0, 11, 3, 5}
		block := Gather(make([]float64, 10*n), src, n, idx)
		if len(block) != len(idx)*n {
			t.Fatalf("Gather returned %d values, want %d", len(block), len(idx)*n)
		}
		x := make([]float64, n)
		for i := range x {
			x[i] = g.NormFloat64()
		}
		y := make([]float64, len(idx))
		MulVec(y, block, n, x)
		rhs, want := make([]float64, n), make([]float64, n)
		AddMulTransVec(rhs, block, n, y)
		for p, r := range idx {
			row := src[int(r)*n : int(r)*n+n]
			if d := y[p] - Dot(row, x); math.Abs(d) > 1e-12 {
				t.Errorf("MulVec[%d] off by %v", p, d)
			}
			Axpy(want, y[p], row)
		}
		for j := range n {
			if d := rhs[j] - want[j]; math.Abs(d) > 1e-12 {
				t.Errorf("AddMulTransVec[%d] off by %v", j, d)
			}
		}
	})
}

// BenchmarkNormalEquations32 builds and solves one row's normal equations
// at rank 32 from 50 ratings, one AddOuter and Axpy per rating.
func BenchmarkNormalEquations32(b *testing.B) {
	const n, k = 32, 50 // rank 32, 50 ratings per row
	r := rng.Seeded(1)
	xs := make([]float64, k*n)
	for i := range xs {
		xs[i] = r.NormFloat64()
	}
	a := make([]float64, n*n)
	rhs := make([]float64, n)
	b.ReportAllocs()
	for b.Loop() {
		SetRidge(a, n, 0.5)
		clear(rhs)
		for p := range k {
			AddOuter(a, n, 1, xs[p*n:(p+1)*n])
			Axpy(rhs, 1, xs[p*n:(p+1)*n])
		}
		if err := CholeskySolve(a, n, rhs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNormalEquations builds and solves one row's normal equations
// from 50 ratings, the block way (Gather, SyrkLower, AddMulTransVec, then
// CholeskySolve), at ranks 8, 32 and 64; flops as the solver counts them:
// k·(n(n+1) + 2n) + n³/3 + 2n².
func BenchmarkNormalEquations(b *testing.B) {
	const k = 50
	for _, n := range []int{8, 32, 64} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			r := rng.Seeded(1)
			src := make([]float64, 1000*n)
			for i := range src {
				src[i] = r.NormFloat64()
			}
			idx, y := make([]int32, k), make([]float64, k)
			for p := range idx {
				idx[p] = int32(r.IntN(1000))
				y[p] = r.NormFloat64()
			}
			block := make([]float64, k*n)
			a, rhs := make([]float64, n*n), make([]float64, n)
			b.ReportAllocs()
			for b.Loop() {
				SetRidge(a, n, 0.5)
				clear(rhs)
				blk := Gather(block, src, n, idx)
				SyrkLower(a, n, blk, nil)
				AddMulTransVec(rhs, blk, n, y)
				if err := CholeskySolve(a, n, rhs); err != nil {
					b.Fatal(err)
				}
			}
			nf := float64(n)
			flops := k*(nf*(nf+1)+2*nf) + nf*nf*nf/3 + 2*nf*nf
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// startCPU starts measuring the process's CPU time for a benchmark loop;
// the function it returns, called after the loop with the flops of one
// operation, reports GFLOP/s of wall time and, where the CPU time is
// available, CPU ns per operation and GFLOP per CPU second: on a shared
// machine the CPU time is the steadier figure, since the time the process
// waits for a core is not in it.
func startCPU() func(b *testing.B, flops float64) {
	cpu0, ok := procstat.CPUTime()
	return func(b *testing.B, flops float64) {
		b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		if cpu1, _ := procstat.CPUTime(); ok {
			cpu := (cpu1 - cpu0).Seconds()
			b.ReportMetric(cpu*1e9/float64(b.N), "cpu-ns/op")
			b.ReportMetric(flops*float64(b.N)/cpu/1e9, "GFLOP/cpu-s")
		}
	}
}

// benchSizes are the ranks the factorization benchmarks run at.
var benchSizes = []int{8, 16, 32, 64}

// BenchmarkCholesky factors an n × n positive definite matrix; n³/3
// flops.
func BenchmarkCholesky(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			r := rng.Seeded(1)
			block := make([]float64, 2*n*n)
			for i := range block {
				block[i] = r.NormFloat64()
			}
			orig := make([]float64, n*n)
			SetRidge(orig, n, 1)
			SyrkLower(orig, n, block, nil)
			a := make([]float64, n*n)
			b.ReportAllocs()
			done := startCPU()
			for b.Loop() {
				copy(a, orig)
				if err := Cholesky(a, n); err != nil {
					b.Fatal(err)
				}
			}
			nf := float64(n)
			done(b, nf*nf*nf/3)
		})
	}
}

// TestCholeskyInverse checks inv·A = I for the inverse from the factor,
// and that it is symmetric.
func TestCholeskyInverse(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		g := rng.Seeded(6)
		for _, n := range []int{1, 2, 5, 8, 13, 32, 33} {
			a := make([]float64, n*n)
			block := make([]float64, 3*n*n)
			for i := range block {
				block[i] = g.NormFloat64()
			}
			SetRidge(a, n, 0.5)
			SyrkLower(a, n, block, nil)
			orig := append([]float64(nil), a...)
			if err := Cholesky(a, n); err != nil {
				t.Fatal(err)
			}
			inv, work := make([]float64, n*n), make([]float64, n*n)
			CholeskyInverse(inv, a, n, work)
			for i := range n {
				for j := range n {
					if inv[i*n+j] != inv[j*n+i] {
						t.Fatalf("n=%d: inverse not symmetric at (%d, %d)", n, i, j)
					}
					var s float64
					for k := range n {
						s += inv[i*n+k] * orig[max(k, j)*n+min(k, j)]
					}
					want := 0.0
					if i == j {
						want = 1
					}
					if math.Abs(s-want) > 1e-10 {
						t.Errorf("n=%d: (inv·A)[%d][%d] = %v, want %v", n, i, j, s, want)
					}
				}
			}
		}
	})
}

// BenchmarkSolveCholesky solves with an n × n factor; 2n² flops.
func BenchmarkSolveCholesky(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			r := rng.Seeded(1)
			block := make([]float64, 2*n*n)
			for i := range block {
				block[i] = r.NormFloat64()
			}
			a := make([]float64, n*n)
			SetRidge(a, n, 1)
			SyrkLower(a, n, block, nil)
			if err := Cholesky(a, n); err != nil {
				b.Fatal(err)
			}
			x := make([]float64, n)
			done := startCPU()
			for b.Loop() {
				for i := range x {
					x[i] = 1
				}
				SolveCholesky(a, n, x)
			}
			done(b, 2*float64(n*n))
		})
	}
}

// BenchmarkCholeskyInverse inverts from an n × n factor (2n³/3 flops),
// and then (op "mulvec") solves by one product with the inverse: the two
// ways of serving many right-hand sides that SolveCholesky competes with.
func BenchmarkCholeskyInverse(b *testing.B) {
	for _, n := range benchSizes {
		r := rng.Seeded(1)
		block := make([]float64, 2*n*n)
		for i := range block {
			block[i] = r.NormFloat64()
		}
		a := make([]float64, n*n)
		SetRidge(a, n, 1)
		SyrkLower(a, n, block, nil)
		if err := Cholesky(a, n); err != nil {
			b.Fatal(err)
		}
		inv, work := make([]float64, n*n), make([]float64, n*n)
		b.Run(fmt.Sprintf("op=invert/n=%d", n), func(b *testing.B) {
			done := startCPU()
			for b.Loop() {
				CholeskyInverse(inv, a, n, work)
			}
			nf := float64(n)
			done(b, 2*nf*nf*nf/3)
		})
		x, y := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i] = 1
		}
		b.Run(fmt.Sprintf("op=mulvec/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				MulVec(y, inv, n, x)
			}
			b.ReportMetric(2*float64(n*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
