package userdp

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/synthetic"
)

// permuted returns d with its users and items renumbered at random (as a
// file with its lines in another order would give): the same ratings
// under the same IDs, at other rows and columns.
func permuted(t *testing.T, d *ratings.Dataset, seed uint64) *ratings.Dataset {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	m, n := d.Ratings.Rows(), d.Ratings.Cols()
	pu, pi := r.Perm(m), r.Perm(n)
	uids, iids := make([]string, m), make([]string, n)
	for i, k := range pu {
		uids[k] = d.Users.ID(i)
	}
	for j, k := range pi {
		iids[k] = d.Items.ID(j)
	}
	var tr []ratings.Triple
	for x := range d.Ratings.All() {
		tr = append(tr, ratings.Triple{User: int32(pu[x.User]), Item: int32(pi[x.Item]), Value: x.Value})
	}
	mat, err := ratings.New(m, n, tr)
	if err != nil {
		t.Fatal(err)
	}
	users, err := ratings.NewIDs(uids)
	if err != nil {
		t.Fatal(err)
	}
	items, err := ratings.NewIDs(iids)
	if err != nil {
		t.Fatal(err)
	}
	return &ratings.Dataset{Ratings: mat, Users: users, Items: items, Min: d.Min, Max: d.Max}
}

// A seeded run depends on the ratings and their IDs only: renumbering the
// users and items (another line order in the file) and changing the
// number of workers give the same release, bit for bit. This is what lets
// a distributed implementation reproduce Train.
func TestReleaseIndependentOfOrderAndWorkers(t *testing.T) {
	d, err := synthetic.DefaultRealistic(400, 3).Generate()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"selection, PCA start, 2 steps", Defaults(50, 1e-6, 1, 5).WithFactors(3, 2, 0.4)},
		{"catalogue, random start", func() Options {
			o := Defaults(50, 1e-6, 1, 5).WithFactors(2, 1, 0.4)
			o.Shares.PCA = 0
			ids := make([]string, 0, d.Items.Len())
			for j := range d.Items.Len() {
				ids = append(ids, d.Items.ID(j))
			}
			return o.WithCatalogue(ids[:len(ids)/2])
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.opts
			o.Seeded, o.Seed = true, 11
			o.MaxItemsPerUser = 20 // so that subsets are drawn
			o.HeadItems = 30
			o.Workers = 1
			want := train(t, d, o)
			if len(want.V) == 0 || len(want.ItemIDs) < 10 {
				t.Fatalf("degenerate release: %d items, %d factor entries", len(want.ItemIDs), len(want.V))
			}
			for k, seed := range []uint64{1, 2} {
				o.Workers = 1 + 3*k
				got := train(t, permuted(t, d, seed), o)
				if !slices.Equal(got.ItemIDs, want.ItemIDs) || !slices.Equal(got.V, want.V) ||
					!slices.Equal(got.ItemBias, want.ItemBias) || !slices.Equal(got.Counts, want.Counts) ||
					got.Mu != want.Mu || got.TailBias != want.TailBias {
					t.Errorf("permutation %d, %d workers: the release differs from the original order's", seed, o.Workers)
				}
			}
		})
	}
}

// CompareIDs is a total order: numbers first, numerically; equal numbers
// by text; then the rest by text.
func TestCompareIDs(t *testing.T) {
	ids := []string{"b", "10", "a", "07", "7", "-3", "2", "A"}
	slices.SortFunc(ids, CompareIDs)
	want := []string{"-3", "2", "07", "7", "10", "A", "a", "b"}
	if !slices.Equal(ids, want) {
		t.Errorf("sorted %q, want %q", ids, want)
	}
}
