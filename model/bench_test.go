package model

import (
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"github.com/dpmc/dpmc/rng"
)

// BenchmarkLoad loads a user-level model of 10⁶ items × 64 factors
// (≈ 530 MB on disk); the issue asks for under a second.
func BenchmarkLoad(b *testing.B) {
	const n, r = 1_000_000, 64
	g := rng.Seeded(1)
	m := &Model{Kind: UserLevel, Min: 1, Max: 5, Mu: 3.5, Rank: r, ItemIDs: make([]string, n), ItemBias: make([]float64, n),
		V: make([]float64, n*r), Counts: make([]float64, n), Ridges: &FoldInRidges{UserLambda: 1, UserBiasLambda: 1}}
	for j := range n {
		m.ItemIDs[j] = fmt.Sprint(j + 1)
		m.ItemBias[j], m.Counts[j] = g.NormFloat64(), 100*g.Float64()
	}
	for k := range m.V {
		m.V[k] = g.NormFloat64()
	}
	path := filepath.Join(b.TempDir(), "big.dpmc")
	if err := m.Save(path, false); err != nil {
		b.Fatal(err)
	}
	m = nil
	b.SetBytes(int64(n*(r+2)*8 + 7*n))
	for b.Loop() {
		got, err := Load(path)
		if err != nil || len(got.ItemIDs) != n {
			b.Fatal(err)
		}
	}
}

// BenchmarkWritePaper writes a paper model of the 10 M benchmark's shape
// (100 000 users, 20 000 items, rank 32) to io.Discard: the ID checks and
// the encoding, not the disk.
func BenchmarkWritePaper(b *testing.B) {
	const users, items, r = 100_000, 20_000, 32
	ids := func(n int, prefix string) []string {
		s := make([]string, n)
		for i := range s {
			s[i] = fmt.Sprint(prefix, i+1)
		}
		return s
	}
	m := &Model{Kind: Paper, Min: 1, Max: 5, Rank: r, ItemIDs: ids(items, "i"), ItemBias: make([]float64, items),
		V: make([]float64, items*r), UserIDs: ids(users, "u"), U: make([]float64, users*r)}
	b.ReportAllocs()
	for b.Loop() {
		fresh := &Model{Kind: m.Kind, Min: m.Min, Max: m.Max, Rank: r, ItemIDs: m.ItemIDs, ItemBias: m.ItemBias, V: m.V, UserIDs: m.UserIDs, U: m.U}
		if err := fresh.Write(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
