package ratings

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/dpmc/dpmc/internal/procstat"
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

var benchLarge = flag.Bool("large", false, "BenchmarkLoad10M: write and load a 10 M-line file (about 230 MB in a temporary folder)")

// BenchmarkLoad10M loads a MovieLens-shaped tsv of 10 M distinct ratings
// (100 000 users × 20 000 items, integer ratings, timestamps), written
// first to a temporary folder; it runs only with -large:
//
//	go test ./ratings -run '^$' -bench Load10M -benchtime 3x -large
//
// It reports the CPU seconds per load (Unix; wall time on a shared machine
// depends on the neighbours), the peak resident memory of the process
// (Linux), the loaded matrix's own size, and MB/s of file.
func BenchmarkLoad10M(b *testing.B) {
	if !*benchLarge {
		b.Skip("needs -large")
	}
	const users, items, n = 100_000, 20_000, 10_000_000
	path := filepath.Join(b.TempDir(), "ratings.tsv")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for k := range n {
		// For a user u, the item (199q + 7u) mod 20000 differs for every
		// q = k / users < 100, so the pairs are distinct.
		u, q := k%users, k/users
		fmt.Fprintf(w, "%d\t%d\t%d\t%d\n", u+1, (199*q+7*u)%items+1, k%5+1, 874724710+k)
	}
	if err := errors.Join(w.Flush(), f.Close()); err != nil {
		b.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	var bytes int
	cpu0, cpuOK := procstat.CPUTime()
	for b.Loop() {
		d, err := Load(path, Options{Format: FormatML100k})
		if err != nil {
			b.Fatal(err)
		}
		if d.Ratings.Len() != n {
			b.Fatalf("%d ratings", d.Ratings.Len())
		}
		bytes = d.Ratings.Bytes()
	}
	if cpu1, _ := procstat.CPUTime(); cpuOK {
		b.ReportMetric((cpu1-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	}
	b.ReportMetric(float64(bytes)/(1<<20), "matrix-MiB")
	if hwm, ok := procstat.PeakRSS(); ok {
		b.ReportMetric(float64(hwm)/(1<<20), "peak-RSS-MiB")
	}
}
