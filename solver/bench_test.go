package solver

import (
	"context"
	"fmt"
	"testing"

	"github.com/dpmc/dpmc/noise/huber"
	"github.com/dpmc/dpmc/rng"
)

// benchProblem is MovieLens 100k-sized: 943 users × 1682 items, 80 000
// observed ratings (5.04 %), as u1.base.
func benchProblem(b *testing.B) *Options {
	b.Helper()
	return &Options{Rank: 32, Lambda: 0.5, Iters: 1, Seeded: true, Seed: 1}
}

// BenchmarkALSIteration is one noisy ALS sweep (users, then items with
// Huber noise) at rank 32.
func BenchmarkALSIteration(b *testing.B) {
	p := problem(b, 943, 1682, 5, 80000.0/(943*1682))
	o := benchProblem(b)
	o.Noise, _ = huber.New(3, 1)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Train(context.Background(), p.Observed, *o); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIRLSIteration is one IRLS+Huber outer sweep with K = 20 inner
// iterations per item at rank 32.
func BenchmarkIRLSIteration(b *testing.B) {
	p := problem(b, 943, 1682, 5, 80000.0/(943*1682))
	o := benchProblem(b)
	o.Algorithm, o.IRLSIters, o.Threshold, o.Init = IRLS, 20, 3, InitPaper
	o.Noise, _ = huber.New(3, 1)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Train(context.Background(), p.Observed, *o); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUserLevelALSIteration is one user-level ALS sweep at the same
// size and rank: centred and clipped ratings (c = 3, B = 2), factors
// clipped to C = 1, Huber noise on both the Gram matrix and the vector,
// and the PSD projection. k = 1000 keeps every rating (as
// BenchmarkALSIteration does); k = 50 is a realistic cap.
func BenchmarkUserLevelALSIteration(b *testing.B) {
	p := problem(b, 943, 1682, 5, 80000.0/(943*1682))
	for _, k := range []int{1000, 50} {
		b.Run(fmt.Sprintf("k=%d", k), func(b *testing.B) {
			o := benchProblem(b)
			o.Noise, _ = huber.New(3, 1)
			o.UserLevel = &UserLevel{Center: 3, Bound: 2, MaxUserRatings: k, ClipNorm: 1}
			for b.Loop() {
				if _, err := Train(context.Background(), p.Observed, *o); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkProjectPSD32 is one PSD projection of a noisy rank-32 Gram
// matrix (standard normal entries plus λ = 0.5 on the diagonal, so about
// half the eigenvalues are clamped): the per-item cost user-level mode adds.
func BenchmarkProjectPSD32(b *testing.B) {
	const n = 32
	g := rng.Seeded(1)
	in := make([]float64, n*n)
	for i := range n {
		for j := range i + 1 {
			in[i*n+j] = g.NormFloat64()
		}
		in[i*n+i] += 0.5
	}
	p, a := newPSD(n), make([]float64, n*n)
	b.ReportAllocs()
	for b.Loop() {
		copy(a, in)
		p.project(a, 0.5)
	}
}
