package ratings

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"unicode"
)

// scanAll runs Scan on s and returns its records.
func scanAll(ctx context.Context, s, name string, opts Options) ([]Record, ScanInfo, error) {
	var out []Record
	info, err := Scan(ctx, strings.NewReader(s), name, opts, func(r Record) error {
		out = append(out, r)
		return nil
	})
	return out, info, err
}

func TestScan(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name, in string
		opts     Options
		want     []Record
		format   Format
		dup      Duplicates
		err      string // substring of the error, "" for none
	}{
		{"sweetrs quoted header and IDs", `"product","user","value"` + "\n\"1\",\"10\",5\n\"2\",\"10\",0\n\"2\",\"11\",2\n", Options{},
			[]Record{{"10", "1", 5, 2}, {"11", "2", 2, 4}}, FormatSweetRS, DuplicatesAverage, ""},
		{"csv quotes without header", "\"1\",\"10\",5\n\"2\",\"10\",4\n", Options{Columns: "user,item,rating"},
			[]Record{{"1", "10", 5, 1}, {"2", "10", 4, 2}}, FormatCSV, DuplicatesError, ""},
		{"csv quoted comma in an ID", "\"a,b\",c,3\n", Options{},
			[]Record{{"a,b", "c", 3, 1}}, FormatCSV, DuplicatesError, ""},
		{"ml100k", "1\t2\t3\t881250949\n", Options{Format: FormatML100k},
			[]Record{{"1", "2", 3, 1}}, FormatML100k, DuplicatesError, ""},
		{"pairs tsv, default columns", "user\titem\n1\t2\n3\t4\n", Options{},
			[]Record{{"1", "2", nan, 2}, {"3", "4", nan, 3}}, FormatPairs, DuplicatesAverage, ""},
		{"pairs, named columns", "x,9,1\ny,8,2\n", Options{Columns: "_,item,user"},
			[]Record{{"1", "9", nan, 1}, {"2", "8", nan, 2}}, FormatCSV, DuplicatesError, ""},
		{"pairs, header not a user name", "alice,apple\n", Options{},
			[]Record{{"alice", "apple", nan, 1}}, FormatPairs, DuplicatesAverage, ""},
		{"duplicates left to the caller", "1,2,3\n1,2,4\n", Options{},
			[]Record{{"1", "2", 3, 1}, {"1", "2", 4, 2}}, FormatCSV, DuplicatesError, ""},
		{"rating out of range", "1,2,9\n", Options{}, nil, 0, 0, "x.csv:1: rating out of range: rating 9 outside [1, 5]"},
		{"declared range", "1,2,9\n", Options{Min: 0, Max: 10}, []Record{{"1", "2", 9, 1}}, FormatCSV, DuplicatesError, ""},
		{"rating zero", "1,2,0\n", Options{}, nil, 0, 0, "rating 0 outside [1, 5] (SweetRS writes 0 for not rated: read its ratings-final.csv as format sweetrs"},
		{"mixed", "1,2,3\n1,3\n", Options{}, nil, 0, 0, "x.csv:2: malformed line: a record with no rating, but the record on line 1 has a rating"},
		{"header only", "user,item,rating\n", Options{}, nil, 0, 0, "x.csv:1: no ratings: a header but no rating lines"},
		{"empty", "", Options{}, nil, 0, 0, "no ratings: empty file"},
		{"zeros only", `"product","user","value"` + "\n\"1\",\"10\",0\n", Options{}, nil, 0, 0, "all 1 rating lines dropped"},
		{"fields", "1,2,3,4\n", Options{}, nil, 0, 0, "x.csv:1: malformed line: 4 fields"},
		{"space-separated pair", "1 2\n", Options{}, nil, 0, 0, "x.csv:1: malformed line: 1 field, want user,item or user,item,rating (fields are separated by commas or tabs)"},
		{"columns need user and item", "1,2\n", Options{Columns: "user,_"}, nil, 0, 0, `columns "user,_": must name user and item`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, info, err := scanAll(context.Background(), tc.in, "x.csv", tc.opts)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if info.Format != tc.format || info.Duplicates != tc.dup || info.Rated != !math.IsNaN(tc.want[0].Rating) {
				t.Errorf("info %+v, want format %v, duplicates %v", info, tc.format, tc.dup)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("records %v, want %v", got, tc.want)
			}
			for k, r := range got {
				w := tc.want[k]
				if r.User != w.User || r.Item != w.Item || r.Line != w.Line || !(r.Rating == w.Rating || math.IsNaN(r.Rating) && math.IsNaN(w.Rating)) {
					t.Errorf("record %d = %+v, want %+v", k, r, w)
				}
			}
		})
	}
}

