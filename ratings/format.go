package ratings

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
)

// Format is a ratings file format.
type Format int

const (
	// FormatAuto detects the format from the file name and the first
	// non-blank line: u.data, *.base or *.test with a tab → ml100k; "::" →
	// mldat; header userId,movieId,rating → mlcsv; header
	// "product","user","value" → sweetrs; exactly two fields, "user<TAB>item"
	// or "user,item" (one tab or one comma, no semicolon) → pairs, before
	// any of these; else tsv if the line has at least as many tabs as
	// commas (and one), else csv. Dataset.Format
	// and Dataset.FormatReason say what it chose and why.
	FormatAuto Format = iota
	// FormatML100k is MovieLens 100k u.data, u1.base, u1.test, …:
	// exactly 4 fields "user<TAB>item<TAB>rating<TAB>timestamp", ratings
	// 1–5 and integers, an integer timestamp.
	FormatML100k
	// FormatMLDat is MovieLens 1M/10M ratings.dat: exactly 4 fields
	// "user::item::rating::timestamp", ratings 1–5 and multiples of 0.5,
	// an integer timestamp. MovieLens 1M rates 1–5 in whole stars; 10M
	// rates 0.5–5 in half stars: load it with Options{Min: 0.5, Max: 5}.
	FormatMLDat
	// FormatMLCSV is MovieLens ml-latest ratings.csv: header
	// "userId,movieId,rating,timestamp", then exactly 4 fields, ratings
	// 0.5–5 and multiples of 0.5 (half stars), an integer timestamp.
	FormatMLCSV
	// FormatSweetRS is SweetRS ratings-final.csv: header
	// "product","user","value" (item first), then exactly 3 fields,
	// quoted CSV, ratings 1–5; value 0 means "not rated" and the line is
	// dropped; repeated (user, product) pairs left are averaged by
	// default.
	FormatSweetRS
	// FormatCSV is comma-separated values (RFC 4180 quoting) with the
	// columns given by Options.Columns, ratings in [Options.Min,
	// Options.Max] (default 1–5).
	FormatCSV
	// FormatTSV is tab-separated values, no quoting (a quote is an
	// ordinary character), otherwise as FormatCSV.
	FormatTSV
	// FormatPairs is implicit feedback: (user, item) pairs without
	// ratings — clicks, plays, purchases — two fields per line, "user<TAB>item"
	// (no quoting) or "user,item" (csv quoting), separated as the first
	// non-blank line is, with an optional header (HeaderAuto: a first
	// record whose user field is "user", "userId", "user_id" or "users").
	// Every pair gets the value 1, a repeated pair counts once (by
	// default; DuplicatesError refuses it), and the Dataset is marked
	// Implicit, with the range 0–1 whatever Options.Min and Max say
	// (they are ignored: a caller may pass a model's rating range).
	// Options.Columns does not apply.
	FormatPairs
)

var formatNames = [...]string{
	FormatAuto:    "auto",
	FormatML100k:  "ml100k",
	FormatMLDat:   "mldat",
	FormatMLCSV:   "mlcsv",
	FormatSweetRS: "sweetrs",
	FormatCSV:     "csv",
	FormatTSV:     "tsv",
	FormatPairs:   "pairs",
}

