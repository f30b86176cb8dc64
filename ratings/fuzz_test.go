package ratings

import (
	"bytes"
	"errors"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// The fuzz targets, one per parser; no name is a prefix of another, so
// each can be run alone, e.g.
//
//	go test ./ratings -run '^$' -fuzz '^FuzzReadGeneric$' -fuzztime 1000000x -parallel 1
//
// FuzzReadGeneric (csv and tsv with Options), FuzzReadAuto (detection and
// the known formats), FuzzReadDeclaredPairs (implicit feedback), FuzzBuild, FuzzParseRating, FuzzParseRange,
// FuzzParseColumns, FuzzParseNames. Seed corpora are in testdata/fuzz.

// checkErr checks an error from Read: a *ParseError names the input and a
// plausible line, and the message stays short whatever the input (opts
// are the caller's strings that a message may quote).
func checkErr(t *testing.T, err error, name string, data []byte, opts ...string) {
	t.Helper()
	if !strings.HasPrefix(err.Error(), "ratings: ") {
		t.Fatalf("error without package prefix: %v", err)
	}
	limit := 1024 + 8*len(name)
	for _, o := range opts {
		limit += 8 * len(o)
	}
	if len(err.Error()) > limit {
		t.Fatalf("error message of %d bytes: %.200s…", len(err.Error()), err)
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

// checkIDs checks that every ID of a loaded dataset is what the loaders
// promise: not empty, at most MaxIDBytes, valid UTF-8, trimmed.
func checkIDs(t *testing.T, d *Dataset) {
	t.Helper()
	for _, ids := range []*IDs{d.Users, d.Items} {
		for i := range ids.Len() {
			id := ids.ID(i)
			if id == "" || len(id) > MaxIDBytes || !utf8.ValidString(id) || strings.TrimSpace(id) != id || strings.IndexFunc(id, unicode.IsControl) >= 0 {
				t.Fatalf("ID %q accepted", id)
			}
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

// FuzzReadGeneric reads csv and tsv with fuzzed Options.Columns, Header,
// Duplicates and range.
func FuzzReadGeneric(f *testing.F) {
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
			checkErr(t, err, "fuzz.txt", data, columns)
			return
		}
		if err := verifyDataset(d); err != nil {
			t.Fatal(err)
		}
		checkIDs(t, d)
		if d.Format != opts.Format || d.FormatReason != "requested" {
			t.Fatalf("format %v (%s), requested %v", d.Format, d.FormatReason, opts.Format)
		}
		checkSelfTest(t, d, data, opts)
	})
}

// FuzzReadAuto reads with format detection: the known formats and csv,
// tsv with their defaults.
func FuzzReadAuto(f *testing.F) {
	f.Add([]byte("196\t242\t3\t881250949\n186\t302\t3\t891717742\n"), "u.data")
	f.Add([]byte("1\t10\t4\t874965758\r\n"), "u1.test")
	f.Add([]byte("1::1193::5::978300760\n1::661::3::978302109\n"), "ratings.dat")
	f.Add([]byte("userId,movieId,rating,timestamp\n1,307,3.5,1256677221\n"), "ratings.csv")
	f.Add([]byte("\"product\",\"user\",\"value\"\n\"Mars\",1,4\n\"Mars\",1,0\n\"Mars\",1,5\n"), "ratings-final.csv")
	f.Add([]byte("\xef\xbb\xbfuser,item,rating\n\"a, b\",x,5\n"), "r.csv")
	f.Add([]byte("a\tb\t2\n"), "r.tsv")
	f.Add([]byte(""), "empty")
	f.Add([]byte("user,item\nu1,i1\nu1,i1\n"), "clicks.csv")
	f.Add([]byte("u1\ti1\r\nu2\ti1\n"), "plays.test")
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
		checkIDs(t, d)
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

// FuzzReadDeclaredPairs reads implicit feedback declared as pairs, with
// every header option and duplicates policy: a kept file is Implicit,
// every value 1, and reads the same as a test set of itself.
func FuzzReadDeclaredPairs(f *testing.F) {
	f.Add([]byte("user,item\nu1,i1\nu1,i2\nu1,i1\n"), uint8(0))
	f.Add([]byte("a\tb\nc\td\n"), uint8(2))
	f.Add([]byte("\"a,b\",c\n\"x\ny\",z\n"), uint8(1))
	f.Add([]byte("a\tb\tc\n"), uint8(0))
	f.Add([]byte("a,b\na,b\n"), uint8(4))
	f.Fuzz(func(t *testing.T, data []byte, flags uint8) {
		opts := Options{Format: FormatPairs, Header: Header(flags % 3)}
		if flags&4 != 0 {
			opts.Duplicates = DuplicatesError
		}
		d, err := Read(bytes.NewReader(data), "pairs.txt", opts)
		if err != nil {
			checkErr(t, err, "pairs.txt", data)
			return
		}
		if err := verifyDataset(d); err != nil {
			t.Fatal(err)
		}
		checkIDs(t, d)
		if !d.Implicit || d.Format != FormatPairs || d.Min != 0 || d.Max != 1 {
			t.Fatalf("format %v, implicit %v, range %v–%v", d.Format, d.Implicit, d.Min, d.Max)
		}
		for _, tr := range d.Ratings.Triples() {
			if tr.Value != 1 {
				t.Fatalf("value %v, want 1", tr.Value)
			}
		}
		checkSelfTest(t, d, data, opts)
	})
}

// FuzzBuild builds matrices of up to 7 × 7 from triples with indices out
// of range, special values and duplicates under every policy.
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
			if !strings.HasPrefix(err.Error(), "ratings: ") {
				t.Fatalf("error without package prefix: %v", err)
			}
			return
		}
		if err := verifyMatrix(mat); err != nil {
			t.Fatal(err)
		}
		// Every stored value is the mean of its pair's values rounded to
		// float32: within their range rounded so (rounding is monotone),
		// and close to sum/count when that does not overflow.
		type key struct{ u, i int32 }
		lo, hi, sum, cnt := map[key]float64{}, map[key]float64{}, map[key]float64{}, map[key]float64{}
		for _, tr := range in {
			k := key{tr.User, tr.Item}
			if cnt[k] == 0 {
				lo[k], hi[k] = tr.Value, tr.Value
			}
			lo[k], hi[k] = min(lo[k], tr.Value), max(hi[k], tr.Value)
			sum[k] += tr.Value
			cnt[k]++
		}
		for tr := range mat.All() {
			k := key{tr.User, tr.Item}
			if !(tr.Value >= round32(lo[k]) && tr.Value <= round32(hi[k])) {
				t.Fatalf("%+v: value outside [%v, %v] of its %v ratings", tr, lo[k], hi[k], cnt[k])
			}
			if want := sum[k] / cnt[k]; !math.IsInf(sum[k], 0) && math.Abs(tr.Value-want) > 1e-12*max(1, math.Abs(want))+0x1p-24*math.Abs(want) {
				t.Fatalf("%+v: mean %v, want %v", tr, tr.Value, want)
			}
		}
		if mat.Rows() != m || mat.Cols() != n || mat.Len() > len(in) || (averaged == 0) != (mat.Len() == len(in)) {
			t.Fatalf("%d × %d, Len %d of %d, averaged %d", mat.Rows(), mat.Cols(), mat.Len(), len(in), averaged)
		}
		if policy != DuplicatesAverage && mat.Len() != len(in) {
			t.Fatal("duplicates accepted without averaging")
		}
	})
}

