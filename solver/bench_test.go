package solver

import (
	"context"
	"testing"

	"github.com/dpmc/dpmc/noise/huber"
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
