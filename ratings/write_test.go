package ratings

import (
	"bytes"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
)

// byIDs returns d's ratings keyed by external user and item IDs, as the
// bits of each value.
func byIDs(d *Dataset) map[[2]string]uint64 {
	out := map[[2]string]uint64{}
	for t := range d.Ratings.All() {
		out[[2]string{d.Users.ID(int(t.User)), d.Items.ID(int(t.Item))}] = math.Float64bits(t.Value)
	}
	return out
}

// roundTrip writes d with WriteTSV and loads the output back in d's range.
func roundTrip(t *testing.T, d *Dataset) *Dataset {
	t.Helper()
	var b bytes.Buffer
	if err := d.WriteTSV(&b); err != nil {
		t.Fatalf("WriteTSV: %v", err)
	}
	back, err := Read(&b, "round.tsv", Options{Format: FormatTSV, Min: d.Min, Max: d.Max})
	if err != nil {
		t.Fatalf("reading WriteTSV's output: %v", err)
	}
	return back
}

// TestWriteTSVRoundTrip checks that WriteTSV's output loads back to the
// same ratings, bit for bit, under the same IDs, in the same storage
// (coded or float32).
func TestWriteTSVRoundTrip(t *testing.T) {
	for _, tt := range []struct {
		name  string
		in    string
		bytes int // per rating, both views
	}{
		{"stars", "u1\ti1\t5\nu1\ti2\t3\nu2\ti2\t1\nu3\ti1\t4\n", 10},
		{"thirds", "a\tx\t0.3333333333333333\nb\ty\t4.666666666666667\nb\tx\t-1e-300\n", 10},
		{"many floats", func() string {
			var s strings.Builder
			for k := range 600 {
				s.WriteString(strings.Join([]string{itoa(k % 41), itoa(k / 41), ftoa(float64(float32(math.Sqrt(float64(k)))))}, "\t") + "\n")
			}
			return s.String()
		}(), 16},
		{"many doubles", func() string {
			var s strings.Builder
			for k := range 600 {
				s.WriteString(strings.Join([]string{itoa(k % 41), itoa(k / 41), ftoa(math.Sqrt(float64(k)) / 3)}, "\t") + "\n")
			}
			return s.String()
		}(), 16},
	} {
		d, err := Read(strings.NewReader(tt.in), tt.name, Options{Format: FormatTSV, Min: -10, Max: 100})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		back := roundTrip(t, d)
		want, got := byIDs(d), byIDs(back)
		if len(got) != len(want) || back.Ratings.Rows() != d.Ratings.Rows() || back.Ratings.Cols() != d.Ratings.Cols() {
			t.Fatalf("%s: %d ratings of %d × %d back, want %d of %d × %d", tt.name, len(got), back.Ratings.Rows(), back.Ratings.Cols(), len(want), d.Ratings.Rows(), d.Ratings.Cols())
		}
		for k, v := range want {
			if got[k] != v {
				t.Fatalf("%s: %v reads %v back, want %v", tt.name, k, math.Float64frombits(got[k]), math.Float64frombits(v))
			}
		}
		m := back.Ratings
		size := tt.bytes*m.Len() + (m.Rows()+m.Cols()+2)*4
		if tt.bytes == 10 {
			size += 256 * 8 // the table
		}
		if got := m.Bytes(); got != size {
			t.Errorf("%s: Bytes() = %d after the round trip, want %d (%d per rating)", tt.name, got, size, tt.bytes)
		}
	}
}

// TestWriteTSVRejects checks that WriteTSV refuses, before writing, IDs
// that the format cannot carry.
func TestWriteTSVRejects(t *testing.T) {
	// The loaders refuse such IDs (TestBadInput); a Dataset can still be
	// given them by hand.
	for _, bad := range []string{"a\tb", "a\nb", "x\ry", ""} {
		d, err := Read(strings.NewReader("u,x,1\n"), "ids.csv", Options{Format: FormatCSV})
		if err != nil {
			t.Fatal(err)
		}
		if d.Users, err = NewIDs([]string{bad}); err != nil {
			t.Fatal(err)
		}
		in := bad
		var b bytes.Buffer
		err = d.WriteTSV(&b)
		if err == nil || !strings.Contains(err.Error(), "cannot be written as tsv") || b.Len() != 0 {
			t.Errorf("%q: WriteTSV = %v with %d bytes written, want an error naming the ID and nothing written", in, err, b.Len())
		}
	}
	if err := (&Dataset{}).WriteTSV(&bytes.Buffer{}); err == nil {
		t.Error("WriteTSV of an empty Dataset: no error")
	}
	d, err := Read(strings.NewReader("1\t2\t3\n"), "w.tsv", Options{Format: FormatTSV})
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("disk full")
	if err := d.WriteTSV(failWriter{boom}); !errors.Is(err, boom) {
		t.Errorf("WriteTSV to a failing writer = %v, want it wrapped", err)
	}
}

type failWriter struct{ err error }

func (f failWriter) Write([]byte) (int, error) { return 0, f.err }

func itoa(k int) string     { return strconv.Itoa(k) }
func ftoa(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// FuzzWriteTSVRoundTrip loads fuzzed tsv, writes it with WriteTSV and
// loads the output: the same ratings under the same IDs, bit for bit.
func FuzzWriteTSVRoundTrip(f *testing.F) {
	f.Add([]byte("1\t2\t3\n2\t1\t4.5\n"))
	f.Add([]byte("a b\tx\t0.1\nc\tx\t1e-7\nc\ty\t-0\n"))
	f.Add([]byte("u\ti\t3.4028234663852886e+38\nv\ti\t5e-324\n"))
	f.Add([]byte("0\t0\r0\t1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Read(bytes.NewReader(data), "f.tsv", Options{Format: FormatTSV, Min: -1e300, Max: 1e300, Duplicates: DuplicatesAverage})
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := d.WriteTSV(&out); err != nil {
			if !strings.Contains(err.Error(), "cannot be written as tsv") || out.Len() != 0 {
				t.Fatalf("WriteTSV: %v, %d bytes written", err, out.Len())
			}
			return // an ID with a carriage return: refused, as it should be
		}
		back, err := Read(&out, "back.tsv", Options{Format: FormatTSV, Min: -1e300, Max: 1e300})
		if err != nil {
			t.Fatalf("reading WriteTSV's output: %v", err)
		}
		want, got := byIDs(d), byIDs(back)
		if len(got) != len(want) {
			t.Fatalf("%d ratings back, want %d", len(got), len(want))
		}
		for k, v := range want {
			if got[k] != v {
				t.Fatalf("%q reads %v back, want %v", k, math.Float64frombits(got[k]), math.Float64frombits(v))
			}
		}
	})
}