// String returns the format's name as accepted by ParseFormat.
func (f Format) String() string {
	if f >= 0 && int(f) < len(formatNames) {
		return formatNames[f]
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// ParseFormat parses one of auto, ml100k, mldat, mlcsv, sweetrs, csv, tsv,
// pairs.
// Any other string is an error.
func ParseFormat(s string) (Format, error) {
	for f, name := range formatNames {
		if s == name {
			return Format(f), nil
		}
	}
	return 0, fmt.Errorf("ratings: unknown format %q (want one of %s)", s, strings.Join(formatNames[:], ", "))
}

// DefaultRange returns the rating range [lo, hi], in rating units, that
// format f declares when Options.Min and Options.Max are both zero:
// ml100k, mldat, sweetrs, csv and tsv 1–5, mlcsv 0.5–5, pairs 0–1 (every
// pair is stored as 1). The loaders check
// every rating against it and report it in Dataset.Min and Dataset.Max.
// FormatAuto and unknown formats return 0, 0: the range is then that of
// the detected format.
func (f Format) DefaultRange() (lo, hi float64) {
	switch f {
	case FormatML100k, FormatMLDat, FormatSweetRS, FormatCSV, FormatTSV:
		return 1, 5
	case FormatMLCSV:
		return 0.5, 5
	case FormatPairs:
		return 0, 1
	}
	return 0, 0
}

// Implicit reports whether f is a format of implicit feedback (pairs
// without ratings, each stored as 1): FormatPairs.
func (f Format) Implicit() bool { return f == FormatPairs }

// generic reports whether f is csv or tsv, the formats that take
// Options.Columns and Options.Header.
func (f Format) generic() bool { return f == FormatCSV || f == FormatTSV }

// Header says whether a csv or tsv file starts with a header line.
type Header int

const (
	// HeaderAuto skips the first non-blank line if its rating field has a
	// letter and no digit, and is not NaN or Inf: "rating", "score".
	HeaderAuto Header = iota
	// HeaderYes always skips the first non-blank line.
	HeaderYes
	// HeaderNo never skips a line.
	HeaderNo
)

var headerNames = [...]string{HeaderAuto: "auto", HeaderYes: "yes", HeaderNo: "no"}

// String returns "auto", "yes" or "no".
func (h Header) String() string {
	if h >= 0 && int(h) < len(headerNames) {
		return headerNames[h]
	}
	return fmt.Sprintf("Header(%d)", int(h))
}

// ParseHeader parses "auto", "yes" or "no". Any other string is an error.
func ParseHeader(s string) (Header, error) {
	for h, name := range headerNames {
		if s == name {
			return Header(h), nil
		}
	}
	return 0, fmt.Errorf("ratings: unknown header option %q (want auto, yes or no)", s)
}

// utf8BOM is the byte order mark that some editors put at the start of a
// UTF-8 file.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// detect chooses a format for a file called name whose first bytes (after
// any BOM) are head, and says why. With genericOnly it chooses only between
// csv and tsv. It never fails: a file it cannot place is read as csv, and
// that loader reports the bad line.
func detect(name string, head []byte, genericOnly, pairs bool) (Format, string) {
	line, n := firstLine(head)
	if n == 0 {
		return FormatCSV, "empty input"
	}
	if pairs && isPairLine(line) {
		return FormatPairs, fmt.Sprintf("two fields (user, item; no rating) on line %d", n)
	}
	if !genericOnly {
		base := filepath.Base(name)
		if (base == "u.data" || strings.HasSuffix(base, ".base") || strings.HasSuffix(base, ".test")) &&
			bytes.IndexByte(line, '\t') >= 0 {
			return FormatML100k, "file name " + base
		}
		if bytes.Contains(line, []byte("::")) {
			return FormatMLDat, fmt.Sprintf("\"::\" separators on line %d", n)
		}
		if bytes.HasPrefix(line, []byte("userId,movieId,rating")) {
			return FormatMLCSV, "header userId,movieId,rating"
		}
		if isSweetRSHeader(string(line)) {
			return FormatSweetRS, `header "product","user","value"`
		}
	}
	tabs, commas := bytes.Count(line, []byte{'\t'}), bytes.Count(line, []byte{','})
	switch {
	case tabs > 0 && tabs >= commas:
		return FormatTSV, fmt.Sprintf("tab-separated line %d", n)
	case commas > 0:
		return FormatCSV, fmt.Sprintf("comma-separated line %d", n)
	}
	return FormatCSV, fmt.Sprintf("no tab or comma on line %d", n)
}

// isPairLine reports whether line has the layout of a pairs file: one
// tab and no comma, or one comma and no tab, and no semicolon (a
// semicolon-separated file of ratings is not a pair of IDs).
func isPairLine(line []byte) bool {
	tabs, commas := bytes.Count(line, []byte{'\t'}), bytes.Count(line, []byte{','})
	return tabs+commas == 1 && bytes.IndexByte(line, ';') < 0
}

// pairsSep returns the separator of a pairs file whose first bytes are
// head: a tab if its first non-blank line has one, else a comma.
func pairsSep(head []byte) byte {
	if line, _ := firstLine(head); bytes.IndexByte(line, '\t') >= 0 {
		return '\t'
	}
	return ','
}

// isSweetRSHeader reports whether line is SweetRS's header, quoted or not.
func isSweetRSHeader(line string) bool {
	line = strings.TrimSpace(line)
	return line == `"product","user","value"` || line == "product,user,value"
}

// firstLine returns the first line of head that is not blank, without its
// line ending, and its 1-based line number; n is 0 if there is none.
func firstLine(head []byte) (line []byte, n int) {
	for len(head) > 0 {
		n++
		line, head, _ = bytes.Cut(head, []byte{'\n'})
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if len(bytes.TrimSpace(line)) > 0 {
			return line, n
		}
	}
	return nil, 0
}

// firstLineCut returns the 1-based number of the first line of head that
// is not blank, and whether head ends inside it (no line feed ends it
// within head).
func firstLineCut(head []byte) (n int, cut bool) {
	for len(head) > 0 {
		n++
		line, rest, found := bytes.Cut(head, []byte{'\n'})
		if len(bytes.TrimSpace(line)) > 0 {
			return n, !found
		}
		head = rest
	}
	return 0, false
}
