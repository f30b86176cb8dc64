package synthetic

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/dpmc/dpmc/ratings"
)

// Stats are the public statistics of a ratings matrix that the realistic
// generator is fitted to (docs/generator.md): its shape, rating
// histogram, activity and popularity laws, the correlation of activity
// and popularity with rating level, and what is left after biases — its
// size, its spectrum and how it spreads over users.
type Stats struct {
	Users, Items, Ratings int // users and items with at least one rating
	Mean                  float64
	// Hist[k] is the fraction of ratings that round to k+1 stars (1–5).
	Hist [5]float64
	// Activity (ratings per user) and popularity (ratings per item):
	// minimum, median, mean, 90th percentile, maximum and Gini index.
	Activity, Popularity Law
	// ActivityCorr is the correlation, over users, between log activity
	// and the user's mean rating; PopularityCorr the same over items.
	ActivityCorr, PopularityCorr float64
	// BiasRMSE is the in-sample RMSE of a ridge bias model μ + b_u + b_i
	// (λ = 5 on both sides, 10 alternations): the size of the residual.
	BiasRMSE float64
	// Spectrum[k] is the fraction of the residual's squared Frobenius
	// norm (missing entries zero) in its k+1 leading singular values,
	// k < len(Spectrum).
	Spectrum []float64
	// UserSD is the median over users with at least 20 ratings of the SD
	// of their residuals, UserSDSpread the SD of the log of those SDs.
	UserSD, UserSDSpread float64
	// PopularitySlopeSD is the SD over users of their own slope on item
	// popularity: for each user with at least 20 ratings, the least-squares
	// slope of the user's residuals on the standardized log popularity
	// of the items rated; the SD of those slopes, less their mean
	// sampling variance (residual variance over Σ(x − x̄)²), in stars per
	// SD of log popularity. How much users differ in their taste for
	// popular over niche items beyond what biases say.
	PopularitySlopeSD float64
	// BiasSlopeSD is the same for the slope of a user's residuals on the
	// ridge item biases b_j, in stars per star: how much users differ in
	// how closely they follow the crowd's view of an item, beyond their
	// own bias.
	BiasSlopeSD float64
}

// Law summarises a count distribution.
type Law struct {
	Min, Median, Mean, P90, Max, Gini float64
}

func lawOf(c []float64) Law {
	x := slices.Clone(c)
	x = slices.DeleteFunc(x, func(v float64) bool { return v == 0 })
	if len(x) == 0 {
		return Law{}
	}
	slices.Sort(x)
	n := float64(len(x))
	var s, g float64
	for k, v := range x {
		s += v
		g += float64(2*(k+1)-len(x)-1) * v
	}
	q := func(p float64) float64 { return x[min(int(p*n), len(x)-1)] }
	med := x[len(x)/2]
	if len(x)%2 == 0 {
		med = (x[len(x)/2-1] + x[len(x)/2]) / 2
	}
	return Law{Min: x[0], Median: med, Mean: s / n, P90: q(0.9), Max: x[len(x)-1], Gini: g / (n * s)}
}

func corr(x, y []float64) float64 {
	var mx, my float64
	for k := range x {
		mx += x[k]
		my += y[k]
	}
	n := float64(len(x))
	mx /= n
	my /= n
	var sxy, sxx, syy float64
	for k := range x {
		sxy += (x[k] - mx) * (y[k] - my)
		sxx += (x[k] - mx) * (x[k] - mx)
		syy += (y[k] - my) * (y[k] - my)
	}
	return sxy / math.Sqrt(sxx*syy)
}

