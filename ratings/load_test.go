package ratings

import (
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// rating is one rating with external IDs, for golden tests.
type rating struct {
	user, item string
	value      float64
}

// ratingsOf lists d's ratings in row-major order with external IDs.
func ratingsOf(d *Dataset) []rating {
	var out []rating
	for t := range d.Ratings.All() {
		out = append(out, rating{d.Users.ID(int(t.User)), d.Items.ID(int(t.Item)), t.Value})
	}
	return out
}

func idsOf(x *IDs) []string {
	out := make([]string, x.Len())
	for i := range out {
		out[i] = x.ID(i)
	}
	return out
}

func TestGolden(t *testing.T) {
	tests := []struct {
		file         string
		opts         Options
		format       Format
		reason       string
		users, items []string
		ratings      []rating
		min, max     float64
		stats        Stats
	}{
		{
			file:   "ml100k/u.data",
			format: FormatML100k, reason: "file name u.data",
			users: []string{"196", "186", "22"},
			items: []string{"242", "302", "377"},
			ratings: []rating{
				{"196", "242", 3}, {"196", "377", 5},
				{"186", "242", 4}, {"186", "302", 3},
				{"22", "377", 1},
			},
			min: 1, max: 5,
			stats: Stats{Lines: 6, Records: 5},
		},
		{
			file:   "ml100k/u1.base",
			format: FormatML100k, reason: "file name u1.base",
			users: []string{"1", "2", "3"},
			items: []string{"10", "20", "30"},
			ratings: []rating{
				{"1", "10", 4}, {"1", "20", 3}, {"2", "10", 5}, {"3", "30", 2},
			},
			min: 1, max: 5,
			stats: Stats{Lines: 4, Records: 4},
		},
		{
			file:   "ml1m/ratings.dat",
			format: FormatMLDat, reason: `"::" separators on line 1`,
			users: []string{"1", "2", "10"},
			items: []string{"1193", "661", "3408"},
			ratings: []rating{
				{"1", "1193", 5}, {"1", "661", 3}, {"2", "1193", 4}, {"10", "3408", 1},
			},
			min: 1, max: 5,
			stats: Stats{Lines: 4, Records: 4},
		},
		{
			file:   "mllatest/ratings.csv",
			format: FormatMLCSV, reason: "header userId,movieId,rating",
			users: []string{"1", "2", "3"},
			items: []string{"307", "481", "1091"},
			ratings: []rating{
				{"1", "307", 3.5}, {"1", "481", 3.5}, {"2", "307", 0.5}, {"3", "1091", 5},
			},
			min: 0.5, max: 5,
			stats: Stats{Lines: 5, Header: 1, Records: 4},
		},
		{
			file:   "sweetrs/ratings-final.csv",
			format: FormatSweetRS, reason: `header "product","user","value"`,
			// "Kinder "Bueno"" is first rated (not 0) on the last line.
			users: []string{"1476", "7", "9"},
			items: []string{"Raffaello", "Toblerone white", "Mars, bar", `Kinder "Bueno"`},
			ratings: []rating{
				{"1476", "Raffaello", 5}, {"1476", "Toblerone white", 2},
				{"7", "Raffaello", 3}, {"7", "Mars, bar", 4.5},
				{"9", `Kinder "Bueno"`, 1},
			},
			min: 1, max: 5,
			stats: Stats{Lines: 9, Header: 1, Records: 8, Zeros: 2, Averaged: 1, Merged: 1},
		},
		{
			file:   "generic/columns.csv",
			opts:   Options{Columns: "item,_,user,rating"},
			format: FormatCSV, reason: "comma-separated line 1",
			users: []string{"alice", "bob"},
			items: []string{"m1", "m2"},
			ratings: []rating{
				{"alice", "m1", 2.5}, {"bob", "m1", 1}, {"bob", "m2", 4},
			},
			min: 1, max: 5,
			stats: Stats{Lines: 5, Header: 1, Records: 3},
		},
		{
			file:   "generic/plain.tsv",
			format: FormatTSV, reason: "tab-separated line 1",
			users: []string{"u1", "u2"},
			items: []string{"i1", "i2"},
			ratings: []rating{
				{"u1", "i1", 1}, {"u1", "i2", 3}, {"u2", "i1", 2},
			},
			min: 1, max: 5,
			stats: Stats{Lines: 3, Records: 3},
		},
		{
			file:   "generic/plain.tsv",
			opts:   Options{Format: FormatTSV, Min: 0, Max: 10},
			format: FormatTSV, reason: "requested",
			users: []string{"u1", "u2"},
			items: []string{"i1", "i2"},
			ratings: []rating{
				{"u1", "i1", 1}, {"u1", "i2", 3}, {"u2", "i1", 2},
			},
			min: 0, max: 10,
			stats: Stats{Lines: 3, Records: 3},
		},
		{
			// A BOM, CRLF, a blank line, quoted commas and a quoted
			// newline (white space around the ID: an ID holds no
			// control character): the second record starts on line 4,
			// its rating is on line 5.
			file:   "generic/bom_crlf.csv",
			format: FormatCSV, reason: "comma-separated line 1",
			users: []string{"a, b", "c"},
			items: []string{"x", "z"},
			ratings: []rating{
				{"a, b", "x", 5}, {"c", "z", 3},
			},
			min: 1, max: 5,
			stats: Stats{Lines: 5, Header: 1, Records: 2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("testdata", tt.file)
			d, err := Load(path, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if err := verifyDataset(d); err != nil {
				t.Fatal(err)
			}
			if d.Format != tt.format || d.FormatReason != tt.reason {
				t.Errorf("format %v (%s), want %v (%s)", d.Format, d.FormatReason, tt.format, tt.reason)
			}
			if got := idsOf(d.Users); !slices.Equal(got, tt.users) {
				t.Errorf("users %q, want %q", got, tt.users)
			}
			if got := idsOf(d.Items); !slices.Equal(got, tt.items) {
				t.Errorf("items %q, want %q", got, tt.items)
			}
			if got := ratingsOf(d); !slices.Equal(got, tt.ratings) {
				t.Errorf("ratings\n%v\nwant\n%v", got, tt.ratings)
			}
			if d.Min != tt.min || d.Max != tt.max {
				t.Errorf("range [%v, %v], want [%v, %v]", d.Min, d.Max, tt.min, tt.max)
			}
			if d.Stats != tt.stats {
				t.Errorf("stats %+v, want %+v", d.Stats, tt.stats)
			}
			if d.Source != path {
				t.Errorf("Source %q, want %q", d.Source, path)
			}
		})
	}
}

func TestLoadPair(t *testing.T) {
	train, test, err := LoadPair(filepath.Join("testdata", "ml100k", "u1.base"), filepath.Join("testdata", "ml100k", "u1.test"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []*Dataset{train, test} {
		if err := verifyDataset(d); err != nil {
			t.Fatal(err)
		}
	}
	if test.Users != train.Users || test.Items != train.Items {
		t.Error("test set does not share the training ID maps")
	}
	if test.Ratings.Rows() != 3 || test.Ratings.Cols() != 3 {
		t.Errorf("test shape %d × %d, want 3 × 3", test.Ratings.Rows(), test.Ratings.Cols())
	}
	want := []rating{{"1", "30", 5}, {"2", "20", 1}}
	if got := ratingsOf(test); !slices.Equal(got, want) {
		t.Errorf("test ratings %v, want %v", got, want)
	}
	// User 4 is unknown (line 3), item 40 too (lines 4 and 5).
	wantStats := Stats{Lines: 5, Records: 5, Cold: 3, ColdUsers: 1, ColdItems: 1}
	if test.Stats != wantStats {
		t.Errorf("test stats %+v, want %+v", test.Stats, wantStats)
	}

	// A test set with only unknown users or items is an error.
	_, err = ReadTest(strings.NewReader("9\t10\t3\t1\n1\t99\t3\t1\n"), "cold.test", Options{}, train)
	if !errors.Is(err, ErrNoRatings) {
		t.Errorf("all-cold test set: err = %v, want ErrNoRatings", err)
	}
	if _, err := ReadTest(strings.NewReader("1\t10\t3\t1\n"), "x.test", Options{}, nil); err == nil {
		t.Error("ReadTest without a training set succeeded")
	}
	if _, _, err := LoadPair(filepath.Join("testdata", "ml100k", "u1.base"), filepath.Join("testdata", "missing.test"), Options{}); err == nil {
		t.Error("LoadPair with a missing test file succeeded")
	}
	if _, _, err := LoadPair(filepath.Join("testdata", "missing.base"), filepath.Join("testdata", "ml100k", "u1.test"), Options{}); err == nil {
		t.Error("LoadPair with a missing training file succeeded")
	}
}

func TestDetect(t *testing.T) {
	tests := []struct {
		name, data string
		format     Format
		reason     string
	}{
		{"u.data", "1\t2\t3\t4\n", FormatML100k, "file name u.data"},
		{"dir/ua.test", "1\t2\t3\t4\n", FormatML100k, "file name ua.test"},
		{"u1.base", "\xef\xbb\xbf\r\n1\t2\t3\t4\r\n", FormatML100k, "file name u1.base"},
		// A .base name without tabs is not MovieLens 100k.
		{"x.base", "1,2,3\n", FormatCSV, "comma-separated line 1"},
		{"ratings.dat", "1::2::3::4\n", FormatMLDat, `"::" separators on line 1`},
		{"r.txt", "\n\n1::2::3::4\n", FormatMLDat, `"::" separators on line 3`},
		{"ratings.csv", "userId,movieId,rating,timestamp\n1,2,3,4\n", FormatMLCSV, "header userId,movieId,rating"},
		{"r.csv", "\"product\",\"user\",\"value\"\n\"a\",1,2\n", FormatSweetRS, `header "product","user","value"`},
		{"r.csv", "product,user,value\na,1,2\n", FormatSweetRS, `header "product","user","value"`},
		// More tabs than commas, and the other way round. (These lines
		// had a fourth, ignored field, which the default layout no longer
		// accepts unless it is a timestamp.)
		{"r.txt", "a\tb,c\t1\n", FormatTSV, "tab-separated line 1"},
		{"r.txt", "a\t,b,1\n", FormatCSV, "comma-separated line 1"},
		{"r.txt", "abc\n", FormatCSV, "no tab or comma on line 1"},
		{"r.txt", "", FormatCSV, "empty input"},
	}
	for _, tt := range tests {
		head := []byte(strings.TrimPrefix(tt.data, "\xef\xbb\xbf"))
		f, reason := detect(tt.name, head, false, true)
		if f != tt.format || reason != tt.reason {
			t.Errorf("detect(%q, %q) = %v, %q; want %v, %q", tt.name, tt.data, f, reason, tt.format, tt.reason)
		}
		if strings.Contains(tt.name, ".") && tt.data != "" && tt.reason != "no tab or comma on line 1" {
			d, err := Read(strings.NewReader(tt.data), tt.name, Options{})
			if err != nil {
				t.Errorf("Read(%q, %q): %v", tt.name, tt.data, err)
				continue
			}
			if d.Format != tt.format || d.FormatReason != tt.reason {
				t.Errorf("Read(%q, %q) chose %v (%s)", tt.name, tt.data, d.Format, d.FormatReason)
			}
		}
	}
	// Columns or Header restrict detection to csv and tsv.
	d, err := Read(strings.NewReader("1::2\t3\t4\n"), "u.data", Options{Columns: "user,item,rating"})
	if err != nil {
		t.Fatalf("generic-only detection: %v", err)
	}
	if d.Format != FormatTSV {
		t.Errorf("with Columns set, auto chose %v", d.Format)
	}
}

func TestFormatNames(t *testing.T) {
	for f := FormatAuto; f <= FormatTSV; f++ {
		got, err := ParseFormat(f.String())
		if err != nil || got != f {
			t.Errorf("ParseFormat(%q) = %v, %v", f.String(), got, err)
		}
	}
	if _, err := ParseFormat("ml20m"); err == nil {
		t.Error(`ParseFormat("ml20m") succeeded`)
	}
	for h := HeaderAuto; h <= HeaderNo; h++ {
		got, err := ParseHeader(h.String())
		if err != nil || got != h {
			t.Errorf("ParseHeader(%q) = %v, %v", h.String(), got, err)
		}
	}
	if _, err := ParseHeader("maybe"); err == nil {
		t.Error(`ParseHeader("maybe") succeeded`)
	}
	if s := Format(42).String(); s != "Format(42)" {
		t.Errorf("Format(42).String() = %q", s)
	}
}

func TestBadInput(t *testing.T) {
	long := strings.Repeat("9", MaxLineBytes+1)
	tests := []struct {
		format Format
		opts   Options
		data   string
		line   int
		want   error
		msg    string // a substring of the error message
	}{
		// ml100k
		{FormatML100k, Options{}, "1\t2\t3\n", 1, ErrSyntax, "3 fields, want 4"},
		{FormatML100k, Options{}, "1\t2\t3\t4\t5\n", 1, ErrSyntax, "more than 4 fields"},
		{FormatML100k, Options{}, "1\t2\t3\t4\n\n1\t3\tx\t4\n", 3, ErrSyntax, `rating "x" is not a number`},
		{FormatML100k, Options{}, "1\t2\t\t4\n", 1, ErrSyntax, "empty rating"},
		{FormatML100k, Options{}, "1\t2\tNaN\t4\n", 1, ErrSyntax, "not finite"},
		{FormatML100k, Options{}, "1\t2\t+Inf\t4\n", 1, ErrSyntax, "not finite"},
		{FormatML100k, Options{}, "1\t2\t1e999\t4\n", 1, ErrSyntax, "not finite"},
		{FormatML100k, Options{}, "1\t2\t6\t4\n", 1, ErrRange, "rating 6 outside [1, 5]"},
		{FormatML100k, Options{}, "1\t2\t0\t4\n", 1, ErrRange, "outside"},
		{FormatML100k, Options{}, "1\t2\t-1\t4\n", 1, ErrRange, "outside"},
		{FormatML100k, Options{}, "1\t2\t3.5\t4\n", 1, ErrRange, "not an integer"},
		{FormatML100k, Options{}, "1\t2\t3\tyesterday\n", 1, ErrSyntax, "timestamp"},
		{FormatML100k, Options{}, "\t2\t3\t4\n", 1, ErrSyntax, "empty user ID"},
		{FormatML100k, Options{}, "1\t \t3\t4\n", 1, ErrSyntax, "empty item ID"},
		{FormatML100k, Options{}, "1\t2\t3\t4\r\n1\t3\t4\t4\r\n1\t2\t4\t5\r\n", 3, ErrDuplicate, `user "1", item "2" already rated on line 1`},
		{FormatML100k, Options{}, "1\t2\t3\t4\n" + long + "\n", 2, ErrSyntax, "longer than"},
		{FormatML100k, Options{}, "", 0, ErrNoRatings, "empty file"},
		{FormatML100k, Options{}, "\n \r\n\t\n", 0, ErrNoRatings, "only blank lines"},
		{FormatML100k, Options{}, "user\titem\trating\ttimestamp\n1\t2\t3\t4\n", 1, ErrSyntax, "not a number"},
		// mldat
		{FormatMLDat, Options{}, "1::2::3\n", 1, ErrSyntax, "3 fields, want 4"},
		{FormatMLDat, Options{}, "1::2::3::4\n1::3::four::4\n", 2, ErrSyntax, "not a number"},
		{FormatMLDat, Options{}, "1::2::0.5::4\n", 1, ErrRange, "set Min 0.5"},
		{FormatMLDat, Options{}, "1::2::5.5::4\n", 1, ErrRange, "outside"},
		{FormatMLDat, Options{}, "1::2::nan::4\n", 1, ErrSyntax, "not finite"},
		{FormatMLDat, Options{}, "", 0, ErrNoRatings, "empty file"},
		// mlcsv
		{FormatMLCSV, Options{}, "1,2,3.5,4\n", 1, ErrSyntax, "want header userId,movieId,rating,timestamp"},
		{FormatMLCSV, Options{}, "userId,movieId,rating,timestamp\n", 1, ErrNoRatings, "a header but no rating lines"},
		{FormatMLCSV, Options{}, "userId,movieId,rating,timestamp\n1,2,0.25,3\n", 2, ErrRange, "outside [0.5, 5]"},
		{FormatMLCSV, Options{}, "userId,movieId,rating,timestamp\n1,2,3\n", 2, ErrSyntax, "3 fields"},
		{FormatMLCSV, Options{}, "userId,movieId,rating,timestamp\n1,2,Inf,3\n", 2, ErrSyntax, "not finite"},
		// sweetrs
		{FormatSweetRS, Options{}, `"product","user"` + "\n", 1, ErrSyntax, "want header product,user,value"},
		{FormatSweetRS, Options{}, `"product","user","value"` + "\r\n", 1, ErrNoRatings, "a header but no rating lines"},
		{FormatSweetRS, Options{}, `"product","user","value"` + "\n\"a\",1\n", 2, ErrSyntax, "2 fields, want 3"},
		{FormatSweetRS, Options{}, `"product","user","value"` + "\n\"a\",1,x\n", 2, ErrSyntax, "not a number"},
		{FormatSweetRS, Options{}, `"product","user","value"` + "\n\"a\",1,6\n", 2, ErrRange, "outside [1, 5]"},
		{FormatSweetRS, Options{}, `"product","user","value"` + "\n\"a\",1,-2\n", 2, ErrRange, "outside"},
		{FormatSweetRS, Options{}, `"product","user","value"` + "\n\"a\",1,NaN\n", 2, ErrSyntax, "not finite"},
		{FormatSweetRS, Options{}, `"product","user","value"` + "\n\"a\",,3\n", 2, ErrSyntax, "empty user ID"},
		{FormatSweetRS, Options{}, `"product","user","value"` + "\n\"a\",1,3\na\"b,1,3\n", 3, ErrSyntax, `bare "`},
		{FormatSweetRS, Options{}, `"product","user","value"` + "\n\"a\",1,3\n\"b,1,3\n\n", 4, ErrSyntax, "extraneous or missing"},
		{FormatSweetRS, Options{}, `"product","user","value"` + "\n\"a\",1,0\n\"b\",2,0\n", 0, ErrNoRatings, "all 2 rating lines dropped (2 rated 0"},
		{FormatSweetRS, Options{Duplicates: DuplicatesError}, `"product","user","value"` + "\n\"a\",1,3\n\"a\",1,4\n", 3, ErrDuplicate, "already rated on line 2"},
		// csv
		{FormatCSV, Options{Header: HeaderYes}, "user,item,rating\n", 1, ErrNoRatings, "a header but no rating lines"},
		{FormatCSV, Options{Header: HeaderNo}, "user,item,rating\n1,2,3\n", 1, ErrSyntax, `rating "rating" is not a number`},
		{FormatCSV, Options{}, "user,item,rating\n1,2,3\nu,i,r\n", 3, ErrSyntax, "not a number"},
		{FormatCSV, Options{}, "1,2\n", 1, ErrSyntax, "2 fields, want 3"},
		{FormatCSV, Options{Columns: "user,item,rating"}, "1,2,3,4\n", 1, ErrSyntax, "more than 3 fields"},
		{FormatCSV, Options{Min: -1, Max: 1}, "1,2,0.5\n1,3,1.5\n", 2, ErrRange, "outside [-1, 1]"},
		{FormatCSV, Options{}, "a,b,3\n\"c\n\",e,9\n", 3, ErrRange, "outside"},
		{FormatCSV, Options{}, "a,b,3\na,b,4\n", 2, ErrDuplicate, "already rated on line 1"},
		// Line numbers of duplicates across skipped lines (blank, header,
		// SweetRS zeros, multi-line csv records), which the loader keeps
		// as runs of consecutive lines.
		{FormatTSV, Options{}, "u\ti\tr\n\na\tb\t3\nc\td\t4\n\n\ne\tf\t5\nc\td\t1\n", 8, ErrDuplicate, `user "c", item "d" already rated on line 4`},
		{FormatTSV, Options{}, "a\tb\t3\n\nc\td\t4\n\ne\tf\t5\na\tb\t1\n", 6, ErrDuplicate, "already rated on line 1"},
		{FormatSweetRS, Options{Duplicates: DuplicatesError}, `"product","user","value"` + "\n\"a\",1,0\n\"b\",1,3\n\"a\",2,0\n\"c\",1,4\n\"b\",1,5\n", 6, ErrDuplicate, "already rated on line 3"},
		{FormatCSV, Options{}, "\"a\n\",c,3\nd,e,4\n\"a\n\",c,5\n", 5, ErrDuplicate, "already rated on line 2"}, // a record's last line
		{FormatCSV, Options{}, "\n\n", 0, ErrNoRatings, "only blank lines"},
		// tsv
		{FormatTSV, Options{Header: HeaderYes}, "\nuser\titem\trating\n\n", 2, ErrNoRatings, "a header but no rating lines"},
		{FormatTSV, Options{Columns: "rating,user,item"}, "1\ta\tb\n2\tb\n", 2, ErrSyntax, "2 fields, want 3"},
		{FormatTSV, Options{Columns: "rating,user,item"}, "1\ta\tb\n7\tb\ta\n", 2, ErrRange, "outside"},
		{FormatTSV, Options{}, "a\tb\t-inf\n", 1, ErrSyntax, "not finite"},

		// Number syntax: strconv.ParseFloat accepts these, a ratings file
		// must not.
		{FormatML100k, Options{}, "1\t2\t0x1p2\t4\n", 1, ErrSyntax, `rating "0x1p2" is not a number (hexadecimal`},
		{FormatML100k, Options{}, "1\t2\t0X4\t4\n", 1, ErrSyntax, "hexadecimal"},
		{FormatML100k, Options{}, "1\t2\t1_0\t4\n", 1, ErrSyntax, "digit separators"},
		{FormatML100k, Options{}, "1\t2\tInfinity\t4\n", 1, ErrSyntax, `rating "Infinity" is not finite`},
		{FormatML100k, Options{}, "1\t2\t.\t4\n", 1, ErrSyntax, "not a number"},
		{FormatML100k, Options{}, "1\t2\t1e\t4\n", 1, ErrSyntax, "not a number"},
		{FormatML100k, Options{}, "1\t2\t4 5\t4\n", 1, ErrSyntax, "not a number"},
		{FormatCSV, Options{}, "1,2,0x1p2\n", 1, ErrSyntax, "hexadecimal"}, // digits: not a header
		{FormatCSV, Options{}, "1,2,NaN\n", 1, ErrSyntax, `rating "NaN" is not finite`},
		{FormatCSV, Options{}, "u,i,r\n1,2,+inf\n", 2, ErrSyntax, "not finite"},
		{FormatCSV, Options{}, "1,2,1e309\n", 1, ErrSyntax, "not finite (beyond"},
		{FormatTSV, Options{}, "a\tb\t4,5\n", 1, ErrSyntax, `rating "4,5" is not a number (a decimal comma? write 4.5`},
		{FormatSweetRS, Options{}, `"product","user","value"` + "\n\"a\",1,\"4,5\"\n", 2, ErrSyntax, "a decimal comma"},
		{FormatCSV, Options{}, "1,2,3\r4\n", 1, ErrSyntax, "carriage return"},
		// Steps: ml100k whole stars, mldat and mlcsv half stars.
		{FormatMLDat, Options{}, "1::2::3.7::4\n", 1, ErrRange, "rating 3.7 is not a multiple of 0.5"},
		{FormatMLDat, Options{Min: 0.5, Max: 5}, "1::2::0.5::4\n1::3::4.25::4\n", 2, ErrRange, "not a multiple of 0.5"},
		{FormatMLCSV, Options{}, "userId,movieId,rating,timestamp\n1,2,3.25,4\n", 2, ErrRange, "not a multiple of 0.5"},
		{FormatML100k, Options{Min: 0, Max: 10}, "1\t2\t7.5\t4\n", 1, ErrRange, "rating 7.5 is not an integer"},
		// Field counts: the known formats exactly theirs; the default
		// csv and tsv layout 3, or 4 with a timestamp.
		{FormatMLDat, Options{}, "1::2::3::4::5\n", 1, ErrSyntax, "more than 4 fields (5)"},
		{FormatMLCSV, Options{}, "userId,movieId,rating,timestamp\n1,2,3.5,4,5\n", 2, ErrSyntax, "more than 4 fields"},
		{FormatSweetRS, Options{}, `"product","user","value"` + "\n\"a\",1,3,4\n", 2, ErrSyntax, "more than 3 fields (4)"},
		{FormatCSV, Options{}, "3,3,4,5\n", 1, ErrSyntax, `the 4th, "5", is not a Unix timestamp`},
		{FormatCSV, Options{}, "3,3,4,5\n", 1, ErrSyntax, "the rating 4,5 written with a decimal comma? write 4.5"},
		{FormatCSV, Options{}, "1,2,3,881250949\n3,3,4,25\n", 2, ErrSyntax, `e.g. "user,item,rating,_"`},
		{FormatCSV, Options{}, "1,2,3,yesterday\n", 1, ErrSyntax, "not a Unix timestamp"},
		{FormatCSV, Options{}, "1,2,3,4,5\n", 1, ErrSyntax, `more than 4 fields (5): the default columns are user,item,rating and an optional timestamp; name the columns with Options.Columns (dpmc: --columns), e.g. "user,item,rating,_,_"`},
		{FormatTSV, Options{}, "a\tb\t4\tc\n", 1, ErrSyntax, "not a Unix timestamp"},
		{FormatTSV, Options{}, "a\tb\t4\t881250949\tc\n", 1, ErrSyntax, "more than 4 fields (5)"},
		{FormatAuto, Options{}, "1;2;4,5\n", 1, ErrSyntax, "2 fields, want 3 (semicolon-separated? only commas and tabs separate fields)"},
		{FormatAuto, Options{}, "1,2,3\r4,5,1\r", 1, ErrSyntax, "carriage return alone (old Mac line endings)"},
		// IDs.
		{FormatCSV, Options{}, "\"\",2,3\n", 1, ErrSyntax, "empty user ID"},
		{FormatCSV, Options{}, "\" \",2,3\n", 1, ErrSyntax, "empty user ID"},
		{FormatCSV, Options{}, "1,\xc3\x28,3\n", 1, ErrSyntax, `item ID "\xc3(" is not valid UTF-8`},
		{FormatML100k, Options{}, "\xff\t2\t3\t4\n", 1, ErrSyntax, "user ID \"\\xff\" is not valid UTF-8"},
		{FormatML100k, Options{}, strings.Repeat("u", MaxIDBytes+1) + "\t2\t3\t4\n", 1, ErrSyntax, "user ID of 1025 bytes, longer than 1024"},
		{FormatTSV, Options{}, "a\t" + strings.Repeat("é", MaxIDBytes) + "\t3\n", 1, ErrSyntax, "item ID of 2048 bytes"},
		// Not text: NUL bytes, UTF-16.
		{FormatML100k, Options{}, "1\t2\t3\t4\n1\t\x003\t4\n", 2, ErrSyntax, "NUL byte: not a text file"},
		{FormatCSV, Options{}, "1,2,3\n\n\"a\nb\",c,\x00", 4, ErrSyntax, "NUL byte"},
		{FormatAuto, Options{}, "\x00\x00\x00\x00", 1, ErrSyntax, "NUL byte"},
		{FormatAuto, Options{}, "\xff\xfe1\x00,\x002\x00", 1, ErrSyntax, "UTF-16 byte order mark"},
		{FormatAuto, Options{}, "\xfe\xff\x001\x00,", 1, ErrSyntax, "UTF-16 byte order mark"},
		// The line length limit, on every path.
		{FormatAuto, Options{}, "1,2,3\n" + long, 2, ErrSyntax, "line longer than 1048576 bytes"},
		{FormatAuto, Options{}, long, 1, ErrSyntax, "line longer than 65536 bytes without a tab or comma"},
		{FormatTSV, Options{}, long, 1, ErrSyntax, "line longer than 1048576 bytes"},
		// A first ID longer than the detection window (issue 24, item 11):
		// the limit, not "1 fields, want 3".
		{FormatAuto, Options{}, "\n" + strings.Repeat("a", 70000) + "\t2\t3\n1\t2\t3\n", 2, ErrSyntax, "line longer than 65536 bytes without a tab or comma (the format is detected from the first 65536 bytes): a first field longer than that, where IDs are at most 1024 bytes"},
		{FormatTSV, Options{}, strings.Repeat("a", 70000) + "\t2\t3\n", 1, ErrSyntax, "user ID of 70000 bytes, longer than 1024"},
		// CR-only line endings that a later LF ends (issue 24, item 11).
		{FormatAuto, Options{}, "1,2,3\r1,3,4\r2,2,5\n", 1, ErrSyntax, "7 fields, and a carriage return inside the line: the file seems to use CR-only (old Mac) line endings"},
		{FormatTSV, Options{}, "1\t2\t3\r1\t3\t4\r\n", 1, ErrSyntax, "CR-only (old Mac) line endings"},
		{FormatCSV, Options{}, "1 2 3\r1 3 4\n", 1, ErrSyntax, "1 fields, and a carriage return inside the line"},
		{FormatCSV, Options{Columns: "user,item,rating"}, "1,2,3\r1,3,4\n", 1, ErrSyntax, "CR-only"},
		{FormatCSV, Options{}, "1,2\r3,4\n", 1, ErrSyntax, "U+000D: IDs must be printable text (a tab, CR or LF would break tab-separated output); if the file uses CR-only"},
		// Control characters in IDs (issue 24, item 8).
		{FormatCSV, Options{}, "1,2,3\n\"a\tb\",2,3\n", 2, ErrSyntax, `user ID "a\tb" holds the control character U+0009`},
		{FormatCSV, Options{}, "1,\"x\ry\",3\n", 1, ErrSyntax, `item ID "x\ry" holds the control character U+000D`},
		{FormatCSV, Options{}, "1,\"x\ny\",3\n", 2, ErrSyntax, `item ID "x\ny" holds the control character U+000A`},
		{FormatCSV, Options{}, "1,x\u0085y,3\n", 1, ErrSyntax, "control character U+0085"},
		{FormatCSV, Options{}, "1,x\x7fy,3\n", 1, ErrSyntax, "control character U+007F"},
		{FormatCSV, Options{}, "\"\x1b[31m\",2,3\n", 1, ErrSyntax, "control character U+001B"},
		{FormatMLDat, Options{}, "a\tb::2::3::4\n", 1, ErrSyntax, "control character U+0009"},
		{FormatSweetRS, Options{}, `"product","user","value"` + "\n\"a\tb\",\"u\",3\n", 2, ErrSyntax, "control character U+0009"},
		{FormatCSV, Options{}, "1,2,3\n\"" + long, 2, ErrSyntax, "quoted field not closed within 1048576 bytes"},
		{FormatSweetRS, Options{}, `"product","user","value"` + "\n" + long, 2, ErrSyntax, "longer than"},
		{FormatMLCSV, Options{}, "userId,movieId,rating,timestamp\n" + long, 2, ErrSyntax, "longer than"},
		{FormatMLDat, Options{}, long, 1, ErrSyntax, "longer than"},
		{FormatTSV, Options{}, "a\tb\t1\n\n" + long + "\n", 3, ErrSyntax, "longer than"},
		{FormatCSV, Options{}, "a,b,1\n\"x\ny\"" + long, 2, ErrSyntax, "record of lines 2–3 longer than"},
		// An earlier bad line is reported before the limit.
		{FormatCSV, Options{}, "a,b,9\n" + long, 1, ErrRange, "outside"},
		// A header, and nothing else.
		{FormatCSV, Options{}, "user,item,rating\n\n", 1, ErrNoRatings, "a header but no rating lines"},
		{FormatAuto, Options{}, "\xef\xbb\xbf\r\n\r\n", 0, ErrNoRatings, "only blank lines"},
	}
	for k, tt := range tests {
		name := fmt.Sprintf("bad%d.%s", k, tt.format)
		tt.opts.Format = tt.format
		d, err := Read(strings.NewReader(tt.data), name, tt.opts)
		if err == nil {
			t.Errorf("%s %q: no error, got %d ratings", name, tt.data, d.Ratings.Len())
			continue
		}
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%s %q: err %v is not a *ParseError", name, tt.data, err)
			continue
		}
		if pe.File != name || pe.Line != tt.line || !errors.Is(err, tt.want) {
			t.Errorf("%s %q: err %v (line %d), want %v at line %d", name, tt.data, err, pe.Line, tt.want, tt.line)
		}
		msg := err.Error()
		prefix := fmt.Sprintf("ratings: %s:%d: ", name, tt.line)
		if tt.line == 0 {
			prefix = fmt.Sprintf("ratings: %s: ", name)
		}
		if !strings.HasPrefix(msg, prefix) || !strings.Contains(msg, tt.msg) {
			t.Errorf("%s: message %q, want prefix %q and %q", name, msg, prefix, tt.msg)
		}
	}
}

func TestBadOptions(t *testing.T) {
	tests := []struct {
		name string
		opts Options
	}{
		{"unknown format", Options{Format: Format(99)}},
		{"unknown header", Options{Header: Header(9)}},
		{"unknown duplicates", Options{Duplicates: Duplicates(9)}},
		{"columns with ml100k", Options{Format: FormatML100k, Columns: "user,item,rating"}},
		{"header with sweetrs", Options{Format: FormatSweetRS, Header: HeaderNo}},
		{"column twice", Options{Format: FormatCSV, Columns: "user,user,item,rating"}},
		{"unknown column", Options{Format: FormatCSV, Columns: "user,item,stars"}},
		{"no rating column", Options{Format: FormatCSV, Columns: "user,item,_"}},
		{"empty column", Options{Format: FormatCSV, Columns: "user,,item,rating"}},
		{"min above max", Options{Min: 5, Max: 1}},
		{"min equals max", Options{Min: 3, Max: 3}},
		{"infinite max", Options{Min: 1, Max: math.Inf(1)}},
	}
	for _, tt := range tests {
		if _, err := Read(strings.NewReader("1,2,3\n"), "x.csv", tt.opts); err == nil {
			t.Errorf("%s: Read succeeded", tt.name)
		}
	}
}

func TestReadErrors(t *testing.T) {
	boom := errors.New("boom")
	for _, f := range []Format{FormatAuto, FormatML100k, FormatCSV, FormatSweetRS} {
		r := io.MultiReader(strings.NewReader("1\t2"), iotest.ErrReader(boom))
		_, err := Read(r, "u.data", Options{Format: f})
		if !errors.Is(err, boom) {
			t.Errorf("%v: err = %v, want boom", f, err)
		}
	}
	if _, err := Load(filepath.Join("testdata", "does-not-exist"), Options{}); err == nil {
		t.Error("Load of a missing file succeeded")
	}
	// An empty name is replaced in messages.
	_, err := Read(strings.NewReader(""), "", Options{})
	if err == nil || !strings.Contains(err.Error(), "<input>") {
		t.Errorf("empty name: err = %v", err)
	}
}

// TestNumericIDCache reads IDs in and out of canonical decimal form,
// which the loader looks up through a dense cache or its map: every line's
// rating must land in the row and column of its own IDs, "7" and "07"
// apart, in a training file and in a test file read against it.
func TestNumericIDCache(t *testing.T) {
	ids := []string{"7", "07", "0", "00", "123456789", "1234567890", "a1", "5000", "4", "999999999"}
	var train, test strings.Builder
	type rating struct {
		user, item string
		v          int
	}
	var want []rating
	for k, u := range ids {
		for q, it := range ids {
			if (k+q)%3 == 0 {
				continue
			}
			v := (k*7+q)%5 + 1
			fmt.Fprintf(&train, "%s\t%s\t%d\n", u, it, v)
			want = append(want, rating{u, it, v})
			if (k+q)%3 == 1 {
				fmt.Fprintf(&test, "%s\t%s\t%d\n", u, it, v)
			}
		}
	}
	d, err := Read(strings.NewReader(train.String()), "r.tsv", Options{})
	if err != nil {
		t.Fatal(err)
	}
	te, err := ReadTest(strings.NewReader(test.String()), "t.tsv", Options{}, d)
	if err != nil {
		t.Fatal(err)
	}
	if d.Users.Len() != len(ids) || d.Items.Len() != len(ids) {
		t.Fatalf("%d users, %d items; want %d each", d.Users.Len(), d.Items.Len(), len(ids))
	}
	for _, r := range want {
		i, iok := d.Users.Index(r.user)
		j, jok := d.Items.Index(r.item)
		if !iok || !jok || d.Users.ID(i) != r.user || d.Items.ID(j) != r.item {
			t.Fatalf("user %q, item %q: indices %d, %d (%v, %v)", r.user, r.item, i, j, iok, jok)
		}
		if v, ok := d.Ratings.Get(i, j); !ok || v != float64(r.v) {
			t.Errorf("user %q, item %q: %v, %v; want %d", r.user, r.item, v, ok, r.v)
		}
		if v, ok := te.Ratings.Get(i, j); ok && v != float64(r.v) {
			t.Errorf("test: user %q, item %q: %v; want %d", r.user, r.item, v, r.v)
		}
	}
	if te.Ratings.Len() == 0 || te.Stats.Cold != 0 {
		t.Errorf("test set: %d ratings, %d cold", te.Ratings.Len(), te.Stats.Cold)
	}
}
