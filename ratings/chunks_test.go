package ratings

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// sameDataset reports how a and b differ, or nil if they hold the same
// matrix (both views, value storage, range), IDs in the same order, and
// the same counts, range, source and format.
func sameDataset(a, b *Dataset) error {
	switch {
	case !reflect.DeepEqual(a.Ratings, b.Ratings):
		return fmt.Errorf("matrices differ: %v vs %v", a.Ratings.Triples(), b.Ratings.Triples())
	case !reflect.DeepEqual(a.Users.list(), b.Users.list()):
		return fmt.Errorf("users %q vs %q", a.Users.list(), b.Users.list())
	case !reflect.DeepEqual(a.Items.list(), b.Items.list()):
		return fmt.Errorf("items %q vs %q", a.Items.list(), b.Items.list())
	case a.Stats != b.Stats:
		return fmt.Errorf("stats %+v vs %+v", a.Stats, b.Stats)
	case a.Min != b.Min || a.Max != b.Max || a.Source != b.Source || a.Format != b.Format || a.FormatReason != b.FormatReason:
		return fmt.Errorf("range, source or format differ: %v %v %s %v %s vs %v %v %s %v %s",
			a.Min, a.Max, a.Source, a.Format, a.FormatReason, b.Min, b.Max, b.Source, b.Format, b.FormatReason)
	}
	return nil
}

// readBoth reads data line by line and in chunks of block bytes on
// workers goroutines, through reader (which wraps a fresh reader of the
// data), as a training set or, if train is not nil, a test set, and
// reports how the results differ.
func readBoth(data []byte, name string, opts Options, train *Dataset, workers, block int, reader func(io.Reader) io.Reader) error {
	seq, serr := read(reader(bytes.NewReader(data)), name, opts, train, readConfig{})
	par, perr := read(reader(bytes.NewReader(data)), name, opts, train, readConfig{workers: workers, blockSize: block})
	switch {
	case (serr == nil) != (perr == nil):
		return fmt.Errorf("line by line: %v; in chunks: %v", serr, perr)
	case serr != nil:
		if serr.Error() != perr.Error() {
			return fmt.Errorf("errors differ:\nline by line: %v\nin chunks:    %v", serr, perr)
		}
		var spe, ppe *ParseError
		if errors.As(serr, &spe) != errors.As(perr, &ppe) || spe != nil && (spe.File != ppe.File || spe.Line != ppe.Line) {
			return fmt.Errorf("error types differ: %#v vs %#v", serr, perr)
		}
		for _, sentinel := range []error{ErrSyntax, ErrRange, ErrDuplicate, ErrNoRatings} {
			if errors.Is(serr, sentinel) != errors.Is(perr, sentinel) {
				return fmt.Errorf("errors.Is(%v) differs: %v vs %v", sentinel, serr, perr)
			}
		}
		return nil
	}
	return sameDataset(seq, par)
}

// failAfter returns the first n bytes of r, then err.
type failAfter struct {
	r   io.Reader
	n   int
	err error
}

func (f *failAfter) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, f.err
	}
	if len(p) > f.n {
		p = p[:f.n]
	}
	k, err := f.r.Read(p)
	f.n -= k
	return k, err
}

