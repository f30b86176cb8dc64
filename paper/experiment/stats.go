package experiment

import (
	"maps"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// Cell summarizes the trials of one setting.
type Cell struct {
	Key Key
	// RMSE holds each trial's result by trial index.
	RMSE map[int]float64
	// N, Mean and SD (n − 1 denominator) of the trials' RMSE; Lo and Hi
	// the 95 % Student-t confidence interval of the mean (NaN for N < 2).
	N        int
	Mean, SD float64
	Lo, Hi   float64
	// Paper is the paper's figure, NaN if none (vanilla cells have no
	// variance, so their figure depends on the row shown: see PaperRMSE).
	Paper float64
}

// Summarize groups trials into cells, in order of first appearance.
func Summarize(trials []Trial) []*Cell {
	var cells []*Cell
	index := map[Key]*Cell{}
	for k := range trials {
		t := &trials[k]
		key := t.Key()
		c, ok := index[keyID(key)]
		if !ok {
			c = &Cell{Key: key, RMSE: map[int]float64{}, Paper: math.NaN()}
			if p, ok := PaperRMSE(key.Table, key.Rank, key.Variance, key.Observed, key.Algo, key.Mechanism); ok {
				c.Paper = p
			}
			index[keyID(key)] = c
			cells = append(cells, c)
		}
		c.RMSE[t.Trial] = t.RMSE
	}
	for _, c := range cells {
		xs := make([]float64, 0, len(c.RMSE))
		for _, i := range slices.Sorted(maps.Keys(c.RMSE)) {
			xs = append(xs, c.RMSE[i])
		}
		c.N = len(xs)
		c.Mean, c.SD, c.Lo, c.Hi = meanCI(xs)
	}
	return cells
}

// keyID makes NaN fields comparable, so a Key can index a map.
func keyID(k Key) Key {
	for _, f := range []*float64{&k.Variance, &k.Epsilon, &k.Alpha} {
		if math.IsNaN(*f) {
			*f = -1
		}
	}
	return k
}

// meanCI returns the mean, sample standard deviation and 95 % Student-t
// confidence interval of xs; the last three are NaN for fewer than two.
func meanCI(xs []float64) (mean, sd, lo, hi float64) {
	n := float64(len(xs))
	if n == 0 {
		return math.NaN(), math.NaN(), math.NaN(), math.NaN()
	}
	for _, x := range xs {
		mean += x
	}
	mean /= n
	if n < 2 {
		return mean, math.NaN(), math.NaN(), math.NaN()
	}
	for _, x := range xs {
		sd += (x - mean) * (x - mean)
	}
	sd = math.Sqrt(sd / (n - 1))
	h := tQuantile(n-1) * sd / math.Sqrt(n)
	return mean, sd, mean - h, mean + h
}

// tQuantile is the 97.5 % quantile of Student's t with df degrees of
// freedom.
func tQuantile(df float64) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(0.975)
}

// Diff is the paired comparison of two cells over the trial indexes they
// share: the mean of b − a with its 95 % confidence interval.
type Diff struct {
	N                int
	Mean, Lo, Hi     float64
	BetterA, BetterB bool // the interval excludes 0 on a's (b's) side
}

// Paired compares cells a and b trial by trial. Every cell of one trial
// index shares data and noise stream, so the paired difference removes
// what they have in common.
func Paired(a, b *Cell) Diff {
	var ds []float64
	for _, i := range slices.Sorted(maps.Keys(a.RMSE)) {
		if y, ok := b.RMSE[i]; ok {
			ds = append(ds, y-a.RMSE[i])
		}
	}
	var d Diff
	d.N = len(ds)
	d.Mean, _, d.Lo, d.Hi = meanCI(ds)
	d.BetterA = d.Lo > 0 // b − a > 0: a has the lower RMSE
	d.BetterB = d.Hi < 0
	return d
}
