package ratings

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
)

// endless is an io.Reader that yields prefix and then pattern over and
// over, up to max bytes in all (then io.EOF, so that a loader without a
// line limit fails the test instead of hanging it). It counts what was
// read.
type endless struct {
	prefix, pattern string
	max, n          int
}

func (e *endless) Read(p []byte) (int, error) {
	if e.n >= e.max {
		return 0, io.EOF
	}
	p = p[:min(len(p), e.max-e.n)]
	for k := range p {
		if e.n+k < len(e.prefix) {
			p[k] = e.prefix[e.n+k]
		} else {
			p[k] = e.pattern[(e.n+k-len(e.prefix))%len(e.pattern)]
		}
	}
	e.n += len(p)
	return len(p), nil
}

// TestEndlessLine reads inputs that never end a line (or a quoted csv
// field) through every parser: each must stop with an error naming the
// file, the line and the limit after reading little more than
// MaxLineBytes, and allocate memory of that order, not of the input's
// size (64 MiB here, standing in for /dev/zero-like streams).
func TestEndlessLine(t *testing.T) {
	const (
		streamMax = 64 << 20 // what the reader offers
		readMax   = 3 << 20  // what a loader may read of it
		allocMax  = 24 << 20 // what a loader may allocate; the old csv path took > 128 MiB here
	)
	tests := []struct {
		name            string
		format          Format
		prefix, pattern string
		line            int
		msg             string
	}{
		{"digits.csv", FormatAuto, "", "1", 1, "line longer than 65536 bytes without a tab or comma"},
		{"digits.tsv", FormatTSV, "", "1", 1, "line longer than 1048576 bytes (the limit)"},
		{"u.data", FormatAuto, "1\t2\t3\t4\n", "7", 2, "line longer than"},
		{"ratings.dat", FormatAuto, "1::2::3::4\n", "7", 2, "line longer than"},
		{"ratings.csv", FormatAuto, "userId,movieId,rating,timestamp\n", "9", 2, "line longer than"},
		{"ratings-final.csv", FormatAuto, "\"product\",\"user\",\"value\"\n", "x", 2, "line longer than"},
		{"blank.txt", FormatAuto, "\n\n\n", " ", 4, "line longer than"},
		{"x.tsv", FormatTSV, "a\tb\t1\n", "a\t", 2, "line longer than"},
		{"x.csv", FormatCSV, "a,b,1\n", "a,", 2, "more than 65535 commas in one record (the limit)"},
		{"x.csv", FormatCSV, "a,b,1\n", "abcdefghijklmnopqrstuvwxyz,", 2, "line longer than"},
		{"quote.csv", FormatCSV, "a,b,1\n\"", "a\n", 2, "quoted field not closed within 1048576 bytes"},
		{"quote.csv", FormatSweetRS, "\"product\",\"user\",\"value\"\n\"", "\"\"\n", 2, "quoted field not closed"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%s", tt.name, tt.format), func(t *testing.T) {
			r := &endless{prefix: tt.prefix, pattern: tt.pattern, max: streamMax}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := Read(r, tt.name, Options{Format: tt.format})
			runtime.ReadMemStats(&after)
			var pe *ParseError
			if !errors.As(err, &pe) || pe.File != tt.name || pe.Line != tt.line || !errors.Is(err, ErrSyntax) ||
				!strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("err = %v; want a ParseError at %s:%d with %q", err, tt.name, tt.line, tt.msg)
			}
			t.Logf("read %d bytes, allocated %d bytes: %v", r.n, after.TotalAlloc-before.TotalAlloc, err)
			if r.n > readMax {
				t.Errorf("read %d bytes before failing, want at most %d", r.n, readMax)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > allocMax {
				t.Errorf("allocated %d bytes, want at most %d", alloc, allocMax)
			}
		})
	}
}

// TestLineLimitEdge checks the limit itself: a line of exactly
// MaxLineBytes bytes passes, one byte more does not, in both kinds of
// parser.
func TestLineLimitEdge(t *testing.T) {
	for _, f := range []Format{FormatCSV, FormatTSV} {
		sep := map[Format]string{FormatCSV: ",", FormatTSV: "\t"}[f]
		pad := func(n int) string { // a line of n bytes: ID, item, rating 3
			return strings.Repeat(" ", n-len("u"+sep+"i"+sep+"3")) + "u" + sep + "i" + sep + "3"
		}
		if _, err := Read(strings.NewReader(pad(MaxLineBytes)+"\n"), "x", Options{Format: f}); err != nil {
			t.Errorf("%v: line of MaxLineBytes: %v", f, err)
		}
		if _, err := Read(strings.NewReader("a"+sep+"b"+sep+"4\r\n"+pad(MaxLineBytes)), "x", Options{Format: f}); err != nil {
			t.Errorf("%v: last line of MaxLineBytes without a line break: %v", f, err)
		}
		_, err := Read(strings.NewReader(pad(MaxLineBytes+1)+"\n"), "x", Options{Format: f})
		if !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), "x:1: malformed line: line longer than 1048576 bytes") {
			t.Errorf("%v: line of MaxLineBytes+1: %v", f, err)
		}
	}
}