// TestChunkedMatchesLines reads a table of inputs, good and bad, line by
// line and in chunks of every small size on 1 to 3 goroutines, through
// whole and one-byte reads: the datasets, or the errors, must be the
// same. Small chunks put every line, and every bad line, next to a chunk
// boundary.
func TestChunkedMatchesLines(t *testing.T) {
	ml := func(lines ...string) string { return strings.Join(lines, "\n") }
	long := "1\t2\t3\t874724710" + strings.Repeat(" ", MaxLineBytes-20) + "\n"
	tooLong := "1\t2\t3\t874724710" + strings.Repeat(" ", MaxLineBytes) + "\n"
	var many strings.Builder // more than 256 distinct ratings: the values are not coded
	for k := range 300 {
		fmt.Fprintf(&many, "u%d\t%d\t%g\n", k%7, k, 1+float64(k)/100)
	}
	cases := []struct {
		name, data string
		opts       Options
	}{
		{"u.data", ml("1\t2\t3\t874724710", "2\t1\t4\t874724711", "1\t3\t5\t874724712", ""), Options{}},
		{"u.data", ml("1\t2\t3\t874724710", "2\t1\t4\t874724711", "1\t3\t5\t874724712"), Options{}},           // no final line break
		{"u.data", "1\t2\t3\t874724710\r\n2\t1\t4\t874724711\r\n\r\n  \r\n3\t3\t1\t874724712\r\n", Options{}}, // CRLF, blank lines
		{"u.data", "1\t2\t3\t874724710\r\n2\t1\t4\t874724711\r", Options{}},                                   // CR at the very end
		{"u.data", "\n\n \n1\t2\t3\t874724710\n\n2\t02\t4\t874724711\n 07 \t x y \t 2 \t 874724712 \n", Options{}},
		{"u.data", "999999999\t1000000000\t3\t874724710\n1\t999999999\t4\t874724711\n999999999\t1\t5\t874724712\n", Options{}},
		{"u.data", ml("1\t2\t3\t874724710", "2\t1\t4\t874724711", "1\t2\t5\t874724712", ""), Options{}},                       // duplicate
		{"u.data", ml("1\t2\t3\t874724710", "", "2\t1\t4\t874724711", "", "", "2\t1\t5\t874724712", "1\t2\t1\t1"), Options{}}, // duplicates after blank lines
		{"u.data", ml("1\t2\t3\t874724710", "2\t1\t4\t874724711", "1\t3\t6\t874724712", "1\t4\tx\t874724712"), Options{}},     // two bad lines: the first wins
		{"u.data", ml("1\t2\t3\t874724710", "2\t1\t4\t874724711", "1\t3\t4", "1\t4\t3.5\t1"), Options{}},
		{"u.data", ml("1\t2\t3\t874724710", "2\t1\t4\tx", "1\t3\t4\t1", "1\t2\t1\t2"), Options{}}, // bad timestamp before a duplicate
		{"u.data", ml("1\t2\t3\t874724710", "\t1\t4\t1", "1\t3\t4\t1"), Options{}},
		{"u.data", ml("1\t2\t3\t874724710", "2\t1\t4\t874724711", "1\t3\x00\t4\t1", "1\t4\t3.5\t1"), Options{}}, // NUL
		{"u.data", ml("1\t2\t3\t874724710", "2\t1\t4\t874724711", "1\t3\t4\t1", "1\t4\t3.5\t1\x00"), Options{}}, // NUL after a bad line
		{"u.data", "1\t2\t3\t874724710\n" + long + "2\t2\t3\t1\n", Options{Duplicates: DuplicatesAverage}},
		{"u.data", "1\t2\t3\t874724710\n" + tooLong + "2\t2\t3\t1\n", Options{}},
		{"u.data", "1\t2\t3\t874724710\n1\t2\t9\t1\n" + tooLong, Options{}},
		{"u.data", "", Options{}},
		{"u.data", "\n \n\n", Options{}},
		{"u.data", "1\t2\t0\t874724710\n", Options{}},
		{"ratings.dat", ml("1::2::3.5::874724710", "2::1::4::874724711", "1::3::0.5::874724712", ""), Options{Min: 0.5, Max: 5}},
		{"ratings.dat", ml("1::2::3.5::874724710", "2::1::4::874724711", "1::3::0.5::874724712", ""), Options{}},
		{"ratings.csv", ml("userId,movieId,rating,timestamp", "1,2,3.5,874724710", "2,1,4,874724711", ""), Options{}},
		{"ratings.csv", ml("", " ", "userId,movieId,rating,timestamp", "1,2,3.5,874724710", "2,1,4,874724711"), Options{}},
		{"ratings.csv", ml("userId,movieId,rating", "1,2,3.5,874724710"), Options{}},             // wrong header
		{"ratings.csv", ml("userId,movieId,rating,timestamp"), Options{}},                        // a header alone
		{"ratings.csv", "\r\nuserId,movieId,rating\r\n1,2,3.5,874724710\r\n", Options{}},         // wrong header, CRLF
		{"r.tsv", ml("user\titem\trating", "a\tb\t2", "b\ta\t3.25", "c\ta\t1.1", ""), Options{}}, // a value not a float32
		{"r.tsv", ml("", "", "a\tb\t2", "b\ta\t3", ""), Options{Header: HeaderAuto}},
		{"r.tsv", ml("item\t_\tuser\tscore", "b\tx\ta\t2", "a\ty\tb\t3", "a\tz\tb\t4"), Options{Columns: "item,_,user,rating", Duplicates: DuplicatesAverage}},
		{"r.tsv", ml("a\tb\t2", "b\ta\t3\t1", "c\ta\t4\t874724710"), Options{}},
		{"r.tsv", many.String(), Options{Min: 1, Max: 5}},
		{"r.tsv", many.String() + "u1\t7\t2\n", Options{Min: 1, Max: 5}},
		{"r.tsv", "a\tb\t-0\nb\ta\t+4e0\n", Options{Min: -1, Max: 5}},
	}
	readers := map[string]func(io.Reader) io.Reader{
		"whole":    func(r io.Reader) io.Reader { return r },
		"one-byte": iotest.OneByteReader,
		"failing":  func(r io.Reader) io.Reader { return &failAfter{r: r, n: 40, err: errors.New("disk on fire")} },
	}
	blocks := []int{1, 2, 3, 5, 8, 13, 21, 34, 64, defaultBlockSize}
	if raceEnabled {
		blocks = []int{1, 5, 64}
		delete(readers, "one-byte")
	}
	for k, c := range cases {
		opts := c.opts
		opts.Format = FormatAuto
		for rname, reader := range readers {
			for workers := 1; workers <= 3; workers++ {
				for _, block := range blocks {
					if rname == "one-byte" && len(c.data) > 1<<16 {
						continue
					}
					if err := readBoth([]byte(c.data), c.name, opts, nil, workers, block, reader); err != nil {
						t.Fatalf("case %d (%s), %s reads, %d workers, blocks of %d: %v", k, c.name, rname, workers, block, err)
					}
				}
			}
		}
	}
}