// TestScanSameAsRead checks that Scan keeps exactly the ratings Read
// stores, on the test files of every format.
func TestScanSameAsRead(t *testing.T) {
	for _, in := range []struct{ name, data string }{
		{"u1.base", "1\t1\t5\t874965758\n1\t2\t3\t876893171\n2\t1\t4\t888550871\n"},
		{"ratings.dat", "1::1193::5::978300760\n1::661::3::978302109\n"},
		{"ratings.csv", "userId,movieId,rating,timestamp\n1,1,4.0,964982703\n1,3,4.5,964981247\n"},
		{"s.csv", `"product","user","value"` + "\n\"a\",1,3\n\"b\",1,0\n\"a\",2,4\n"},
		{"g.tsv", "u\ti\tr\n\nx\ty\t2.5\n"},
	} {
		d, err := Read(strings.NewReader(in.data), in.name, Options{})
		if err != nil {
			t.Fatal(err)
		}
		recs, info, err := scanAll(context.Background(), in.data, in.name, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if info.Format != d.Format || info.Stats != d.Stats || len(recs) != d.Ratings.Len() {
			t.Fatalf("%s: Scan %+v with %d records, Read %v %+v with %d", in.name, info, len(recs), d.Format, d.Stats, d.Ratings.Len())
		}
		for _, r := range recs {
			i, _ := d.Users.Index(r.User)
			j, _ := d.Items.Index(r.Item)
			if v, ok := valueAt(d.Ratings, i, j); !ok || v != r.Rating {
				t.Errorf("%s: record %+v, Read has %v, %v", in.name, r, v, ok)
			}
		}
	}
}

func TestScanCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		format Format
		line   string
	}{
		{FormatCSV, "1,2,3\n"}, {FormatTSV, "1\t2\t3\n"}, {FormatML100k, "1\t2\t3\t4\n"},
		// Records on every other line: the check counts records, not
		// line numbers.
		{FormatCSV, "1,2,3\n\n"}, {FormatCSV, "1,2,3\r\n\r\n"}, {FormatTSV, "1\t2\t3\n\n"},
	} {
		n := 0
		_, err := Scan(ctx, strings.NewReader(strings.Repeat(tc.line, 2*cancelEvery)), "x", Options{Format: tc.format},
			func(Record) error { n++; return nil })
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%v: error %v, want context.Canceled", tc.format, err)
		}
		if n >= cancelEvery {
			t.Errorf("%v: %d records passed on after cancellation, want < %d", tc.format, n, cancelEvery)
		}
	}
}

