package userdp

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/synthetic"
)

// copiedLists are one user's lists as Train held them before userData:
// copies made once by sorting each row (prepare), then remapped to the
// released items (remap). They are the oracle the views must equal.
type copiedLists struct {
	acol       []int32
	aval       []float64
	ccol       []int32
	cval, tval []float64
}

// copyLists builds every user's lists the way Train did before userData.
func copyLists(tr *trainer, d *ratings.Dataset) []copiedLists {
	x := d.Ratings
	idx := map[string]int32{}
	for k, id := range tr.candIDs {
		idx[id] = int32(k)
	}
	rows := make([]int, x.Rows())
	for i := range rows {
		rows[i] = i
	}
	slices.SortFunc(rows, func(a, b int) int { return CompareIDs(d.Users.ID(a), d.Users.ID(b)) })
	out := make([]copiedLists, len(rows))
	type rating struct {
		c int32
		v float64
	}
	for i, row := range rows {
		items, vals := x.Row(row)
		var buf []rating
		for p, j := range items {
			if c, ok := idx[d.Items.ID(int(j))]; ok {
				buf = append(buf, rating{c, math.Min(math.Max(vals.At(p), tr.opts.Min), tr.opts.Max)})
			}
		}
		slices.SortFunc(buf, func(a, b rating) int { return int(a.c) - int(b.c) })
		l := &out[i]
		for _, r := range buf {
			l.acol = append(l.acol, r.c)
			l.aval = append(l.aval, r.v)
		}
		l.ccol, l.cval = l.acol, l.aval
		if pos := tr.Subset(d.Users.ID(row), len(buf)); pos != nil {
			l.ccol, l.cval = nil, nil
			for _, q := range pos {
				l.ccol = append(l.ccol, l.acol[q])
				l.cval = append(l.cval, l.aval[q])
			}
		}
	}
	return out
}

// remapLists is the old remap: own ratings relabelled (−1: not
// released), contributed ones split into released and tail.
func remapLists(in []copiedLists, toModel []int32, withTail bool) []copiedLists {
	out := make([]copiedLists, len(in))
	m := func(c int32) int32 { return toModel[c] }
	for i, l := range in {
		o := &out[i]
		for _, c := range l.acol {
			o.acol = append(o.acol, toModel[c])
		}
		o.aval = l.aval
		var tail []float64
		o.ccol, o.cval, tail = SplitReleased(l.ccol, l.cval, m)
		if withTail {
			o.tval = tail
		}
	}
	return out
}

// wideDataset has one user with 70 000 ratings (more than a uint16
// position holds) and a few small users; some values lie outside [1, 5]
// so that clipping shows.
func wideDataset(t *testing.T) *ratings.Dataset {
	t.Helper()
	r := rand.New(rand.NewPCG(5, 6))
	const items = 70_000
	var tr []ratings.Triple
	for j := range items {
		tr = append(tr, ratings.Triple{User: 0, Item: int32(items - 1 - j), Value: 6 * r.Float64()})
	}
	for u := 1; u < 20; u++ {
		for range 50 {
			tr = append(tr, ratings.Triple{User: int32(u), Item: int32(r.IntN(items)), Value: float64(1 + r.IntN(5))})
		}
	}
	m, _, err := ratings.Build(20, items, tr, ratings.DuplicatesAverage)
	if err != nil {
		t.Fatal(err)
	}
	uids, iids := make([]string, 20), make([]string, items)
	for u := range uids {
		uids[u] = "u" + strconv.Itoa((u*7)%20)
	}
	for j := range iids {
		iids[j] = strconv.Itoa((j * 7919) % items)
	}
	users, err := ratings.NewIDs(uids)
	if err != nil {
		t.Fatal(err)
	}
	its, err := ratings.NewIDs(iids)
	if err != nil {
		t.Fatal(err)
	}
	return &ratings.Dataset{Ratings: m, Users: users, Items: its, Min: 1, Max: 5}
}