// Describe measures m's statistics; spectrum is how many leading
// singular values of the residual to report (0: none; the SVD is of a
// dense users × items matrix, so keep m small).
func Describe(m *ratings.Matrix, spectrum int) Stats {
	rows, cols := m.Rows(), m.Cols()
	var st Stats
	st.Ratings = m.Len()
	act := make([]float64, rows)
	pop := make([]float64, cols)
	usum := make([]float64, rows)
	isum := make([]float64, cols)
	var tot float64
	for t := range m.All() {
		act[t.User]++
		pop[t.Item]++
		usum[t.User] += t.Value
		isum[t.Item] += t.Value
		tot += t.Value
		k := min(max(int(math.Round(t.Value))-1, 0), 4)
		st.Hist[k]++
	}
	for k := range st.Hist {
		st.Hist[k] /= float64(st.Ratings)
	}
	st.Mean = tot / float64(st.Ratings)
	st.Activity, st.Popularity = lawOf(act), lawOf(pop)
	var la, ma, lp, mp []float64
	for i, n := range act {
		if n > 0 {
			st.Users++
			la = append(la, math.Log(n))
			ma = append(ma, usum[i]/n)
		}
	}
	for j, n := range pop {
		if n > 0 {
			st.Items++
			lp = append(lp, math.Log(n))
			mp = append(mp, isum[j]/n)
		}
	}
	st.ActivityCorr, st.PopularityCorr = corr(la, ma), corr(lp, mp)

	// Ridge biases by alternation.
	const lambda = 5
	mu := st.Mean
	bu, bi := make([]float64, rows), make([]float64, cols)
	for range 10 {
		clear(isum)
		for t := range m.All() {
			isum[t.Item] += t.Value - mu - bu[t.User]
		}
		for j := range bi {
			bi[j] = isum[j] / (pop[j] + lambda)
		}
		clear(usum)
		for t := range m.All() {
			usum[t.User] += t.Value - mu - bi[t.Item]
		}
		for i := range bu {
			bu[i] = usum[i] / (act[i] + lambda)
		}
	}
	var se float64
	uss := make([]float64, rows)
	for t := range m.All() {
		r := t.Value - mu - bu[t.User] - bi[t.Item]
		se += r * r
		uss[t.User] += r * r
	}
	st.BiasRMSE = math.Sqrt(se / float64(st.Ratings))
	var lsd []float64
	for i, n := range act {
		if n >= 20 {
			lsd = append(lsd, math.Log(math.Sqrt(uss[i]/n)))
		}
	}
	if len(lsd) > 0 {
		s := slices.Sorted(slices.Values(lsd))
		st.UserSD = math.Exp(s[len(s)/2])
		var m1, m2 float64
		for _, v := range lsd {
			m1 += v
			m2 += v * v
		}
		m1 /= float64(len(lsd))
		st.UserSDSpread = math.Sqrt(math.Max(m2/float64(len(lsd))-m1*m1, 0))
	}
	resid := func(t ratings.Triple) float64 { return t.Value - mu - bu[t.User] - bi[t.Item] }
	logPop := make([]float64, cols)
	for j, n := range pop {
		if n > 0 {
			logPop[j] = math.Log(n)
		}
	}
	st.PopularitySlopeSD = slopeSD(m, logPop, true, act, resid)
	st.BiasSlopeSD = slopeSD(m, bi, false, act, resid)
	if spectrum > 0 {
		d := mat.NewDense(rows, cols, nil)
		for t := range m.All() {
			d.Set(int(t.User), int(t.Item), t.Value-mu-bu[t.User]-bi[t.Item])
		}
		var svd mat.SVD
		if svd.Factorize(d, mat.SVDNone) {
			sv := svd.Values(nil)
			var cum float64
			for k := range min(spectrum, len(sv)) {
				cum += sv[k] * sv[k]
				st.Spectrum = append(st.Spectrum, cum/se)
			}
		}
	}
	return st
}

