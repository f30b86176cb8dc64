package ratings

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

// checkErr checks an error from Read: a *ParseError names the input and a
// plausible line.
func checkErr(t *testing.T, err error, name string, data []byte) {
	t.Helper()
	if !strings.HasPrefix(err.Error(), "ratings: ") {
		t.Fatalf("error without package prefix: %v", err)
	}
	var pe *ParseError
	if errors.As(err, &pe) {
		lines := bytes.Count(data, []byte{'\n'}) + 1
		if pe.File != name || pe.Line < 0 || pe.Line > lines {
			t.Fatalf("ParseError %+v for %d lines, name %q", pe, lines, name)
		}
		if !errors.Is(err, ErrSyntax) && !errors.Is(err, ErrRange) && !errors.Is(err, ErrDuplicate) && !errors.Is(err, ErrNoRatings) {
			t.Fatalf("ParseError wraps no sentinel: %v", err)
		}
	}
}

// checkSelfTest reads data again as a test set for d: every user and item is
// known, so it must give the same ratings.
func checkSelfTest(t *testing.T, d *Dataset, data []byte, opts Options) {
	t.Helper()
	test, err := ReadTest(bytes.NewReader(data), d.Source, opts, d)
	if err != nil {
		t.Fatalf("re-reading as a test set: %v", err)
	}
	if err := verifyDataset(test); err != nil {
		t.Fatalf("test set: %v", err)
	}
	if test.Stats != d.Stats || !slices.Equal(test.Ratings.Triples(), d.Ratings.Triples()) {
		t.Fatalf("test set differs: stats %+v vs %+v", test.Stats, d.Stats)
	}
}

func FuzzRead(f *testing.F) {
	f.Add([]byte("1,2,3\n2,1,4\n"), false, "", uint8(0))
	f.Add([]byte("user\titem\trating\n1\t2\t3\n1\t2\t5\n"), true, "", uint8(1|4))
	f.Add([]byte("\xef\xbb\xbfmovie,_,person,score\r\nm1,x,alice,2.5\r\n\r\n\"m,2\",y,bob,4\r\n"), false, "item,_,user,rating", uint8(0))
	f.Add([]byte("a\tb\t-1\nb\ta\t0.5\n"), true, "rating,user,item", uint8(2|8))
	f.Add([]byte("x,\"y\nz\",3\n\"\"\"q\",w,1e0\n"), false, "user,item,rating", uint8(2))
	f.Add([]byte("1,2,NaN\n"), false, "", uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, tsv bool, columns string, flags uint8) {
		opts := Options{Format: FormatCSV, Columns: columns, Header: Header(flags % 3)}
		if tsv {
			opts.Format = FormatTSV
		}
		if flags&4 != 0 {
			opts.Duplicates = DuplicatesAverage
		}
		if flags&8 != 0 {
			opts.Min, opts.Max = -1, 1
		}
		d, err := Read(bytes.NewReader(data), "fuzz.txt", opts)
		if err != nil {
			checkErr(t, err, "fuzz.txt", data)
			return
		}
		if err := verifyDataset(d); err != nil {
			t.Fatal(err)
		}
		if d.Format != opts.Format || d.FormatReason != "requested" {
			t.Fatalf("format %v (%s), requested %v", d.Format, d.FormatReason, opts.Format)
		}
		checkSelfTest(t, d, data, opts)
	})
}

func FuzzReadAuto(f *testing.F) {
	f.Add([]byte("196\t242\t3\t881250949\n186\t302\t3\t891717742\n"), "u.data")
	f.Add([]byte("1\t10\t4\t874965758\r\n"), "u1.test")
	f.Add([]byte("1::1193::5::978300760\n1::661::3::978302109\n"), "ratings.dat")
	f.Add([]byte("userId,movieId,rating,timestamp\n1,307,3.5,1256677221\n"), "ratings.csv")
	f.Add([]byte("\"product\",\"user\",\"value\"\n\"Mars\",1,4\n\"Mars\",1,0\n\"Mars\",1,5\n"), "ratings-final.csv")
	f.Add([]byte("\xef\xbb\xbfuser,item,rating\n\"a, b\",x,5\n"), "r.csv")
	f.Add([]byte("a\tb\t2\n"), "r.tsv")
	f.Add([]byte(""), "empty")
	f.Fuzz(func(t *testing.T, data []byte, name string) {
		d, err := Read(bytes.NewReader(data), name, Options{})
		if name == "" {
			name = "<input>"
		}
		if err != nil {
			checkErr(t, err, name, data)
			return
		}
		if err := verifyDataset(d); err != nil {
			t.Fatal(err)
		}
		// Reading again with the chosen format gives the same dataset.
		again, err := Read(bytes.NewReader(data), name, Options{Format: d.Format})
		if err != nil {
			t.Fatalf("auto chose %v (%s), which then fails: %v", d.Format, d.FormatReason, err)
		}
		if again.Stats != d.Stats || !slices.Equal(again.Ratings.Triples(), d.Ratings.Triples()) {
			t.Fatalf("auto and explicit %v differ", d.Format)
		}
		checkSelfTest(t, d, data, Options{})
	})
}

func FuzzBuild(f *testing.F) {
	f.Add([]byte{3, 3, 0, 0, 1, 1, 1, 2, 0, 0, 3})
	f.Add([]byte{1, 1, 0, 0, 255, 0, 0, 254})
	f.Add([]byte{0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		m, n := int(data[0]%8), int(data[1]%8)
		policy := Duplicates(data[0] / 8 % 3)
		var in []Triple
		special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64}
		for p := 2; p+3 <= len(data); p += 3 {
			v := float64(int8(data[p+2])) / 4
			if data[p+2] >= 250 {
				v = special[data[p+2]-250]
			}
			in = append(in, Triple{int32(data[p]%9) - 1, int32(data[p+1] % 9), v})
		}
		mat, averaged, err := Build(m, n, in, policy)
		if err != nil {
			return
		}
		if err := verifyMatrix(mat); err != nil {
			t.Fatal(err)
		}
		if mat.Rows() != m || mat.Cols() != n || mat.Len() > len(in) || (averaged == 0) != (mat.Len() == len(in)) {
			t.Fatalf("%d × %d, Len %d of %d, averaged %d", mat.Rows(), mat.Cols(), mat.Len(), len(in), averaged)
		}
		if policy != DuplicatesAverage && mat.Len() != len(in) {
			t.Fatal("duplicates accepted without averaging")
		}
	})
}