// TestReaderErrorAfterLines checks that a reader failing in the middle of
// a line is blamed, and a bad complete line before it is reported first.
// (A reader failing within the first 64 KiB, which Read looks at to
// detect the format, is blamed at once, as TestReadErrors checks.)
func TestReaderErrorAfterLines(t *testing.T) {
	boom := errors.New("boom")
	blank := strings.Repeat("\n", 70<<10)
	for _, f := range []Format{FormatCSV, FormatTSV, FormatML100k} {
		sep := map[Format]string{FormatCSV: ",", FormatTSV: "\t", FormatML100k: "\t"}[f]
		ts := map[Format]string{FormatML100k: sep + "881250949"}[f]
		good := "a" + sep + "b" + sep + "3" + ts + "\n"
		bad := "a" + sep + "c" + sep + "9" + ts + "\n"
		_, err := Read(io.MultiReader(strings.NewReader(blank+good+good[:3]), errReader{boom}), "x", Options{Format: f})
		if !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "ratings: reading x: ") {
			t.Errorf("%v: truncated line: err = %v, want boom", f, err)
		}
		_, err = Read(io.MultiReader(strings.NewReader(blank+bad+good[:3]), errReader{boom}), "x", Options{Format: f})
		var pe *ParseError
		if !errors.Is(err, ErrRange) || !errors.As(err, &pe) || pe.Line != len(blank)+1 {
			t.Errorf("%v: bad line before the failure: err = %v, want ErrRange on line %d", f, err, len(blank)+1)
		}
	}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// TestChunking checks that how the input arrives — all at once or in
// chunks of various sizes — changes nothing: the guard's fast and slow
// paths and its line counts agree.
func TestChunking(t *testing.T) {
	pad := strings.Repeat(" ", MaxLineBytes)
	commas := func(n int) string { return "a,b,1,\"" + strings.Repeat(",", n-3) + "\"\n" }
	inputs := []struct {
		name   string
		format Format
		cols   string
		data   string
	}{
		{"a.csv", FormatCSV, "", "u,i,r\r\na,b,1\n\n\"c\nd\",\"e,\"\"f\",2\nx,y,3"},
		{"a.tsv", FormatTSV, "", "u\ti\tr\na\tb\t1\n\n\"c\"\td\t2\n"},
		{"u.data", FormatAuto, "", "1\t2\t3\t881250949\n2\t1\t4\t881250949\n"},
		{"nul.csv", FormatCSV, "", "a,b,1\n\"c\nd\",e,2\x00\n"},
		{"limit.csv", FormatCSV, "", "a,b,1\n" + pad[:MaxLineBytes-5] + "c,d,2\n\"e\n" + pad[:MaxLineBytes-8] + "\",f,3\n"},
		{"over.csv", FormatCSV, "", "a,b,1\n\"" + pad + "\n"},
		{"limit.tsv", FormatTSV, "", "a\tb\t1\n" + pad[:MaxLineBytes-5] + "c\td\t2\n" + pad + "e\n"},
		{"commas.csv", FormatCSV, "user,item,rating,_", "a,b,1,x\n" + commas(maxCommas) + commas(maxCommas+1)},
	}
	for _, in := range inputs {
		sizes := []int{0, 1, 7, 4093} // 0: all at once
		if len(in.data) > 1000 {
			sizes = []int{0, 4093, 65537, MaxLineBytes + 3} // small chunks would be slow
		}
		var want string
		for _, size := range sizes {
			var r io.Reader = strings.NewReader(in.data)
			if size > 0 {
				r = &chunked{r: r, n: size}
			}
			d, err := Read(r, in.name, Options{Format: in.format, Columns: in.cols})
			got := fmt.Sprint(err)
			if err == nil {
				got = fmt.Sprintf("%+v %v", d.Stats, ratingsOf(d))
			}
			if size == 0 {
				want = got
				t.Logf("%s: %.200s", in.name, got)
			} else if got != want {
				t.Errorf("%s in chunks of %d: %.300s\nall at once: %.300s", in.name, size, got, want)
			}
		}
	}
}

// chunked reads at most n bytes at a time from r.
type chunked struct {
	r io.Reader
	n int
}

func (c *chunked) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.n)]) }
