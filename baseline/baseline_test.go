package baseline

import (
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dpmc/dpmc/metrics"
	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/rng"
	"github.com/dpmc/dpmc/synthetic"
)

// matrix builds a users × items matrix from each user's (item, rating)
// pairs.
func matrix(t *testing.T, items int, rows [][][2]float64) *ratings.Matrix {
	t.Helper()
	var ts []ratings.Triple
	for i, row := range rows {
		for _, p := range row {
			ts = append(ts, ratings.Triple{User: int32(i), Item: int32(p[0]), Value: p[1]})
		}
	}
	m, err := ratings.New(len(rows), items, ts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// tiny is 3 users × 3 items: {0, 1}, {0, 1, 2}, {1, 2}, ratings 5, 3, …
func tiny(t *testing.T) *ratings.Matrix {
	return matrix(t, 3, [][][2]float64{{{0, 5}, {1, 3}}, {{0, 4}, {1, 5}, {2, 2}}, {{1, 4}, {2, 5}}})
}

func near(a, b []float64, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if math.Abs(a[k]-b[k]) > tol {
			return false
		}
	}
	return true
}

func TestPopularity(t *testing.T) {
	x := tiny(t)
	for _, c := range []struct {
		positive float64
		want     []float64
		name     string
	}{
		{0, []float64{2, 3, 2}, "popularity (non-private)"},
		{4, []float64{2, 2, 1}, "popularity of ratings ≥ 4 (non-private)"},
	} {
		p := NewPopularity(x, c.positive)
		if !slices.Equal(p.Counts, c.want) || !slices.Equal(p.Score([]int{0}), c.want) || p.Predict(2, 1) != c.want[1] {
			t.Errorf("positive %g: counts %v, score %v; want %v", c.positive, p.Counts, p.Score([]int{0}), c.want)
		}
		if p.Name() != c.name {
			t.Errorf("name %q, want %q", p.Name(), c.name)
		}
	}
}

// By hand: G = XᵀX + I = [[3 2 1] [2 4 2] [1 2 3]], det 16, P = G⁻¹ =
// [[.5 −.25 0] [−.25 .5 −.25] [0 −.25 .5]], B_ij = −P_ij/P_jj: B01 = B10 =
// B12 = B21 = .5, B02 = B20 = 0.
func TestEASEByHand(t *testing.T) {
	e, err := FitEASE(tiny(t), EASEOptions{Lambda: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0, .5, 0, .5, 0, .5, 0, .5, 0}
	if !near(e.B, want, 1e-12) {
		t.Fatalf("B = %v, want %v", e.B, want)
	}
	for _, c := range []struct {
		history []int
		want    []float64
	}{
		{[]int{0}, []float64{0, .5, 0}},
		{[]int{0, 2}, []float64{0, 1, 0}},
		{[]int{1}, []float64{.5, 0, .5}},
		{nil, []float64{0, 0, 0}},
	} {
		if got := e.Score(c.history); !near(got, c.want, 1e-12) {
			t.Errorf("history %v: %v, want %v", c.history, got, c.want)
		}
	}
	// Training user 2 ({1, 2}): B row 1 + row 2.
	if got := e.Predict(2, 0); math.Abs(got-.5) > 1e-12 {
		t.Errorf("Predict(2, 0) = %v, want 0.5", got)
	}
	// Positive 5 keeps (0,0), (1,1), (2,2) only: X = I, G + I = 2I, B = 0.
	e5, err := FitEASE(tiny(t), EASEOptions{Lambda: 1, Positive: 5})
	if err != nil {
		t.Fatal(err)
	}
	if !near(e5.B, make([]float64, 9), 1e-12) {
		t.Errorf("positives ≥ 5: B = %v, want 0", e5.B)
	}
	if !strings.Contains(e.Name(), "non-private") {
		t.Errorf("name %q does not say non-private", e.Name())
	}
}

func TestEASERefuses(t *testing.T) {
	for _, c := range []struct {
		x    *ratings.Matrix
		o    EASEOptions
		want string
	}{
		{tiny(t), EASEOptions{Lambda: -1}, "λ"},
		{matrix(t, MaxEASEItems+1, [][][2]float64{{{0, 1}}}), EASEOptions{}, "GB"},
	} {
		if _, err := FitEASE(c.x, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error naming %q", c.o, err, c.want)
		}
	}
}

// By hand: users {0, 1}, {0, 1}, {2}: XᵀX = [[2 2 0] [2 2 0] [0 0 1]],
// top eigenvector (1, 1, 0)/√2 with eigenvalue 4; history {0} scores
// (1/2, 1/2, 0) at k = 1, and (1/2, 1/2, 0) + (0, 0, 0) at k = 2.
func TestPureSVDByHand(t *testing.T) {
	x := matrix(t, 3, [][][2]float64{{{0, 1}, {1, 1}}, {{0, 1}, {1, 1}}, {{2, 1}}})
	for _, k := range []int{1, 2} {
		s, err := FitPureSVD(x, PureSVDOptions{K: k})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(s.Sigma2[0]-4) > 1e-9 {
			t.Errorf("k = %d: σ² = %v, want 4 first", k, s.Sigma2)
		}
		if got := s.Score([]int{0}); !near(got, []float64{.5, .5, 0}, 1e-9) {
			t.Errorf("k = %d: history {0}: %v, want (.5, .5, 0)", k, got)
		}
		if got := s.Score([]int{2}); k == 2 && !near(got, []float64{0, 0, 1}, 1e-9) {
			t.Errorf("k = 2: history {2}: %v, want (0, 0, 1)", got)
		}
	}
	if _, err := FitPureSVD(x, PureSVDOptions{K: 4}); err == nil {
		t.Error("k = 4 > 3 items accepted")
	}
}

// The subspace iteration finds the eigenvalues and the subspace that a
// dense eigendecomposition of XᵀX finds, for 0/1 and rating matrices.
func TestPureSVDMatchesDense(t *testing.T) {
	d, err := synthetic.DefaultRealistic(150, 3).Generate()
	if err != nil {
		t.Fatal(err)
	}
	x := d.Ratings
	n := x.Cols()
	for _, ratingsToo := range []bool{false, true} {
		const k = 5
		s, err := FitPureSVD(x, PureSVDOptions{K: k, Ratings: ratingsToo})
		if err != nil {
			t.Fatal(err)
		}
		g := mat.NewSymDense(n, nil)
		for i := range x.Rows() {
			items, vs := x.Row(i)
			for a, ja := range items {
				for b, jb := range items {
					if ja <= jb {
						va, vb := 1.0, 1.0
						if ratingsToo {
							va, vb = vs.At(a), vs.At(b)
						}
						g.SetSym(int(ja), int(jb), g.At(int(ja), int(jb))+va*vb)
					}
				}
			}
		}
		var eig mat.EigenSym
		if !eig.Factorize(g, true) {
			t.Fatal("dense eigendecomposition failed")
		}
		vals := eig.Values(nil)
		var vecs mat.Dense
		eig.VectorsTo(&vecs)
		for c := range k {
			if want := vals[n-1-c]; math.Abs(s.Sigma2[c]-want) > 1e-8*vals[n-1] {
				t.Errorf("ratings %v: σ²[%d] = %v, want %v", ratingsToo, c, s.Sigma2[c], want)
			}
		}
		// Projectors V Vᵀ agree.
		var worst float64
		for a := range n {
			for b := range n {
				var p, q float64
				for c := range k {
					p += s.V[a*k+c] * s.V[b*k+c]
					q += vecs.At(a, n-1-c) * vecs.At(b, n-1-c)
				}
				worst = math.Max(worst, math.Abs(p-q))
			}
		}
		if worst > 1e-6 {
			t.Errorf("ratings %v: projectors differ by %g", ratingsToo, worst)
		}
	}
}

// For scores every user of a history matrix as ScoreInto does, and
// metrics.Evaluate gets the same result on any number of workers; a
// training user scored by Predict equals the same user folded in from a
// history.
func TestForAndPredict(t *testing.T) {
	d, err := synthetic.DefaultRealistic(200, 4).Generate()
	if err != nil {
		t.Fatal(err)
	}
	tr, te, err := ratings.Split(d, 0.2, rng.Seeded(5))
	if err != nil {
		t.Fatal(err)
	}
	x := tr.Ratings
	e, err := FitEASE(x, EASEOptions{Lambda: 50})
	if err != nil {
		t.Fatal(err)
	}
	s, err := FitPureSVD(x, PureSVDOptions{K: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []interface {
		Model
		metrics.Scorer
	}{NewPopularity(x, 0), e, s} {
		f := For(m, x)
		dst := make([]float64, m.Items())
		for _, i := range []int{0, 7, 199, 7} {
			items, vs := x.Row(i)
			m.ScoreInto(dst, items, vs.CopyTo(make([]float64, vs.Len())))
			for j := range m.Items() {
				if f.Predict(i, j) != dst[j] || m.Predict(i, j) != dst[j] {
					t.Fatalf("%s: user %d item %d: For %v, Predict %v, ScoreInto %v", m.Name(), i, j, f.Predict(i, j), m.Predict(i, j), dst[j])
				}
			}
		}
		a := metrics.Evaluate(x, te.Ratings, For(m, x), metrics.Options{Ranking: true, Workers: 1})
		b := metrics.Evaluate(x, te.Ratings, For(m, x), metrics.Options{Ranking: true, Workers: 7})
		if a.NDCG != b.NDCG || a.Recall != b.Recall || !(a.NDCG > 0) {
			t.Errorf("%s: 1 worker %v, 7 workers %v", m.Name(), a, b)
		}
	}
}
