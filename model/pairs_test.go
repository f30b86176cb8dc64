package model

import (
	"context"
	"errors"
	"hash/maphash"
	"math"
	"strings"
	"testing"

	"github.com/dpmc/dpmc/metrics"
	"github.com/dpmc/dpmc/ratings"
)

func TestReadPairs(t *testing.T) {
	sweet := `"product","user","value"` + "\n"
	for _, c := range []struct {
		name, in string
		opts     ratings.Options
		want     []Pair // Rating −1: NaN
		averaged int
		err      string
	}{
		{"sweetrs averages", sweet + "\"a\",\"1\",2\n\"b\",\"1\",0\n\"a\",\"1\",5\n\"b\",\"2\",4\n", ratings.Options{},
			[]Pair{{"1", "a", 3.5, 2}, {"2", "b", 4, 5}}, 1, ""},
		{"csv refuses", "1,a,2\n2,b,3\n1,a,5\n", ratings.Options{}, nil, 0, `f.csv:3: duplicate rating: user "1", item "a" already rated on line 1`},
		{"averaging asked for", "1,a,2\n1,a,5\n", ratings.Options{Duplicates: ratings.DuplicatesAverage}, []Pair{{"1", "a", 3.5, 1}}, 1, ""},
		{"pairs without ratings", "1\ta\n2\tb\n", ratings.Options{}, []Pair{{"1", "a", -1, 1}, {"2", "b", -1, 2}}, 0, ""},
		{"repeated pair without ratings", "1\ta\n1\ta\n", ratings.Options{}, nil, 0, `f.csv:2: duplicate rating: user "1", item "a" already listed on line 1`},
		{"model range", "1,a,4.5\n", ratings.Options{Min: 1, Max: 4}, nil, 0, "f.csv:1: rating out of range: rating 4.5 outside [1, 4]"},
		{"empty", "\n\n", ratings.Options{}, nil, 0, "f.csv: no ratings: only blank lines"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, info, err := ReadPairs(context.Background(), strings.NewReader(c.in), "f.csv", c.opts)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || !strings.HasPrefix(err.Error(), "model: ") {
					t.Fatalf("error %v, want one with %q", err, c.err)
				}
				if strings.Contains(c.err, "duplicate") && !errors.Is(err, ratings.ErrDuplicate) {
					t.Errorf("error %v does not wrap ratings.ErrDuplicate", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(c.want) || info.Averaged != c.averaged {
				t.Fatalf("pairs %+v, %d averaged; want %+v, %d", got, info.Averaged, c.want, c.averaged)
			}
			for k, p := range got {
				w := c.want[k]
				if w.Rating == -1 {
					w.Rating = math.NaN()
				}
				if p.User != w.User || p.Item != w.Item || p.Line != w.Line || !(p.Rating == w.Rating || math.IsNaN(p.Rating) && math.IsNaN(w.Rating)) {
					t.Errorf("pair %d = %+v, want %+v", k, p, w)
				}
			}
		})
	}
}

// A done context stops ReadPairs, PredictPairs and EvaluatePairs with an
// error wrapping its cause.
func TestPairsCancelled(t *testing.T) {
	m := tiny()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var b strings.Builder
	for k := range 3000 {
		b.WriteString("u" + strings.Repeat("x", k%7) + string(rune('a'+k%26)) + "\ta\t4\n")
	}
	if _, _, err := ReadPairs(ctx, strings.NewReader(b.String()), "f", ratings.Options{Duplicates: ratings.DuplicatesAverage}); !errors.Is(err, context.Canceled) {
		t.Errorf("ReadPairs: %v", err)
	}
	pairs := []Pair{{User: "me", Item: "a", Rating: 4, Line: 1}}
	o := PredictOptions{Unknown: UnknownFallback, Histories: Histories{ByUser: map[string]History{"me": {Items: []string{"b"}, Ratings: []float64{5}}}, Users: []string{"me"}, Items: []string{"b"}}}
	if _, _, err := m.PredictPairs(ctx, pairs, o); !errors.Is(err, context.Canceled) {
		t.Errorf("PredictPairs: %v", err)
	}
	preds, _, err := m.PredictPairs(context.Background(), pairs, o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.EvaluatePairs(ctx, preds, o, metrics.Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("EvaluatePairs: %v", err)
	}
	if r, err := m.EvaluatePairs(context.Background(), preds, o, metrics.Options{}); err != nil || r.Users != 1 {
		t.Errorf("EvaluatePairs: %+v, %v", r, err)
	}
}

// No pair with a user or item of the model is an error, even with
// fallbacks; one known item is enough.
func TestPredictAllUnknown(t *testing.T) {
	m := tiny()
	o := PredictOptions{Unknown: UnknownFallback, Name: "p"}
	_, _, err := m.PredictPairs(context.Background(), []Pair{{User: "x", Item: "y", Line: 1}, {User: "x", Item: "z", Line: 2}}, o)
	if err == nil || !strings.Contains(err.Error(), "none of the 2 pairs") {
		t.Errorf("all unknown: %v", err)
	}
	if _, _, err := m.PredictPairs(context.Background(), []Pair{{User: "x", Item: "y", Line: 1}, {User: "x", Item: "a", Line: 2}}, o); err != nil {
		t.Errorf("one known item: %v", err)
	}
}

// pairSet tells different pairs with the same hash apart.
func TestPairSetCollision(t *testing.T) {
	s := pairSet{seed: maphash.MakeSeed(), first: map[uint64]int{}}
	var h maphash.Hash
	h.SetSeed(s.seed)
	h.WriteString("a")
	h.WriteByte(0)
	h.WriteString("b")
	out := []Pair{{User: "x", Item: "y"}}
	s.first[h.Sum64()] = 0 // ("x", "y") holds the hash of ("a", "b")
	if _, dup := s.add(out, "a", "b", 1); dup {
		t.Fatal(`("a", "b") taken for ("x", "y")`)
	}
	out = append(out, Pair{User: "a", Item: "b"})
	if at, dup := s.add(out, "a", "b", 2); !dup || at != 1 {
		t.Fatalf(`("a", "b") again: %d, %v; want 1, true`, at, dup)
	}
}