func TestScanFnError(t *testing.T) {
	stop := errors.New("stop")
	_, err := Scan(context.Background(), strings.NewReader("1,2,3\n4,5,3\n"), "x", Options{}, func(r Record) error {
		if r.Line == 2 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) {
		t.Fatalf("error %v, want fn's", err)
	}
}

// valueAt returns the rating of user i for item j in m.
func valueAt(m *Matrix, i, j int) (float64, bool) {
	items, vals := m.Row(i)
	for k, c := range items {
		if int(c) == j {
			return vals.At(k), true
		}
	}
	return 0, false
}

// FuzzScan checks Scan against Read on arbitrary input: where Read keeps
// a file (duplicates averaged), Scan keeps the same pairs and ratings in
// the range; where Read fails for another reason than a duplicate, so does
// Scan, with the same error, unless Scan read a record without a rating.
func FuzzScan(f *testing.F) {
	for _, s := range []string{
		"1,2,3\n", "\"1\",\"10\",5\n", `"product","user","value"` + "\n\"1\",\"10\",5\n\"1\",\"10\",0\n",
		"user\titem\n1\t2\n", "1,2\n1,2,3\n", "u,i,r\n", "1::2::3::4\n", "a,b,9\n", "\"a\nb\",c,3\n",
	} {
		f.Add(s, "x.csv")
		f.Add(s, "u1.test")
	}
	f.Fuzz(func(t *testing.T, s, name string) {
		opts := Options{Duplicates: DuplicatesAverage}
		d, rerr := Read(strings.NewReader(s), name, opts)
		sum := map[[2]string][2]float64{}
		rated := true
		info, serr := Scan(context.Background(), strings.NewReader(s), name, opts, func(r Record) error {
			if r.User == "" || r.Item == "" || r.Line < 1 || strings.IndexFunc(r.User+r.Item, unicode.IsControl) >= 0 {
				t.Fatalf("record %+v", r)
			}
			if math.IsNaN(r.Rating) {
				rated = false
				return nil
			}
			k := [2]string{r.User, r.Item}
			sum[k] = [2]float64{sum[k][0] + r.Rating, sum[k][1] + 1}
			return nil
		})
		if serr != nil {
			if name == "" {
				name = "<input>"
			}
			checkErr(t, serr, name, []byte(s))
		}
		switch {
		case rerr == nil && d.Implicit:
			// pairs: Read keeps each pair once, as 1; Scan reads them without ratings
			if serr != nil || rated || info.Format != FormatPairs || info.Stats.Records != d.Stats.Records {
				t.Fatalf("pairs: Scan %v %+v, rated %v; Read %+v", serr, info, rated, d.Stats)
			}
		case rerr == nil:
			if serr != nil {
				t.Fatalf("Read kept the file, Scan: %v", serr)
			}
			if len(sum) != d.Ratings.Len() || info.Format != d.Format || info.Stats.Records != d.Stats.Records {
				t.Fatalf("Scan: %d pairs, %+v; Read: %d, %v %+v", len(sum), info, d.Ratings.Len(), d.Format, d.Stats)
			}
			for k, v := range sum {
				i, ok1 := d.Users.Index(k[0])
				j, ok2 := d.Items.Index(k[1])
				x, ok3 := valueAt(d.Ratings, i, j)
				if !ok1 || !ok2 || !ok3 || math.Abs(x-v[0]/v[1]) > 1e-9*math.Max(1, math.Abs(x)) || x < info.Min || x > info.Max {
					t.Fatalf("pair %q: Scan mean %v, Read %v", k, v[0]/v[1], x)
				}
			}
		case strings.Contains(rerr.Error(), "2 fields, want 3"), strings.Contains(rerr.Error(), "1 fields, want 3"):
			// a record of user and item alone, a pair to Scan; or of one
			// field, which Scan describes as a pair's error
		case strings.Contains(rerr.Error(), "malformed line: 2 fields, and a carriage return inside the line"):
			// the same two-field record with a CR in it: Scan reads a
			// pair, which it must refuse too (for the CR in an ID, or an
			// empty ID), in its own words
			if serr == nil {
				t.Fatalf("Read: %v\nScan: %v", rerr, serr)
			}
		case rated && serr != nil && rerr.Error() != serr.Error():
			t.Fatalf("Read: %v\nScan: %v", rerr, serr)
		case rated && serr == nil:
			t.Fatalf("Read: %v; Scan kept the file", rerr)
		}
	})
}
