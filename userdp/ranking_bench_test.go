package userdp

import (
	"context"
	"math"
	"testing"

	"github.com/dpmc/dpmc/synthetic"
)

// BenchmarkTrainRanking times one ranking run on the MovieLens-1M-shaped
// generator (6 040 users, about 1 M ratings) with private selection, the
// discrete sampler from crypto/rand (a real release), at ε = 10 (the head
// rule then gives the largest M) and without noise (M = 1000):
//
//	go test ./userdp -run '^$' -bench TrainRanking -benchtime 1x -count 3
func BenchmarkTrainRanking(b *testing.B) {
	d, err := synthetic.DefaultRealistic(6040, 1).Generate()
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%d ratings", d.Ratings.Len())
	for _, bc := range []struct {
		name string
		eps  float64
	}{{"eps10", 10}, {"nonoise", math.Inf(1)}} {
		b.Run(bc.name, func(b *testing.B) {
			o := Defaults(bc.eps, 1e-6, d.Min, d.Max)
			o.Objective = ObjectiveRanking
			o.Positive = DefaultPositive(d.Min, d.Max)
			for b.Loop() {
				res, err := Train(context.Background(), d, o)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(res.Ranking.Head()), "M")
				b.ReportMetric(float64(res.Ranking.K), "k")
			}
		})
	}
}
