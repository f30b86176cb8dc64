package ratings

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestParseRating(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		msg  string // a substring of the error; "" if accepted
	}{
		{"4", 4, ""},
		{"3.5", 3.5, ""},
		{"+4", 4, ""},
		{"-1", -1, ""},
		{"-0", 0, ""},
		{".5", 0.5, ""},
		{"5.", 5, ""},
		{"4e0", 4, ""},
		{"4.5E-1", 0.45, ""},
		{"1e-400", 0, ""}, // underflows to 0, which is finite
		{"00012", 12, ""},
		{"", 0, "empty rating"},
		{".", 0, "not a number"},
		{"+", 0, "not a number"},
		{"e5", 0, "not a number"},
		{"1e", 0, "not a number"},
		{"1e+", 0, "not a number"},
		{"1.2.3", 0, "not a number"},
		{"--1", 0, "not a number"},
		{" 4", 0, "not a number"},
		{"4 ", 0, "not a number"},
		{"0x1p2", 0, "hexadecimal"},
		{"0X1P-2", 0, "hexadecimal"},
		{"-0x10", 0, "hexadecimal"},
		{"1_000", 0, "digit separators"},
		{"4,5", 0, "a decimal comma? write 4.5"},
		{"NaN", 0, `"NaN" is not finite`},
		{"-nan", 0, "not finite"},
		{"inf", 0, "not finite"},
		{"+Inf", 0, "not finite"},
		{"-Infinity", 0, "not finite"},
		{"infinit", 0, "not a number"},
		{"1e309", 0, "not finite (beyond ±1.7976931348623157e+308)"},
		{"-1e99999999999999999999", 0, "not finite"},
		{"٣", 0, "not a number"}, // an Arabic-Indic digit
		{strings.Repeat("9", 100) + "x", 0, `"` + strings.Repeat("9", 64) + `"…`},
	}
	for _, tt := range tests {
		for _, asBytes := range []bool{false, true} {
			var v float64
			var err error
			if asBytes {
				v, err = parseRating([]byte(tt.in))
			} else {
				v, err = parseRating(tt.in)
			}
			switch {
			case tt.msg == "" && (err != nil || v != tt.want || tt.want == 0 && math.Signbit(v)):
				t.Errorf("parseRating(%q) = %v, %v; want %v", tt.in, v, err, tt.want)
			case tt.msg != "" && (err == nil || !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), tt.msg)):
				t.Errorf("parseRating(%q) = %v, %v; want an ErrSyntax with %q", tt.in, v, err, tt.msg)
			}
		}
	}
}

