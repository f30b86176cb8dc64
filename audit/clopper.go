package audit

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/dpmc/dpmc/internal/check"
)

// ClopperPearson returns the exact (Clopper–Pearson) two-sided confidence
// interval [lo, hi] at level confidence for a binomial proportion, from k
// successes in n trials: each end misses the true proportion with
// probability at most (1 − confidence)/2. It returns an error naming the
// argument if n < 1, k is not in [0, n] or confidence is not in (0, 1).
func ClopperPearson(k, n int, confidence float64) (lo, hi float64, err error) {
	if err := check.InRange("trials n", float64(n), 1, math.MaxInt64); err != nil {
		return 0, 0, err
	}
	if err := check.InRange("successes k", float64(k), 0, float64(n)); err != nil {
		return 0, 0, err
	}
	if err := check.Probability("confidence", confidence); err != nil {
		return 0, 0, err
	}
	lo, hi = cpInterval(k, n, (1-confidence)/2)
	return lo, hi, nil
}

// cpInterval is the Clopper–Pearson interval with tail probability tail on
// each side: the tail-quantile of Beta(k, n−k+1) and the (1−tail)-quantile
// of Beta(k+1, n−k), with the closed forms at k = 0 and k = n.
func cpInterval(k, n int, tail float64) (lo, hi float64) {
	fk, fn := float64(k), float64(n)
	switch {
	case k == 0:
		lo = 0
	case k == n:
		lo = math.Exp(math.Log(tail) / fn)
	default:
		lo = distuv.Beta{Alpha: fk, Beta: fn - fk + 1}.Quantile(tail)
	}
	switch {
	case k == n:
		hi = 1
	case k == 0:
		hi = -math.Expm1(math.Log(tail) / fn)
	default:
		hi = distuv.Beta{Alpha: fk + 1, Beta: fn - fk}.Quantile(1 - tail)
	}
	return lo, hi
}
