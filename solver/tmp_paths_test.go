package solver

import (
	"testing"

	"github.com/dpmc/dpmc/huber"
)

func TestTmpPaths(t *testing.T) {
	x, _ := loadML100k(t)
	noise, _ := huber.New(3, 1)
	o := Options{Algorithm: IRLS, Rank: 32, Lambda: 0.5, Iters: 50, Noise: noise, Seeded: true, Seed: 1, Workers: 1, IRLSIters: 20, Threshold: huber.PaperAlpha, Init: InitWarm}
	tr := prepared(t, x, o)
	for s := 0; s < 3; s++ {
		itemPhase(t, tr, tr.itemIRLS)
		var paths [4]int
		for _, w := range tr.pool {
			if w.irls != nil {
				for k, n := range w.irls.paths {
					paths[k] += n
				}
				w.irls.paths = [4]int{}
			}
		}
		t.Logf("paths %v", paths)
	}
	hist := map[int]int{}
	tot := 0
	for j := range x.Cols() {
		u, _ := x.Col(j)
		n := len(u)
		tot += n
		b := 1
		for b < n {
			b *= 2
		}
		hist[b]++
	}
	t.Logf("hist %v tot %d rows %d", hist, tot, tr.pool[0].rows())
}