// TestChunkedTestSet reads a test set, with cold users and items, both
// ways.
func TestChunkedTestSet(t *testing.T) {
	train, err := Read(strings.NewReader("1\t2\t3\t1\n2\t1\t4\t1\n3\t3\t5\t1\n"), "u1.base", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, data := range []string{
		"1\t1\t3\t1\n9\t1\t4\t1\n\n3\tx\t5\t1\n2\t3\t2\t1\n9\t9\t1\t1\n",
		"9\t1\t4\t1\n",
		"1\t1\t3\t1\n1\t1\t4\t1\n",
		"1\t1\t3\t1\n1\t1\t4\n",
	} {
		for workers := 1; workers <= 3; workers++ {
			for _, block := range []int{1, 4, 9, 64} {
				if err := readBoth([]byte(data), "u1.test", Options{}, train, workers, block, func(r io.Reader) io.Reader { return r }); err != nil {
					t.Fatalf("%q, %d workers, blocks of %d: %v", data, workers, block, err)
				}
			}
		}
	}
}

// TestChunkedRandom reads random MovieLens-like files of up to 2000
// lines, some with a bad line or a duplicate, both ways (seeded).
func TestChunkedRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 4))
	for trial := range 200 {
		var b bytes.Buffer
		n := 1 + r.IntN(2000)
		bad := -1
		if trial%3 == 0 {
			bad = r.IntN(n)
		}
		for k := range n {
			switch {
			case k == bad:
				b.WriteString([]string{"1\t2\t7\t1\n", "1\t2\n", "x\t\t1\t1\n", "1\t2\t3\tt\n"}[r.IntN(4)])
			case r.IntN(50) == 0:
				b.WriteString("\r\n")
			default:
				fmt.Fprintf(&b, "%d\t%d\t%d\t%d\n", r.IntN(300), r.IntN(100), 1+r.IntN(5), 874724710+k)
			}
		}
		block := 1 + r.IntN(4096)
		workers := 1 + r.IntN(3)
		if err := readBoth(b.Bytes(), "u.data", Options{Duplicates: Duplicates(r.IntN(3))}, nil, workers, block, func(r io.Reader) io.Reader { return r }); err != nil {
			t.Fatalf("trial %d, %d workers, blocks of %d: %v", trial, workers, block, err)
		}
	}
}

