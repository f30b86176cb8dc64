package ratings

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// ml100kLike returns a MovieLens-100k-shaped tsv: 100000 distinct
// (user, item) pairs over 943 users and 1682 items.
func ml100kLike() []byte {
	var buf bytes.Buffer
	for k := range 100000 {
		u, q := k%943, k/943 // q < 107, so 13q + u < 1682 + 943
		fmt.Fprintf(&buf, "%d\t%d\t%d\t%d\n", u+1, (13*q+u)%1682+1, k%5+1, 874724710+k)
	}
	return buf.Bytes()
}

func BenchmarkLoadML100k(b *testing.B) {
	data := ml100kLike()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		d, err := Read(bytes.NewReader(data), "u.data", Options{})
		if err != nil {
			b.Fatal(err)
		}
		if d.Ratings.Len() != 100000 {
			b.Fatalf("%d ratings", d.Ratings.Len())
		}
	}
}

func BenchmarkLoadCSV100k(b *testing.B) {
	data := bytes.ReplaceAll(ml100kLike(), []byte{'\t'}, []byte{','})
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(bytes.NewReader(data), "r.csv", Options{Format: FormatCSV}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBuild100k(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	in := make([]Triple, 100000)
	for k := range in {
		in[k] = Triple{int32(r.IntN(943)), int32(r.IntN(1682)), float64(1 + r.IntN(5))}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Build(943, 1682, in, DuplicatesAverage); err != nil {
			b.Fatal(err)
		}
	}
}