// slopeSD is the SD over users with at least 20 ratings (act) of the
// least-squares slope of their residuals res on an item feature x (x[j]
// for item j; standardized over the ratings if standardize), less the
// slopes' mean sampling variance: Stats.PopularitySlopeSD and
// BiasSlopeSD.
func slopeSD(m *ratings.Matrix, x []float64, standardize bool, act []float64, res func(ratings.Triple) float64) float64 {
	mean, sd := 0.0, 1.0
	if standardize {
		var s1, s2, n float64
		for t := range m.All() {
			s1 += x[t.Item]
			s2 += x[t.Item] * x[t.Item]
			n++
		}
		mean = s1 / n
		sd = math.Sqrt(math.Max(s2/n-mean*mean, 0))
		if !(sd > 0) {
			return 0
		}
	}
	type acc struct{ n, sx, sy, sxx, sxy, syy float64 }
	us := make([]acc, m.Rows())
	for t := range m.All() {
		f, y := (x[t.Item]-mean)/sd, res(t)
		a := &us[t.User]
		a.n++
		a.sx += f
		a.sy += y
		a.sxx += f * f
		a.sxy += f * y
		a.syy += y * y
	}
	var slopes []float64
	var sampling float64
	for i, a := range us {
		if act[i] < 20 {
			continue
		}
		cxx := a.sxx - a.sx*a.sx/a.n
		if !(cxx > 0) {
			continue
		}
		cxy, cyy := a.sxy-a.sx*a.sy/a.n, a.syy-a.sy*a.sy/a.n
		b := cxy / cxx
		slopes = append(slopes, b)
		sampling += math.Max(cyy-b*cxy, 0) / (a.n - 2) / cxx
	}
	if len(slopes) < 2 {
		return 0
	}
	var m1 float64
	for _, b := range slopes {
		m1 += b
	}
	m1 /= float64(len(slopes))
	var v float64
	for _, b := range slopes {
		v += (b - m1) * (b - m1)
	}
	v /= float64(len(slopes) - 1)
	return math.Sqrt(math.Max(v-sampling/float64(len(slopes)), 0))
}

// Compare formats two sets of statistics side by side, a against b.
func Compare(nameA string, a Stats, nameB string, b Stats) string {
	var w strings.Builder
	fmt.Fprintf(&w, "| statistic | %s | %s |\n|---|---|---|\n", nameA, nameB)
	row := func(name, format string, x, y float64) {
		fmt.Fprintf(&w, "| %s | "+format+" | "+format+" |\n", name, x, y)
	}
	row("users", "%.0f", float64(a.Users), float64(b.Users))
	row("items rated", "%.0f", float64(a.Items), float64(b.Items))
	row("ratings", "%.0f", float64(a.Ratings), float64(b.Ratings))
	row("mean rating", "%.3f", a.Mean, b.Mean)
	for k := range a.Hist {
		row(fmt.Sprintf("%d stars", k+1), "%.3f", a.Hist[k], b.Hist[k])
	}
	law := func(name string, x, y Law) {
		fmt.Fprintf(&w, "| %s min / median / mean / p90 / max | %.0f / %.0f / %.1f / %.0f / %.0f | %.0f / %.0f / %.1f / %.0f / %.0f |\n",
			name, x.Min, x.Median, x.Mean, x.P90, x.Max, y.Min, y.Median, y.Mean, y.P90, y.Max)
		row(name+" Gini", "%.3f", x.Gini, y.Gini)
	}
	law("activity", a.Activity, b.Activity)
	law("popularity", a.Popularity, b.Popularity)
	row("corr(log activity, user mean)", "%+.3f", a.ActivityCorr, b.ActivityCorr)
	row("corr(log popularity, item mean)", "%+.3f", a.PopularityCorr, b.PopularityCorr)
	row("bias-model RMSE (in sample)", "%.3f", a.BiasRMSE, b.BiasRMSE)
	for _, k := range []int{1, 2, 5, 10, 20} {
		if k <= len(a.Spectrum) && k <= len(b.Spectrum) {
			row(fmt.Sprintf("residual energy in top %d singular values", k), "%.3f", a.Spectrum[k-1], b.Spectrum[k-1])
		}
	}
	row("per-user residual SD, median", "%.3f", a.UserSD, b.UserSD)
	row("per-user residual SD, SD of log", "%.3f", a.UserSDSpread, b.UserSDSpread)
	row("SD of users' slopes on log popularity", "%.3f", a.PopularitySlopeSD, b.PopularitySlopeSD)
	row("SD of users' slopes on the item bias", "%.3f", a.BiasSlopeSD, b.BiasSlopeSD)
	return w.String()
}