// TestBuildScatter compares buildScatter with build on random records,
// with and without repeated pairs (seeded).
func TestBuildScatter(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	for trial := range 300 {
		m, n := 1+r.IntN(30), 1+r.IntN(30)
		nt := 1 + r.IntN(3*m*n/4+1) // the loaders build no empty matrix
		if trial%4 == 0 {
			nt = m * n
		}
		// Distinct cells unless the trial asks for repeats.
		nt = min(nt, m*n)
		cells := r.Perm(m * n)
		us, is := make([]int32, nt), make([]int32, nt)
		var vc codedValues
		for k := range nt {
			c := cells[k%len(cells)]
			if trial%5 == 0 {
				c = r.IntN(m * n)
			}
			var ok bool
			us[k] = int32(c / n)
			if is[k], ok = vc.pack(int32(c%n), []float64{1, 2, 3.5, -4, 0.25, 1e6}[r.IntN(6)]); !ok {
				t.Fatal("pack failed")
			}
		}
		plain := slices32(is)
		vs := vc.unpack(plain)
		want, _, werr := build(m, n, slices32(us), plain, vs, DuplicatesError)
		workers := 1 + r.IntN(4)
		rec := &heldRecords{us: slices32(us), is: slices32(is)}
		got, ok := buildScatter(m, n, rec, vc.table, workers)
		if !ok && (!slices.Equal(rec.us, us) || !slices.Equal(rec.is, is)) {
			t.Fatalf("trial %d: buildScatter reported false but changed the records", trial)
		}
		if ok != (werr == nil) {
			t.Fatalf("trial %d: buildScatter ok %v, build error %v", trial, ok, werr)
		}
		if ok && !sameMatrix(got, want) {
			t.Fatalf("trial %d, %d workers: matrices differ:\n%v\n%v", trial, workers, got.Triples(), want.Triples())
		}
		if ok && got.rowVal.table == nil {
			t.Fatalf("trial %d: buildScatter's values are not coded", trial)
		}

		// The same records with float32 values, not coded (build may
		// have reordered plain and vs).
		items, f32 := make([]int32, nt), make([]float32, nt)
		for k := range nt {
			j, code := unpacked(is[k])
			items[k], f32[k] = j, float32(vc.table[code])
		}
		us32, items0, f320 := slices32(us), slices32(items), append([]float32(nil), f32...)
		got32, ok := buildScatter32(m, n, us32, items, f32, workers)
		if ok != (werr == nil) {
			t.Fatalf("trial %d: buildScatter32 ok %v, build error %v", trial, ok, werr)
		}
		// A repeat sends the loader to build, which needs the records as
		// they were; otherwise their memory holds the matrix.
		if !ok && (!slices.Equal(us32, us) || !slices.Equal(items, items0) || !slices.Equal(f32, f320)) {
			t.Fatalf("trial %d: buildScatter32 found a repeat but changed the records", trial)
		}
		if ok && (!sameMatrix(got32, want) || got32.rowVal.t16 == nil || got32.colVal.t16 == nil) {
			t.Fatalf("trial %d, %d workers: buildScatter32's matrix differs or is not in two-byte codes:\n%v\n%v", trial, workers, got32.Triples(), want.Triples())
		}
	}
}

// TestBuildScatterWide compares buildScatter32 with build on records whose
// values are too many for two-byte codes (float32 views) or just few
// enough (65 536 distinct: codes, in the records' memory alone up to
// 65 536 items, inPlace16, and with more, views16), with and without a
// repeated pair.
func TestBuildScatterWide(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 10))
	for _, tt := range []struct {
		distinct int
		repeat   bool
		coded    bool
		m, n     int
	}{
		{70_000, false, false, 300, 400}, {1 << 16, false, true, 300, 400}, {1<<16 + 1, false, false, 300, 400},
		{70_000, true, false, 300, 400}, {1 << 16, true, true, 300, 400},
		{1 << 16, false, true, 2, 70_000}, {1 << 16, true, true, 2, 70_000}, {1<<16 + 1, false, false, 2, 70_000},
	} {
		m, n := tt.m, tt.n
		nt := 90_000
		cells := r.Perm(m * n)
		us, is, f32 := make([]int32, nt), make([]int32, nt), make([]float32, nt)
		vals := make([]float64, nt)
		for k := range nt {
			c := cells[k]
			if tt.repeat && k == nt-1 {
				c = cells[0]
			}
			us[k], is[k] = int32(c/n), int32(c%n)
			v := float32(k%tt.distinct) * 0.25
			f32[k], vals[k] = v, float64(v)
		}
		want, _, werr := build(m, n, slices32(us), slices32(is), ValuesOf(vals), DuplicatesError)
		for _, workers := range []int{1, 3} {
			us1, is1, f1 := slices32(us), slices32(is), slices.Clone(f32)
			got, ok := buildScatter32(m, n, us1, is1, f1, workers)
			if ok != (werr == nil) {
				t.Fatalf("%+v: buildScatter32 ok %v, build error %v", tt, ok, werr)
			}
			if !ok {
				if !slices.Equal(us1, us) || !slices.Equal(is1, is) || !slices.Equal(f1, f32) {
					t.Fatalf("%+v: buildScatter32 found a repeat but changed the records", tt)
				}
				continue
			}
			if !sameMatrix(got, want) {
				t.Fatalf("%+v, %d workers: matrices differ", tt, workers)
			}
			if coded := got.rowVal.t16 != nil && got.colVal.t16 != nil; coded != tt.coded {
				t.Fatalf("%+v: two-byte codes %v, want %v", tt, coded, tt.coded)
			}
			perRating := 16
			if tt.coded {
				perRating = 12
			}
			wantBytes := perRating*nt + (m+n+2)*4 + 4*len(got.rowVal.t16)
			if tt.repeat {
				t.Fatalf("%+v: a repeated pair built", tt)
			}
			if got.Bytes() != wantBytes {
				t.Fatalf("%+v: Bytes() = %d, want %d", tt, got.Bytes(), wantBytes)
			}
		}
	}
}

