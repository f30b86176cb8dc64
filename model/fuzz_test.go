package model

import (
	"bytes"
	"context"
	"math"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/dpmc/dpmc/ratings"
)

// FuzzLoad reads arbitrary bytes as a model file: it must never panic,
// read as a stream (length unknown) it must accept exactly what it
// accepts with the length known, and whatever it accepts must be a
// consistent model, with IDs free of control characters, that writes
// back and reads back.
func FuzzLoad(f *testing.F) {
	var user, paper bytes.Buffer
	if err := tiny().Write(&user); err != nil {
		f.Fatal(err)
	}
	p := &Model{Kind: Paper, Min: 1, Max: 5, Rank: 2, ItemIDs: []string{"i1", "i2"}, ItemBias: []float64{0, 0}, V: []float64{1, 2, 3, 4},
		UserIDs: []string{"u"}, U: []float64{0.5, -0.5}, Settings: []byte(`{"rank":2}`)}
	if err := p.Write(&paper); err != nil {
		f.Fatal(err)
	}
	f.Add(user.Bytes())
	f.Add(paper.Bytes())
	f.Add(user.Bytes()[:40])
	f.Add(paper.Bytes()[:len(paper.Bytes())-8])
	f.Add([]byte(`{"format":"dpmc-release-v1"}`))
	f.Add([]byte("dpmc-mdl\x02\x00\x00\x00\x02\x00\x00\x00{}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Read(bytes.NewReader(b), int64(len(b)))
		ms, serr := Read(bytes.NewReader(b), -1)
		if (err == nil) != (serr == nil) {
			t.Fatalf("with the length: %v; as a stream: %v", err, serr)
		}
		if err != nil {
			return
		}
		if err := m.check(); err != nil {
			t.Fatalf("accepted an inconsistent model: %v", err)
		}
		if !equalModels(m, ms) {
			t.Fatal("the stream gave another model")
		}
		for _, id := range append(slices.Clone(m.ItemIDs), m.UserIDs...) {
			if strings.IndexFunc(id, unicode.IsControl) >= 0 {
				t.Fatalf("accepted ID %q", id)
			}
		}
		var out bytes.Buffer
		if err := m.Write(&out); err != nil {
			t.Fatalf("cannot write back an accepted model: %v", err)
		}
		if _, err := Read(bytes.NewReader(out.Bytes()), int64(out.Len())); err != nil {
			t.Fatalf("cannot read back: %v", err)
		}
	})
}

// FuzzReadPairs parses arbitrary text as a pairs file: no panic, and
// every pair it accepts has non-empty IDs, occurs once, and has a rating
// in the declared range [1, 5] or, in a file without ratings, none.
func FuzzReadPairs(f *testing.F) {
	for _, s := range []string{"user\titem\trating\n1\t2\t4\n", "1,2,3.5\n\n3,4,5\n", "a,b\n", "1\t2\tNaN\n", "1,2,0x1p2\n", "\x00", "u,i,4e0\r\n",
		`"product","user","value"` + "\n\"1\",\"10\",5\n\"1\",\"10\",4\n", "\"1\",\"10\",5\n", "1,2\n1,2\n", "1,2,3\n1,2,4\n", "1,2,9\n",
		"\"a\tb\",x,4\n", "u,\"x\ny\"\n"} {
		f.Add(s, "")
		f.Add(s, "item,user,rating")
	}
	f.Fuzz(func(t *testing.T, s, columns string) {
		ps, info, err := ReadPairs(context.Background(), strings.NewReader(s), "f", ratings.Options{Columns: columns})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "model: ") {
				t.Fatalf("error without prefix: %v", err)
			}
			return
		}
		if len(ps) == 0 {
			t.Fatal("no pairs and no error")
		}
		seen := map[[2]string]bool{}
		for _, p := range ps {
			k := [2]string{p.User, p.Item}
			if p.User == "" || p.Item == "" || strings.IndexFunc(p.User+p.Item, unicode.IsControl) >= 0 || seen[k] || info.Rated == math.IsNaN(p.Rating) || info.Rated && !(p.Rating >= 1 && p.Rating <= 5) {
				t.Fatalf("accepted %+v (info %+v)", p, info)
			}
			seen[k] = true
		}
		if _, err := GroupHistories(ps, "f"); (err == nil) != info.Rated {
			t.Fatalf("GroupHistories: %v, rated %v", err, info.Rated)
		}
	})
}
