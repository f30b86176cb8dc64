package accounting

import "testing"

// TestDiscreteSplitShifts checks, with the exact lattice distributions,
// whether a shift spread over two coordinates ever gives a larger δ(ε)
// than the one-coordinate shift the discrete PLD accountant uses (ℓ1 norm
// for Laplace and Huber, ℓ2 norm rounded up to whole grid units for the
// Gaussian). For Laplace and Huber it never does over this table (the
// largest ratio is printed with -v): a numerical finding, not a proof. For
// the discrete Gaussian it does — (3, 4) is worse than 5 at S = 25 — which
// is why PLD covers the discrete Gaussian only for one changed coordinate.
func TestDiscreteSplitShifts(t *testing.T) {
	type split struct {
		name  string
		one   func() (*LatticePLD, error)
		parts [][2]func() (*LatticePLD, error)
		worse bool // the split is expected to exceed the one-coordinate δ
	}
	lap := func(t, d int64) func() (*LatticePLD, error) {
		return func() (*LatticePLD, error) { return DiscreteLaplacePLD(t, d) }
	}
	gau := func(s, d int64) func() (*LatticePLD, error) {
		return func() (*LatticePLD, error) { return DiscreteGaussianPLD(s, d) }
	}
	hub := func(tau, a, d int64) func() (*LatticePLD, error) {
		return func() (*LatticePLD, error) { return DiscreteHuberPLD(tau, a, d) }
	}
	cases := []split{
		{"laplace t=4 d=4", lap(4, 4), [][2]func() (*LatticePLD, error){{lap(4, 1), lap(4, 3)}, {lap(4, 2), lap(4, 2)}}, false},
		{"laplace t=10 d=6", lap(10, 6), [][2]func() (*LatticePLD, error){{lap(10, 1), lap(10, 5)}, {lap(10, 3), lap(10, 3)}}, false},
		{"gaussian S=25 d=5", gau(25, 5), [][2]func() (*LatticePLD, error){{gau(25, 3), gau(25, 4)}}, true},
		{"gaussian S=4 d=5", gau(4, 5), [][2]func() (*LatticePLD, error){{gau(4, 3), gau(4, 4)}}, true},
		{"gaussian S=2 d=5", gau(2, 5), [][2]func() (*LatticePLD, error){{gau(2, 3), gau(2, 4)}}, true},
		{"gaussian S=100 d=13", gau(100, 13), [][2]func() (*LatticePLD, error){{gau(100, 5), gau(100, 12)}}, true},
		{"gaussian S=9 d=10", gau(9, 10), [][2]func() (*LatticePLD, error){{gau(9, 6), gau(9, 8)}}, true},
		{"huber τ=5 a=5 d=6", hub(5, 5, 6), [][2]func() (*LatticePLD, error){{hub(5, 5, 3), hub(5, 5, 3)}, {hub(5, 5, 1), hub(5, 5, 5)}}, false},
		{"huber τ=4 a=1 d=6", hub(4, 1, 6), [][2]func() (*LatticePLD, error){{hub(4, 1, 3), hub(4, 1, 3)}, {hub(4, 1, 2), hub(4, 1, 4)}}, false},
		{"huber τ=3 a=12 d=4", hub(3, 12, 4), [][2]func() (*LatticePLD, error){{hub(3, 12, 2), hub(3, 12, 2)}, {hub(3, 12, 1), hub(3, 12, 3)}}, false},
	}
	for _, c := range cases {
		one, err := c.one()
		if err != nil {
			t.Fatal(err)
		}
		for _, pp := range c.parts {
			a, err := pp[0]()
			if err != nil {
				t.Fatal(err)
			}
			b, err := pp[1]()
			if err != nil {
				t.Fatal(err)
			}
			both, err := a.convolve(b)
			if err != nil {
				t.Fatal(err)
			}
			worst := 0.0
			for e := 0.0; e <= 6; e += 0.05 {
				d1, d2 := one.Delta(e), both.Delta(e)
				if d2 < 1e-12 {
					continue
				}
				worst = max(worst, d2/d1)
			}
			t.Logf("%s: largest ratio of split to one-coordinate δ %.6g", c.name, worst)
			if above := worst > 1+1e-9; above != c.worse {
				t.Errorf("%s: split above the one-coordinate δ: %v (ratio %.6g), want %v", c.name, above, worst, c.worse)
			}
		}
	}
}