// sameMatrix reports whether a and b hold the same ratings in the same
// views, bit for bit, however their values are stored.
func sameMatrix(a, b *Matrix) bool {
	if a.rows != b.rows || a.cols != b.cols || a.min != b.min || a.max != b.max || a.Len() != b.Len() ||
		!slices.Equal(a.rowPtr, b.rowPtr) || !slices.Equal(a.rowIdx, b.rowIdx) ||
		!slices.Equal(a.colPtr, b.colPtr) || !slices.Equal(a.colIdx, b.colIdx) ||
		a.rowVal.Len() != b.rowVal.Len() || a.colVal.Len() != b.colVal.Len() {
		return false
	}
	for k := range a.rowVal.Len() {
		if math.Float64bits(a.rowVal.At(k)) != math.Float64bits(b.rowVal.At(k)) ||
			math.Float64bits(a.colVal.At(k)) != math.Float64bits(b.colVal.At(k)) {
			return false
		}
	}
	return true
}

func slices32(x []int32) []int32 { return append([]int32(nil), x...) }

// TestRanges checks ranges' ranges: they cover all rows, in order, without
// empty ranges.
func TestRanges(t *testing.T) {
	for _, c := range []struct {
		ptr   []int
		parts int
	}{
		{[]int{0}, 3}, {[]int{0, 5}, 3}, {[]int{0, 0, 0, 10}, 2}, {[]int{0, 1, 2, 3, 4}, 2}, {[]int{0, 10, 10, 10, 11}, 4},
	} {
		b := ranges(c.ptr, c.parts)
		if b[0] != 0 || int(b[len(b)-1]) != len(c.ptr)-1 || len(b)-1 > max(c.parts, 1) {
			t.Fatalf("ranges(%v, %d) = %v", c.ptr, c.parts, b)
		}
		for k := 1; k < len(b); k++ {
			if b[k] <= b[k-1] && len(c.ptr) > 1 {
				t.Fatalf("ranges(%v, %d) = %v: empty range", c.ptr, c.parts, b)
			}
		}
	}
}

// FuzzReadChunked reads fuzzed input line by line and in chunks of a
// fuzzed size on 1 to 3 goroutines: the results must be the same.
func FuzzReadChunked(f *testing.F) {
	f.Add([]byte("196\t242\t3\t881250949\n186\t302\t3\t891717742\n"), "u.data", uint16(7), uint8(2), uint8(0))
	f.Add([]byte("1\t10\t4\t874965758\r\n1\t10\t4\t874965758\r\n"), "u1.test", uint16(3), uint8(1), uint8(0))
	f.Add([]byte("1::1193::5::978300760\n1::661::3.5::978302109\n"), "ratings.dat", uint16(1), uint8(3), uint8(1))
	f.Add([]byte("userId,movieId,rating,timestamp\n1,307,3.5,1256677221\n"), "ratings.csv", uint16(16), uint8(2), uint8(0))
	f.Add([]byte("\n\nuser\titem\trating\na\tb\t2\nb\ta\t2\na\tb\t1\n"), "r.tsv", uint16(5), uint8(2), uint8(2))
	f.Add([]byte("a\tb\t2\nb\ta\tx\nc\tb\t1\x00\n"), "r.tsv", uint16(2), uint8(3), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, name string, block uint16, workers, flags uint8) {
		opts := Options{Duplicates: Duplicates(flags % 3), Header: Header(flags / 3 % 3)}
		if opts.Header != HeaderAuto {
			opts.Format = FormatTSV
		}
		if flags&64 != 0 {
			opts.Min, opts.Max = -1, 1
		}
		if err := readBoth(data, name, opts, nil, 1+int(workers%3), 1+int(block), func(r io.Reader) io.Reader { return r }); err != nil {
			t.Fatal(err)
		}
	})
}

