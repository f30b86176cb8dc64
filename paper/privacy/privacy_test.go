package privacy

import (
	"strings"
	"testing"

	"github.com/dpmc/dpmc/noise/laplace"
	"github.com/dpmc/dpmc/solver"
)

func TestPaperReportGuaranteesNothing(t *testing.T) {
	b, _ := laplace.New(1)
	opts := solver.Options{Algorithm: solver.IRLS, Rank: 3, Lambda: 0.5, Iters: 10, IRLSIters: 2, Threshold: 3, Noise: b}
	r, err := Paper(opts, 5, 7, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(r.Notes, " ")
	if r.Guarantee != "none" || r.CoversGram || r.Unit != "rating" || r.ReleasesPerUser != 10*2*7 || *r.PerReleaseEpsilon != 5 ||
		!strings.Contains(notes, "NOT a guarantee") || !strings.Contains(notes, "Gram matrix") {
		t.Errorf("paper report %+v", r)
	}
}

func TestErrors(t *testing.T) {
	plain := solver.Options{Algorithm: solver.ALS, Rank: 2, Lambda: 1, Iters: 2}
	if _, err := Paper(plain, 5, 7, 1e-6); err == nil {
		t.Error("paper report without noise")
	}
}