// decimalRE is the syntax of isDecimal, as a regular expression: the
// reference it is checked against.
var decimalRE = regexp.MustCompile(`^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

// FuzzParseRating checks the rating syntax against decimalRE and
// strconv.ParseFloat, for strings and bytes.
func FuzzParseRating(f *testing.F) {
	for _, s := range []string{"4", "3.5", "-0", ".5", "5.", "4e0", "1e309", "0x1p2", "1_0", "NaN", "+Inf", "4,5", "", " 4", "١"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := parseRating(s)
		vb, errb := parseRating([]byte(s))
		if v != vb || (err == nil) != (errb == nil) || err != nil && err.Error() != errb.Error() {
			t.Fatalf("string and []byte differ: %v, %v; %v, %v", v, err, vb, errb)
		}
		if got, want := isDecimal(s), decimalRE.MatchString(s); got != want {
			t.Fatalf("isDecimal(%q) = %v, regexp says %v", s, got, want)
		}
		if err != nil {
			if !errors.Is(err, ErrSyntax) || len(err.Error()) > 400 { // quote: 64 bytes, \xNN each at most
				t.Fatalf("error %q", err)
			}
			if ref, perr := strconv.ParseFloat(s, 64); decimalRE.MatchString(s) && perr == nil && !math.IsInf(ref, 0) {
				t.Fatalf("%q rejected (%v), a finite decimal %v", s, err, ref)
			}
			return
		}
		ref, perr := strconv.ParseFloat(s, 64)
		if !decimalRE.MatchString(s) || perr != nil || ref != v || math.IsInf(v, 0) || math.IsNaN(v) || math.Signbit(v) && v == 0 {
			t.Fatalf("%q accepted as %v; ParseFloat: %v, %v", s, v, ref, perr)
		}
	})
}

// FuzzParseRange checks ParseRange: what it accepts is a valid range that
// reads back the same when formatted.
func FuzzParseRange(f *testing.F) {
	for _, s := range []string{"1,5", "0.5,5", " -1 , 1 ", "5,1", "3,3", "1,Inf", "NaN,5", "1;5", "1,2,3", "-1.7e308,1.7e308", ",", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lo, hi, err := ParseRange(s)
		if err != nil {
			if lo != 0 || hi != 0 || !strings.HasPrefix(err.Error(), "ratings: rating range ") || len(err.Error()) > 400+8*len(s) {
				t.Fatalf("ParseRange(%q) = %v, %v, %v", s, lo, hi, err)
			}
			return
		}
		if checkRange(lo, hi) != nil || !(lo < hi) || math.IsInf(hi-lo, 0) {
			t.Fatalf("ParseRange(%q) = %v, %v: not a valid range", s, lo, hi)
		}
		again := strconv.FormatFloat(lo, 'g', -1, 64) + "," + strconv.FormatFloat(hi, 'g', -1, 64)
		if lo2, hi2, err := ParseRange(again); err != nil || lo2 != lo || hi2 != hi {
			t.Fatalf("ParseRange(%q) = %v, %v, %v; from %q: %v, %v", again, lo2, hi2, err, s, lo, hi)
		}
		// The range is accepted by Read, and enforced.
		if _, err := Read(strings.NewReader("a,b,"+strconv.FormatFloat(hi, 'g', -1, 64)+"\n"), "x", Options{Format: FormatCSV, Min: lo, Max: hi}); err != nil {
			t.Fatalf("range %v, %v: Read: %v", lo, hi, err)
		}
	})
}

// FuzzParseColumns checks parseColumns: an accepted spec names user, item
// and rating once each, and Read reads a line laid out by it.
func FuzzParseColumns(f *testing.F) {
	for _, s := range []string{"", "user,item,rating", "item,_,user,rating", " USER , Item,rating,_", "user,user,item,rating", "user,item", "user,,item,rating", "a,b,c", ",,,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		c, err := parseColumns(spec)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "ratings: columns ") || len(err.Error()) > 200+8*len(spec) {
				t.Fatalf("parseColumns(%q): %v", spec, err)
			}
			return
		}
		if spec == "" {
			if c != defaultColumns {
				t.Fatalf("parseColumns(\"\") = %+v", c)
			}
			return
		}
		if c.stamp || c.n != strings.Count(spec, ",")+1 || c.user == c.item || c.user == c.rating || c.item == c.rating ||
			min(c.user, c.item, c.rating) < 0 || max(c.user, c.item, c.rating) >= c.n {
			t.Fatalf("parseColumns(%q) = %+v", spec, c)
		}
		fields := make([]string, c.n)
		for k := range fields {
			fields[k] = "_"
		}
		fields[c.user], fields[c.item], fields[c.rating] = "u", "i", "3"
		d, err := Read(strings.NewReader(strings.Join(fields, ",")+"\n"), "x", Options{Format: FormatCSV, Columns: spec, Header: HeaderNo})
		if err != nil {
			t.Fatalf("columns %q: %v", spec, err)
		}
		if got := ratingsOf(d); !slices.Equal(got, []rating{{"u", "i", 3}}) {
			t.Fatalf("columns %q: read %v", spec, got)
		}
	})
}

// FuzzParseNames checks ParseFormat, ParseHeader and ParseDuplicates: they
// accept exactly the names String returns.
func FuzzParseNames(f *testing.F) {
	for _, s := range []string{"auto", "ml100k", "mldat", "mlcsv", "sweetrs", "csv", "tsv", "yes", "no", "default", "error", "average", "CSV", " csv", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if v, err := ParseFormat(s); (err == nil) != (v.String() == s && v >= FormatAuto && v <= FormatTSV) || err != nil && v != 0 {
			t.Fatalf("ParseFormat(%q) = %v, %v", s, v, err)
		}
		if v, err := ParseHeader(s); (err == nil) != (v.String() == s && v >= HeaderAuto && v <= HeaderNo) || err != nil && v != 0 {
			t.Fatalf("ParseHeader(%q) = %v, %v", s, v, err)
		}
		if v, err := ParseDuplicates(s); (err == nil) != (v.String() == s && v >= DuplicatesDefault && v <= DuplicatesAverage) || err != nil && v != 0 {
			t.Fatalf("ParseDuplicates(%q) = %v, %v", s, v, err)
		}
		for _, err := range []error{errOf(ParseFormat(s)), errOf(ParseHeader(s)), errOf(ParseDuplicates(s))} {
			if err != nil && !strings.HasPrefix(err.Error(), "ratings: ") {
				t.Fatalf("error without package prefix: %v", err)
			}
		}
	})
}

func errOf[T any](_ T, err error) error { return err }