// TestPack checks codedValues: packed records round-trip, and a value
// (the 257th distinct one) or item that does not fit switches the loader
// to plain records with the same contents.
func TestPack(t *testing.T) {
	var c codedValues
	for k := range 256 {
		v := float64(k) / 4
		x, ok := c.pack(int32(k)<<16, v)
		if i, code := unpacked(x); !ok || i != int32(k)<<16 || float64(c.table[code]) != v {
			t.Fatalf("pack(%d, %v) = %#x, %v: unpacks to %d, %v", k<<16, v, x, ok, i, c.table[code])
		}
	}
	for _, bad := range []struct {
		i int32
		v float64
	}{{1 << itemBits, 1}, {0, 1000}, {0, 1.1}} {
		if _, ok := c.pack(bad.i, bad.v); ok {
			t.Fatalf("pack(%d, %v) fits", bad.i, bad.v)
		}
	}
	if _, ok := c.pack(1<<itemBits-1, 63.75); !ok {
		t.Fatal("a known value and the largest item do not fit")
	}

	for _, last := range []struct {
		i int32
		v float64
	}{{1 << itemBits, 4}, {2, 1.1}} {
		vc := &codedValues{}
		for k := range 254 { // with 3 and 0.5 below, the table is full
			if _, ok := vc.pack(0, 100+float64(k)/10); !ok {
				t.Fatalf("value %d does not fit", k)
			}
		}
		l := &loader{vc: vc}
		l.appendRecord(1, 0, 1, 3)
		l.appendRecord(2, 1, 7, 0.5)
		l.appendRecord(4, 1, last.i, last.v)
		if l.vc != nil || !reflect.DeepEqual(l.us, []int32{0, 1, 1}) || !reflect.DeepEqual(l.is, []int32{1, 7, last.i}) ||
			l.vs.Len() != 3 || l.vs.At(0) != 3 || l.vs.At(1) != 0.5 || l.vs.At(2) != float64(float32(last.v)) || l.lineOf(2) != 4 {
			t.Fatalf("after item %d, value %v: vc %v, us %v, is %v, vs %v", last.i, last.v, l.vc, l.us, l.is, l.vs)
		}
	}
}

// TestChunkedNoLeak reads inputs that fail early, late or not at all in
// small chunks on 3 goroutines: every goroutine the read started has
// finished its work when it returns. (Counting the process's goroutines
// instead would depend on how soon the scheduler lets a finished one
// exit, which a loaded machine delays.)
func TestChunkedNoLeak(t *testing.T) {
	var b bytes.Buffer
	for k := range 20000 {
		fmt.Fprintf(&b, "%d\t%d\t%d\t%d\n", k%97, k, 1+k%5, 874724710+k)
	}
	good := b.Bytes()
	for _, tt := range []struct {
		name string
		data []byte
	}{
		{"good", good},
		{"bad first line", append([]byte("1\t2\t9\t1\n"), good...)},
		{"bad line halfway", append(append([]byte{}, good[:len(good)/2]...), "x\n"...)},
		{"duplicate, found after the parse", append(append([]byte{}, good...), "1\t2\t3\t4\n"...)},
	} {
		var g goroutines
		_, err := read(bytes.NewReader(tt.data), "u.data", Options{}, nil, readConfig{workers: 3, blockSize: 512, parsers: &g})
		if running := g.running.Load(); running != 0 {
			t.Errorf("%s: %d of %d parsing goroutines still running when read returned (error %v)", tt.name, running, g.started.Load(), err)
		}
		if tt.name != "bad first line" && g.started.Load() != 3 {
			t.Errorf("%s: %d parsing goroutines started, want 3", tt.name, g.started.Load())
		}
	}
}