func TestLooksLikeHeader(t *testing.T) {
	for in, want := range map[string]bool{
		"rating": true, "score": true, "Bewertung": true, "note élève": true, "stars (1-5)": false,
		"4": false, "": false, "NaN": false, "-inf": false, "0x1p2": false, "r2": false, "---": false,
	} {
		if got := looksLikeHeader(in); got != want {
			t.Errorf("looksLikeHeader(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestQuote(t *testing.T) {
	long := strings.Repeat("é", 40) // 80 bytes
	for in, want := range map[string]string{
		"a":                     `"a"`,
		strings.Repeat("x", 64): `"` + strings.Repeat("x", 64) + `"`,
		strings.Repeat("x", 65): `"` + strings.Repeat("x", 64) + `"…`,
		long:                    `"` + strings.Repeat("é", 32) + `"…`,
		"x" + long:              `"x` + strings.Repeat("é", 31) + `"…`, // cut before a split rune
	} {
		if got := quote(in); got != want {
			t.Errorf("quote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestParseRange(t *testing.T) {
	tests := []struct {
		in     string
		lo, hi float64
		msg    string // a substring of the error; "" if accepted
	}{
		{"1,5", 1, 5, ""},
		{"0.5,5", 0.5, 5, ""},
		{" -1 , 1 ", -1, 1, ""},
		{"0,10", 0, 10, ""},
		{"1e0,5e0", 1, 5, ""},
		{"-3e38,3e38", -3e38, 3e38, ""},
		{"-8e307,8e307", 0, 0, "beyond the float32 range"},
		{"0,1e99", 0, 0, "beyond the float32 range"},
		{"-1e308,1e308", 0, 0, "width 1e+308 − (-1e+308) overflows"},
		{"", 0, 0, "want MIN,MAX"},
		{"5", 0, 0, "want MIN,MAX"},
		{"1,2,3", 0, 0, "want MIN,MAX"},
		{"1;5", 0, 0, "want MIN,MAX"},
		{"1..5", 0, 0, "want MIN,MAX"},
		{",5", 0, 0, "MIN is empty"},
		{"1,", 0, 0, "MAX is empty"},
		{"x,5", 0, 0, `MIN "x" is not a number`},
		{"1,0x5", 0, 0, `MAX "0x5" is not a number (hexadecimal`},
		{"NaN,5", 0, 0, `MIN "NaN" is not finite`},
		{"1,Inf", 0, 0, `MAX "Inf" is not finite`},
		{"1,1e999", 0, 0, "not finite (beyond"},
		{"5,1", 0, 0, "minimum 5 is not below maximum 1"},
		{"3,3", 0, 0, "not below"},
		{"0,0", 0, 0, "not below"},
		{"-1.7e308,1.7e308", 0, 0, "overflows"},
		{strings.Repeat("1", 1001) + ",5", 0, 0, "longer than 1000 bytes"},
	}
	for _, tt := range tests {
		lo, hi, err := ParseRange(tt.in)
		if tt.msg == "" {
			if err != nil || lo != tt.lo || hi != tt.hi {
				t.Errorf("ParseRange(%q) = %v, %v, %v; want %v, %v", tt.in, lo, hi, err, tt.lo, tt.hi)
			}
			continue
		}
		if err == nil || !strings.HasPrefix(err.Error(), "ratings: rating range ") || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("ParseRange(%q) = %v, %v, %v; want an error with %q", tt.in, lo, hi, err, tt.msg)
		}
	}
}

func TestDefaultRange(t *testing.T) {
	want := map[Format][2]float64{
		FormatAuto: {0, 0}, FormatML100k: {1, 5}, FormatMLDat: {1, 5}, FormatMLCSV: {0.5, 5},
		FormatSweetRS: {1, 5}, FormatCSV: {1, 5}, FormatTSV: {1, 5}, Format(99): {0, 0},
	}
	for f, w := range want {
		if lo, hi := f.DefaultRange(); lo != w[0] || hi != w[1] {
			t.Errorf("%v.DefaultRange() = %v, %v; want %v, %v", f, lo, hi, w[0], w[1])
		}
	}
}

// TestRangeEveryFormat checks that Options.Min and Max override every
// format's own range, that the known datasets' ranges are filled in
// otherwise, and that ratings outside are errors.
func TestRangeEveryFormat(t *testing.T) {
	files := map[Format]func(rating string) string{
		FormatML100k:  func(r string) string { return "1\t2\t" + r + "\t881250949\n" },
		FormatMLDat:   func(r string) string { return "1::2::" + r + "::881250949\n" },
		FormatMLCSV:   func(r string) string { return "userId,movieId,rating,timestamp\n1,2," + r + ",881250949\n" },
		FormatSweetRS: func(r string) string { return "\"product\",\"user\",\"value\"\n\"a\",1," + r + "\n" },
		FormatCSV:     func(r string) string { return "1,2," + r + "\n" },
		FormatTSV:     func(r string) string { return "1\t2\t" + r + "\n" },
	}
	tests := []struct {
		format   Format
		min, max float64 // Options
		rating   string
		ok       bool
	}{
		{FormatML100k, 0, 0, "5", true},
		{FormatML100k, 0, 0, "6", false},
		{FormatML100k, 0, 10, "10", true},
		{FormatML100k, 0, 10, "11", false},
		{FormatML100k, 2, 4, "1", false},
		{FormatMLDat, 0, 0, "0.5", false},
		{FormatMLDat, 0.5, 5, "0.5", true}, // MovieLens 10M
		{FormatMLDat, 0.5, 5, "4.5", true},
		{FormatMLDat, 0, 0, "4.5", true},
		{FormatMLCSV, 0, 0, "0.5", true},
		{FormatMLCSV, 1, 5, "0.5", false},
		{FormatMLCSV, 0, 10, "9.5", true},
		{FormatSweetRS, 0, 0, "5", true},
		{FormatSweetRS, 1, 3, "4", false},
		{FormatSweetRS, 1, 3, "0", false}, // 0 = not rated is dropped: no ratings left
		{FormatSweetRS, -5, 5, "-4.25", true},
		{FormatCSV, 0, 0, "5.5", false},
		{FormatCSV, -1, 1, "-0.75", true},
		{FormatCSV, -1, 1, "1.5", false},
		{FormatTSV, 0, 100, "99.9", true},
		{FormatTSV, 0, 100, "1e3", false},
	}
	for _, tt := range tests {
		name := fmt.Sprintf("%v[%v,%v]:%s", tt.format, tt.min, tt.max, tt.rating)
		d, err := Read(strings.NewReader(files[tt.format](tt.rating)), name, Options{Format: tt.format, Min: tt.min, Max: tt.max})
		if (err == nil) != tt.ok {
			t.Errorf("%s: err = %v, want ok %v", name, err, tt.ok)
			continue
		}
		if err != nil {
			if !errors.Is(err, ErrRange) && !errors.Is(err, ErrNoRatings) {
				t.Errorf("%s: err = %v, want ErrRange", name, err)
			}
			continue
		}
		wantLo, wantHi := tt.min, tt.max
		if tt.min == 0 && tt.max == 0 {
			wantLo, wantHi = tt.format.DefaultRange()
		}
		if d.Min != wantLo || d.Max != wantHi {
			t.Errorf("%s: Dataset range [%v, %v], want [%v, %v]", name, d.Min, d.Max, wantLo, wantHi)
		}
	}
	// Auto-detection fills in the detected format's range.
	d, err := Read(strings.NewReader("userId,movieId,rating,timestamp\n1,2,0.5,881250949\n"), "ratings.csv", Options{})
	if err != nil || d.Min != 0.5 || d.Max != 5 {
		t.Errorf("auto mlcsv: %v, range %v", err, d)
	}
}

func TestBadRangeOptions(t *testing.T) {
	tests := []struct {
		min, max float64
		msg      string
	}{
		{5, 1, "Options.Min = 5, Options.Max = 1: minimum 5 is not below maximum 1"},
		{3, 3, "not below"},
		{math.NaN(), 5, "minimum NaN is not finite"},
		{1, math.NaN(), "maximum NaN is not finite"},
		{math.Inf(-1), 5, "minimum -Inf is not finite"},
		{1, math.Inf(1), "maximum +Inf is not finite"},
		{-math.MaxFloat64, math.MaxFloat64, "overflows"},
	}
	for _, tt := range tests {
		for _, f := range []Format{FormatAuto, FormatML100k, FormatSweetRS, FormatCSV} {
			_, err := Read(strings.NewReader("1,2,3\n"), "x.csv", Options{Format: f, Min: tt.min, Max: tt.max})
			if err == nil || !strings.HasPrefix(err.Error(), "ratings: x.csv: rating range ") || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("%v [%v, %v]: err = %v, want %q", f, tt.min, tt.max, err, tt.msg)
			}
		}
	}
}

// TestAccepted checks inputs that are odd but fine, and what they give.
func TestAccepted(t *testing.T) {
	tests := []struct {
		name, data string
		opts       Options
		ratings    []rating
		stats      Stats
	}{
		{"ts.csv", "1,2,3,881250949\n2,1,4.5,1256677221123\n", Options{},
			[]rating{{"1", "2", 3}, {"2", "1", 4.5}}, Stats{Lines: 2, Records: 2}},
		{"ts.tsv", "user\titem\trating\ttimestamp\na\tb\t4\t881250949\n", Options{},
			[]rating{{"a", "b", 4}}, Stats{Lines: 2, Header: 1, Records: 1}},
		// A TSV does not quote: the quotes are part of the ID.
		{"q.tsv", "\"a\"\tb\t4\n", Options{}, []rating{{`"a"`, "b", 4}}, Stats{Lines: 1, Records: 1}},
		// In csv quotes are removed, white space around fields trimmed.
		{"q.csv", "\" a \", b ,\" 4 \"\n", Options{}, []rating{{"a", "b", 4}}, Stats{Lines: 1, Records: 1}},
		{"bom.csv", "\xef\xbb\xbfu,i,r\r\n\r\n  \r\nx,y,2\r\n", Options{}, []rating{{"x", "y", 2}}, Stats{Lines: 4, Header: 1, Records: 1}},
		{"utf8.csv", "José,Crème brûlée,5\n", Options{}, []rating{{"José", "Crème brûlée", 5}}, Stats{Lines: 1, Records: 1}},
		// Printable, though next to the C1 controls (U+00A0, U+00BF) or
		// white space inside the ID.
		{"nbsp.csv", "a\u00a0b,\u00bf x,5\n", Options{}, []rating{{"a\u00a0b", "\u00bf x", 5}}, Stats{Lines: 1, Records: 1}},
		{"longid.csv", strings.Repeat("u", MaxIDBytes) + ",i,5\n", Options{},
			[]rating{{strings.Repeat("u", MaxIDBytes), "i", 5}}, Stats{Lines: 1, Records: 1}},
		{"u.data", "1\t2\t3.0\t881250949\n", Options{}, []rating{{"1", "2", 3}}, Stats{Lines: 1, Records: 1}},
		{"ratings.dat", "1::2::4.5::881250949\n", Options{Min: 0.5, Max: 5}, []rating{{"1", "2", 4.5}}, Stats{Lines: 1, Records: 1}},
		{"neg.csv", "a,b,-0\n", Options{Min: -1, Max: 1}, []rating{{"a", "b", 0}}, Stats{Lines: 1, Records: 1}},
		{"exp.csv", "a,b,4e0\nc,d,.5e1\n", Options{}, []rating{{"a", "b", 4}, {"c", "d", 5}}, Stats{Lines: 2, Records: 2}},
		{"cols.csv", "x,a,b,3,y,z\n", Options{Columns: "_,user,item,rating,_,_"}, []rating{{"a", "b", 3}}, Stats{Lines: 1, Records: 1}},
	}
	for _, tt := range tests {
		d, err := Read(strings.NewReader(tt.data), tt.name, tt.opts)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if err := verifyDataset(d); err != nil {
			t.Errorf("%s: %v", tt.name, err)
		}
		if got := ratingsOf(d); !slices.Equal(got, tt.ratings) || d.Stats != tt.stats {
			t.Errorf("%s: ratings %v, stats %+v; want %v, %+v", tt.name, got, d.Stats, tt.ratings, tt.stats)
		}
	}
}

func TestMean(t *testing.T) {
	big := math.MaxFloat64
	tests := []struct {
		in   []float64
		want float64
	}{
		{[]float64{4, 5}, 4.5},
		{[]float64{1, 2, 2}, 5.0 / 3},
		{[]float64{big, big}, big},
		{[]float64{big, big, -big, -big}, 0}, // the old running mean gave NaN
		{[]float64{big, big, -big}, big / 3},
		{[]float64{-big, -big, -big}, -big},
		{[]float64{big, big / 2}, big * 0.75},
		{[]float64{big, 1e-300, math.SmallestNonzeroFloat64}, big / 3},
		{[]float64{big, -big}, 0},
	}
	for _, tt := range tests {
		in := make([]Triple, len(tt.in))
		idx := make([]int32, len(tt.in))
		for k, v := range tt.in {
			in[k], idx[k] = Triple{Value: v}, int32(k)
		}
		got := mean(ValuesOf(tt.in), idx)
		if got != tt.want && math.Abs(got-tt.want) > 1e-15*math.Abs(tt.want) {
			t.Errorf("mean(%v) = %v, want %v", tt.in, got, tt.want)
		}
		// Build stores the same rounded to float32, finite, within the
		// values' range; it refuses values beyond float32's range.
		m, _, err := Build(1, 1, in, DuplicatesAverage)
		if slices.ContainsFunc(tt.in, func(v float64) bool { return math.Abs(v) > math.MaxFloat32 }) {
			if err == nil {
				t.Errorf("Build(%v) accepted values beyond float32's range", tt.in)
			}
			continue
		}
		if err != nil || len(tt.in) > 1 && m.Max() != float64(float32(got)) {
			t.Errorf("Build(%v): %v, %v", tt.in, m, err)
		}
	}
	// Build rejects non-finite values, whatever the policy.
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		for _, dup := range []Duplicates{DuplicatesDefault, DuplicatesError, DuplicatesAverage} {
			_, _, err := Build(1, 1, []Triple{{0, 0, 1}, {0, 0, v}}, dup)
			if err == nil || !strings.Contains(err.Error(), "ratings: triple 1: value") {
				t.Errorf("Build with %v, %v: err = %v", v, dup, err)
			}
		}
	}
}

// TestIsInt64 holds the timestamp check to strconv.ParseInt(s, 10, 64),
// which it replaces, on edge cases and on random short strings.
func TestIsInt64(t *testing.T) {
	cases := []string{"", "+", "-", "0", "-0", "+0", "00", "0012", "874965758", "1_0", "0x10", " 1", "1 ", "1.0", "1e3",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
		"09223372036854775807", "+9223372036854775807", "99999999999999999999", "-", "٣"}
	r := rand.New(rand.NewPCG(7, 8))
	const alphabet = "0123456789+-_ x"
	for range 20000 {
		b := make([]byte, r.IntN(22))
		for k := range b {
			b[k] = alphabet[r.IntN(len(alphabet))]
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		_, err := strconv.ParseInt(s, 10, 64)
		if got := isInt64([]byte(s)); got != (err == nil) {
			t.Errorf("isInt64(%q) = %v, strconv.ParseInt error %v", s, got, err)
		}
	}
}