// Every user's view, before and after selection, equals the lists Train
// used to copy out (so the release is the same bit for bit): with and
// without contributed subsets, a catalogue that drops items and lists
// items nobody rated, rows and columns in scrambled order, and a row too
// long for 16-bit positions.
func TestUserViewsMatchCopies(t *testing.T) {
	gen, err := synthetic.DefaultRealistic(300, 1).Generate()
	if err != nil {
		t.Fatal(err)
	}
	scrambled := permuted(t, gen, 3)
	var catalogue []string
	for j := range gen.Ratings.Cols() {
		if j%3 != 0 {
			catalogue = append(catalogue, gen.Items.ID(j))
		}
	}
	catalogue = append(catalogue, "not-rated-1", "not-rated-2")
	for _, tc := range []struct {
		name     string
		d        *ratings.Dataset
		maxItems int
		items    []string
		noNoise  bool
		wide     bool
	}{
		{"all contributed", gen, 100000, nil, false, false},
		{"subsets", scrambled, 20, nil, false, false},
		{"catalogue and subsets", scrambled, 20, catalogue, false, false},
		{"no noise", gen, 20, nil, true, false},
		{"wide row", wideDataset(t), 30, nil, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := Defaults(5, 1e-6, 1, 5)
			o.Seeded, o.Seed = true, 7
			o.MaxItemsPerUser, o.Items, o.NoNoise = tc.maxItems, tc.items, tc.noNoise
			plan, err := NewPlan(o)
			if err != nil {
				t.Fatal(err)
			}
			tr := &trainer{Plan: plan, workers: 1}
			tr.prepare(tc.d)
			if got := tr.data.perm32 != nil; got != tc.wide {
				t.Fatalf("32-bit positions %v, want %v", got, tc.wide)
			}
			want := copyLists(tr, tc.d)
			subsets := 0
			for i, l := range want {
				if len(l.ccol) < len(l.acol) {
					subsets++
				}
				if tr.ncontrib[i] != len(l.ccol) {
					t.Fatalf("user %d: ncontrib %d, want %d", i, tr.ncontrib[i], len(l.ccol))
				}
			}
			if (subsets > 0) != (tc.maxItems < 100 && !tc.noNoise) {
				t.Fatalf("%d users with a subset", subsets)
			}
			check := func(stage string, want []copiedLists, withTail bool) {
				t.Helper()
				s := newUserView(tr.maxRow)
				for i, l := range want {
					tr.data.view(i, withTail, s)
					if !slices.Equal(s.acol, l.acol) || !slices.Equal(s.aval, l.aval) ||
						!slices.Equal(s.ccol, l.ccol) || !slices.Equal(s.cval, l.cval) || !slices.Equal(s.tval, l.tval) {
						t.Fatalf("%s: user %d: the view differs from the copied lists", stage, i)
					}
					for q, p := range s.cpos {
						if s.acol[p] != s.ccol[q] || tr.data.value(i, int(p)) != s.cval[q] {
							t.Fatalf("%s: user %d: contributed rating %d is not at position %d", stage, i, q, p)
						}
					}
				}
			}
			check("before selection", want, false)
			// Release about two candidates in three, at random.
			r := rand.New(rand.NewPCG(1, 2))
			toModel := make([]int32, len(tr.candIDs))
			next := int32(0)
			for c := range toModel {
				toModel[c] = -1
				if r.IntN(3) > 0 {
					toModel[c], next = next, next+1
				}
			}
			tr.data.release(toModel, nil)
			for _, withTail := range []bool{false, true} {
				check("after selection", remapLists(want, toModel, withTail), withTail)
			}
		})
	}
}

// The weights Train computes where it uses them, alpha[j]·scale, equal
// FactorWeights' bit for bit.
func TestFactorWeightsFactored(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		weights Weights
		noNoise bool
	}{{WeightsAdaptive, false}, {WeightsUniform, false}, {WeightsAdaptive, true}} {
		o := Defaults(5, 1e-6, 1, 5)
		o.Weights, o.NoNoise = tc.weights, tc.noNoise
		p, err := NewPlan(o)
		if err != nil {
			t.Fatal(err)
		}
		const n = 200
		counts := make([]float64, n)
		head := make([]bool, n)
		for j := range counts {
			counts[j] = 2000*r.Float64() - 5
			head[j] = r.IntN(3) > 0
		}
		alpha := p.factorAlphas(counts, head)
		for range 100 {
			var items []int32
			for j := range n {
				if r.IntN(10) == 0 {
					items = append(items, int32(j))
				}
			}
			want := p.FactorWeights(items, counts, head)
			scale := p.factorScale(items, alpha)
			for q, j := range items {
				if got := alpha[j] * scale; got != want[q] {
					t.Fatalf("%v, no noise %v: item %d weight %v, FactorWeights %v", tc.weights, tc.noNoise, j, got, want[q])
				}
			}
		}
	}
}

// streams draws what Plan.rand draws, seeded and keyed, whatever came
// before on the same streams (decimal too).
func TestStreamsMatchRand(t *testing.T) {
	for _, keyed := range []bool{false, true} {
		o := Defaults(5, 1e-6, 1, 5)
		o.Seeded, o.Seed = !keyed, 9
		p, err := NewPlan(o)
		if err != nil {
			t.Fatal(err)
		}
		if keyed {
			p.SetKey([32]byte{1, 2, 3})
		}
		s := p.newStreams()
		for k, id := range []string{"1", "2", "u3", "1"} {
			a, b := s.rand(phaseSubset, k, id), p.rand(phaseSubset, k, id)
			for range 5 {
				if x, y := a.Uint64(), b.Uint64(); x != y {
					t.Fatalf("keyed %v, stream (%d, %q): %x, Plan.rand %x", keyed, k, id, x, y)
				}
			}
		}
		// The tail buckets' streams, named by the bucket's decimal.
		for _, n := range []int{0, 7, 65535, 7} {
			a, b := s.decimal(phaseTail, 0, n), p.rand(phaseTail, 0, strconv.Itoa(n))
			for range 5 {
				if x, y := a.Uint64(), b.Uint64(); x != y {
					t.Fatalf("keyed %v, bucket stream %d: %x, Plan.rand %x", keyed, n, x, y)
				}
			}
		}
	}
}
