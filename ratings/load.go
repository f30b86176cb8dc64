package ratings

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Options control how a ratings file is read. The zero value detects the
// format and uses that format's defaults. Columns and Header apply only to
// csv and tsv: setting them with another explicit format is an error, and
// with FormatAuto they restrict detection to csv and tsv.
type Options struct {
	// Format is the file format; FormatAuto (the zero value) detects it.
	Format Format

	// Columns names the columns of a csv or tsv file, comma-separated:
	// each of "user", "item" and "rating" exactly once, "_" for a column
	// to ignore, e.g. "item,_,user,rating". A line must then have exactly
	// that many fields. Empty means "user,item,rating" followed by any
	// number of ignored columns.
	Columns string

	// Header says whether a csv or tsv file starts with a header line.
	// HeaderAuto (the zero value) skips the first non-blank line if its
	// rating field is not a number.
	Header Header

	// Min and Max are the declared rating range, inclusive, in rating
	// units. A rating outside it is an error. If both are zero the
	// format's own range applies: ml100k and mldat 1–5, mlcsv 0.5–5,
	// sweetrs 1–5 (after dropping 0 = not rated), csv and tsv 1–5.
	Min, Max float64

	// Duplicates says what to do with a (user, item) pair that occurs more
	// than once. DuplicatesDefault (the zero value) averages for sweetrs
	// and rejects for every other format.
	Duplicates Duplicates
}

// Dataset is a loaded ratings file: the matrix, the ID mappings of its rows
// and columns, the declared rating range and what the loader did.
type Dataset struct {
	// Ratings holds the ratings; row i is user Users.ID(i), column j is
	// item Items.ID(j).
	Ratings *Matrix
	// Users and Items map external IDs to row and column indices, in
	// order of first appearance among the kept lines of the file. A test
	// set read with ReadTest or LoadPair shares them with its training
	// set.
	Users, Items *IDs
	// Min and Max are the declared rating range: every rating lies in
	// [Min, Max].
	Min, Max float64
	// Source is the file name given to Read, or the path given to Load.
	Source string
	// Format is the format the file was read as, never FormatAuto.
	Format Format
	// FormatReason says why Format was chosen: "requested" if it was
	// given in Options, else what detection saw, e.g. "file name
	// u1.base".
	FormatReason string
	// Stats counts what the loader read, kept and dropped.
	Stats Stats
}

// Stats counts what a loader did with the lines of a file. The counts
// satisfy Records = Ratings.Len() + Zeros + Cold + Merged.
type Stats struct {
	// Lines is the number of lines read, including blank and header
	// lines.
	Lines int
	// Header is the line number of the header line skipped, or 0.
	Header int
	// Records is the number of rating lines: not blank, not the header.
	Records int
	// Zeros is the number of records dropped because their rating was 0,
	// which SweetRS uses for "not rated". Always 0 for other formats.
	Zeros int
	// Cold is the number of records of a test set (ReadTest, LoadPair)
	// dropped because their user or item is not in the training set's
	// IDs; ColdUsers and ColdItems count the distinct unknown IDs.
	Cold, ColdUsers, ColdItems int
	// Averaged is the number of (user, item) pairs that occurred on more
	// than one line and were stored once with their mean rating; Merged
	// is the number of records folded away by that.
	Averaged, Merged int
}

// maxLine is the longest line, in bytes, the line-based formats accept.
const maxLine = 1 << 20

// Load reads the ratings file at path; see Read.
func Load(path string, opts Options) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("ratings: %w", err)
	}
	defer f.Close()
	return Read(f, path, opts)
}

// Read reads a ratings file from r; name is used for format detection and
// in errors. Users and items get dense indices in order of first
// appearance among the kept lines (a dropped SweetRS 0 does not count). A
// UTF-8 byte order mark, CRLF line endings and blank lines are accepted.
//
// Bad input — a missing or extra field, an empty ID, a rating that is not a
// number, NaN, ±Inf, outside [Min, Max], a duplicate pair (unless
// averaged), no ratings at all — gives a *ParseError with the line number.
// Invalid Options give a plain error; a failing r gives its error, wrapped.
func Read(r io.Reader, name string, opts Options) (*Dataset, error) {
	return read(r, name, opts, nil)
}

// LoadPair loads a training file and a test file that share ID mappings,
// such as MovieLens 100k u1.base and u1.test. The test set is read with
// ReadTest: it has the training set's Users, Items and shape, and its
// ratings whose user or item never occurs in the training file are dropped
// and counted in test.Stats.Cold (u1.test has 32 such ratings).
func LoadPair(trainPath, testPath string, opts Options) (train, test *Dataset, err error) {
	train, err = Load(trainPath, opts)
	if err != nil {
		return nil, nil, err
	}
	f, err := os.Open(testPath)
	if err != nil {
		return nil, nil, fmt.Errorf("ratings: %w", err)
	}
	defer f.Close()
	test, err = ReadTest(f, testPath, opts, train)
	if err != nil {
		return nil, nil, err
	}
	return train, test, nil
}

// ReadTest reads a test set for train: like Read, but users and items are
// looked up in train.Users and train.Items, which the result shares, so
// its matrix has train's shape and row i means the same user in both. A
// rating whose user or item is not in them is dropped and counted in
// Stats.Cold (and its IDs in ColdUsers, ColdItems); if every rating is
// dropped the error wraps ErrNoRatings. The test file's duplicates and
// rating range are checked as by Read.
func ReadTest(r io.Reader, name string, opts Options, train *Dataset) (*Dataset, error) {
	if train == nil || train.Users == nil || train.Items == nil {
		return nil, errors.New("ratings: ReadTest needs a training Dataset with Users and Items")
	}
	return read(r, name, opts, train)
}

// columns says where the user, item and rating fields are in a record of n
// fields; with !exact a record may have more.
type columns struct {
	user, item, rating, n int
	exact                 bool
}

var defaultColumns = columns{user: 0, item: 1, rating: 2, n: 3}

// parseColumns parses Options.Columns.
func parseColumns(spec string) (columns, error) {
	if spec == "" {
		return defaultColumns, nil
	}
	names := strings.Split(spec, ",")
	c := columns{user: -1, item: -1, rating: -1, n: len(names), exact: true}
	for k, name := range names {
		var dst *int
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "user":
			dst = &c.user
		case "item":
			dst = &c.item
		case "rating":
			dst = &c.rating
		case "_":
			continue
		default:
			return c, fmt.Errorf("ratings: columns %q: unknown column %q (want user, item, rating or _)", spec, name)
		}
		if *dst >= 0 {
			return c, fmt.Errorf("ratings: columns %q: %q named twice", spec, strings.TrimSpace(name))
		}
		*dst = k
	}
	if c.user < 0 || c.item < 0 || c.rating < 0 {
		return c, fmt.Errorf("ratings: columns %q: must name user, item and rating", spec)
	}
	return c, nil
}

// loader holds the state of one read.
type loader struct {
	file     string
	format   Format
	min, max float64
	ranged   bool // min, max come from Options
	integer  bool // ratings must be integers
	dropZero bool // rating 0 means "not rated"
	dup      Duplicates

	users, items *IDs
	fixed        bool // users, items belong to a training set: look up only
	coldUsers    map[string]struct{}
	coldItems    map[string]struct{}

	triples []Triple
	lines   []int32 // lines[k] is the line of triples[k]
	stats   Stats
}

func read(r io.Reader, name string, opts Options, train *Dataset) (*Dataset, error) {
	if name == "" {
		name = "<input>"
	}
	if opts.Format < FormatAuto || opts.Format > FormatTSV {
		return nil, fmt.Errorf("ratings: %s: unknown format %d", name, int(opts.Format))
	}
	genericOpts := opts.Columns != "" || opts.Header != HeaderAuto
	if genericOpts && opts.Format != FormatAuto && !opts.Format.generic() {
		return nil, fmt.Errorf("ratings: %s: Columns and Header apply only to csv and tsv, not %s", name, opts.Format)
	}
	if opts.Header < HeaderAuto || opts.Header > HeaderNo {
		return nil, fmt.Errorf("ratings: %s: unknown header option %d", name, int(opts.Header))
	}
	cols, err := parseColumns(opts.Columns)
	if err != nil {
		return nil, err
	}
	ranged := opts.Min != 0 || opts.Max != 0
	if ranged && (!(opts.Min < opts.Max) || math.IsInf(opts.Min, 0) || math.IsInf(opts.Max, 0)) {
		return nil, fmt.Errorf("ratings: %s: rating range [%v, %v] is not a finite interval with Min < Max", name, opts.Min, opts.Max)
	}
	if opts.Duplicates < DuplicatesDefault || opts.Duplicates > DuplicatesAverage {
		return nil, fmt.Errorf("ratings: %s: unknown duplicates policy %d", name, int(opts.Duplicates))
	}

	br := bufio.NewReaderSize(r, 64<<10)
	if b, _ := br.Peek(len(utf8BOM)); bytes.Equal(b, utf8BOM) {
		_, _ = br.Discard(len(utf8BOM))
	}
	head, err := br.Peek(br.Size())
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, fmt.Errorf("ratings: reading %s: %w", name, err)
	}
	format, reason := opts.Format, "requested"
	if format == FormatAuto {
		format, reason = detect(name, head, genericOpts)
	}

	l := &loader{file: name, format: format, ranged: ranged, dup: opts.Duplicates}
	if n := estimateLines(r, len(head), head); n > 0 {
		l.triples = make([]Triple, 0, n)
		l.lines = make([]int32, 0, n)
	}
	switch format {
	case FormatML100k:
		l.min, l.max, l.integer = 1, 5, true
	case FormatMLDat, FormatSweetRS, FormatCSV, FormatTSV:
		l.min, l.max = 1, 5
	case FormatMLCSV:
		l.min, l.max = 0.5, 5
	}
	if ranged {
		l.min, l.max = opts.Min, opts.Max
	}
	if format == FormatSweetRS {
		l.dropZero = true
		if l.dup == DuplicatesDefault {
			l.dup = DuplicatesAverage
		}
	}
	if train != nil {
		l.users, l.items, l.fixed = train.Users, train.Items, true
		l.coldUsers, l.coldItems = map[string]struct{}{}, map[string]struct{}{}
	} else {
		l.users, l.items = newIDs(), newIDs()
	}

	ml := columns{user: 0, item: 1, rating: 2, n: 4, exact: true}
	switch format {
	case FormatML100k:
		err = l.readLines(br, []byte{'\t'}, ml, nil, HeaderNo)
	case FormatMLDat:
		err = l.readLines(br, []byte("::"), ml, nil, HeaderNo)
	case FormatMLCSV:
		err = l.readLines(br, []byte{','}, ml, []string{"userId", "movieId", "rating", "timestamp"}, HeaderYes)
	case FormatTSV:
		err = l.readLines(br, []byte{'\t'}, cols, nil, opts.Header)
	case FormatSweetRS:
		err = l.readCSV(br, columns{item: 0, user: 1, rating: 2, n: 3, exact: true}, []string{"product", "user", "value"}, HeaderYes)
	case FormatCSV:
		err = l.readCSV(br, cols, nil, opts.Header)
	}
	if err != nil {
		return nil, err
	}
	d, err := l.finish()
	if err != nil {
		return nil, err
	}
	d.FormatReason = reason
	return d, nil
}

// errAt returns a *ParseError for line.
func (l *loader) errAt(line int, err error) error {
	return &ParseError{File: l.file, Line: line, Err: err}
}

// header reports whether the first non-blank record, whose rating field is
// rating (ok false if the record has no such field), is a header to skip.
func header(mode Header, rating string, ok bool) bool {
	switch mode {
	case HeaderYes:
		return true
	case HeaderAuto:
		if !ok {
			return false
		}
		_, err := strconv.ParseFloat(strings.TrimSpace(rating), 64)
		return err != nil
	}
	return false
}

// readLines reads a format without quoting, one record per line, fields
// separated by sep. If want is non-nil the first non-blank line must be
// exactly that header; else mode says whether to skip it.
func (l *loader) readLines(r io.Reader, sep []byte, cols columns, want []string, mode Header) error {
	sr := &stickyReader{r: r}
	err := l.scanLines(sr, sep, cols, want, mode)
	if err != nil && sr.err != nil {
		// A Scanner hands over a partial last line when its reader fails;
		// blame the reader, not that line.
		return fmt.Errorf("ratings: reading %s: %w", l.file, sr.err)
	}
	return err
}

func (l *loader) scanLines(r io.Reader, sep []byte, cols columns, want []string, mode Header) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	limit := cols.n + 1 // split one field past the last, to detect extras
	var fields [][]byte
	first := true
	for sc.Scan() {
		l.stats.Lines++
		line := l.stats.Lines
		b := sc.Bytes()
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		fields = splitFields(b, sep, limit, fields[:0])
		if first {
			first = false
			if want != nil {
				if !equalFields(fields, want) {
					return l.errAt(line, fmt.Errorf("%w: want header %s, got %q", ErrSyntax, strings.Join(want, string(sep)), b))
				}
				l.stats.Header = line
				continue
			}
			var rating []byte
			if len(fields) > cols.rating {
				rating = fields[cols.rating]
			}
			if header(mode, string(rating), len(fields) > cols.rating) {
				l.stats.Header = line
				continue
			}
		}
		if err := l.checkFields(line, len(fields), cols); err != nil {
			return err
		}
		if err := addRecord(l, line, fields[cols.user], fields[cols.item], fields[cols.rating]); err != nil {
			return err
		}
		if l.format == FormatML100k || l.format == FormatMLDat || l.format == FormatMLCSV {
			if _, err := strconv.ParseInt(string(fields[3]), 10, 64); err != nil {
				return l.errAt(line, fmt.Errorf("%w: timestamp %q is not an integer", ErrSyntax, fields[3]))
			}
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return l.errAt(l.stats.Lines+1, fmt.Errorf("%w: line longer than %d bytes", ErrSyntax, maxLine))
		}
		return fmt.Errorf("ratings: reading %s: %w", l.file, err)
	}
	return nil
}

// readCSV reads RFC 4180 comma-separated values with encoding/csv. want and
// mode are as for readLines.
func (l *loader) readCSV(r io.Reader, cols columns, want []string, mode Header) error {
	sr := &stickyReader{r: r}
	cr := &lineCounter{r: sr}
	c := csv.NewReader(cr)
	c.FieldsPerRecord = -1
	c.ReuseRecord = true
	first := true
	for {
		rec, err := c.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if sr.err != nil {
				return fmt.Errorf("ratings: reading %s: %w", l.file, sr.err)
			}
			if errors.As(err, &pe) {
				return l.errAt(pe.Line, fmt.Errorf("%w: %w", ErrSyntax, pe))
			}
			return fmt.Errorf("ratings: reading %s: %w", l.file, err)
		}
		if len(rec) == 0 || len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue // a blank line, or one of spaces
		}
		line, _ := c.FieldPos(0)
		for k := range rec {
			rec[k] = strings.TrimSpace(rec[k])
		}
		if first {
			first = false
			if want != nil {
				if !slices.Equal(rec, want) {
					return l.errAt(line, fmt.Errorf("%w: want header %s, got %q", ErrSyntax, strings.Join(want, ","), strings.Join(rec, ",")))
				}
				l.stats.Header = line
				continue
			}
			var rating string
			if len(rec) > cols.rating {
				rating = rec[cols.rating]
			}
			if header(mode, rating, len(rec) > cols.rating) {
				l.stats.Header = line
				continue
			}
		}
		if err := l.checkFields(line, len(rec), cols); err != nil {
			return err
		}
		line, _ = c.FieldPos(cols.rating)
		if err := addRecord(l, line, rec[cols.user], rec[cols.item], rec[cols.rating]); err != nil {
			return err
		}
	}
	l.stats.Lines = cr.lines()
	return nil
}

// checkFields checks the number of fields n of a record.
func (l *loader) checkFields(line, n int, cols columns) error {
	switch {
	case n < cols.n:
		return l.errAt(line, fmt.Errorf("%w: %d fields, want %d", ErrSyntax, n, cols.n))
	case n > cols.n && cols.exact:
		return l.errAt(line, fmt.Errorf("%w: more than %d fields", ErrSyntax, cols.n))
	}
	return nil
}

// addRecord checks one record and appends its rating. It is generic so
// that neither []byte fields nor string fields need converting.
func addRecord[T ~string | ~[]byte](l *loader, line int, user, item, rating T) error {
	l.stats.Records++
	if line > math.MaxInt32 {
		// Also bounds the number of users and items, which index as int32.
		return l.errAt(line, fmt.Errorf("%w: more than %d lines", ErrRange, math.MaxInt32))
	}
	if len(user) == 0 {
		return l.errAt(line, fmt.Errorf("%w: empty user ID", ErrSyntax))
	}
	if len(item) == 0 {
		return l.errAt(line, fmt.Errorf("%w: empty item ID", ErrSyntax))
	}
	v, err := parseRating(rating)
	if err != nil {
		return l.errAt(line, err)
	}
	if v == 0 && l.dropZero {
		l.stats.Zeros++
		return nil
	}
	if !(v >= l.min && v <= l.max) {
		hint := ""
		if l.format == FormatMLDat && !l.ranged && v == 0.5 {
			hint = " (MovieLens 10M rates 0.5–5: set Min 0.5)"
		}
		return l.errAt(line, fmt.Errorf("%w: rating %v outside [%v, %v]%s", ErrRange, v, l.min, l.max, hint))
	}
	if l.integer && v != math.Trunc(v) {
		return l.errAt(line, fmt.Errorf("%w: rating %v is not an integer", ErrRange, v))
	}
	u, uok := l.users.index[string(user)]
	i, iok := l.items.index[string(item)]
	if l.fixed {
		if !uok || !iok {
			l.stats.Cold++
			if !uok {
				l.coldUsers[string(user)] = struct{}{}
			}
			if !iok {
				l.coldItems[string(item)] = struct{}{}
			}
			return nil
		}
	} else {
		if !uok {
			u = l.users.add(string(user))
		}
		if !iok {
			i = l.items.add(string(item))
		}
	}
	l.triples = append(l.triples, Triple{User: u, Item: i, Value: v})
	l.lines = append(l.lines, int32(line))
	return nil
}

// parseRating parses a rating field: a finite decimal number.
func parseRating[T ~string | ~[]byte](s T) (float64, error) {
	if len(s) == 1 && '0' <= s[0] && s[0] <= '9' {
		return float64(s[0] - '0'), nil // the common case, without strconv
	}
	if len(s) == 0 {
		return 0, fmt.Errorf("%w: empty rating", ErrSyntax)
	}
	v, err := strconv.ParseFloat(string(s), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("%w: rating %q is not a number", ErrSyntax, string(s))
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%w: rating %q is not finite", ErrSyntax, string(s))
	}
	return v, nil
}

// finish builds the Dataset from the records read.
func (l *loader) finish() (*Dataset, error) {
	st := &l.stats
	if l.fixed {
		st.ColdUsers, st.ColdItems = len(l.coldUsers), len(l.coldItems)
	}
	if len(l.triples) == 0 {
		var err error
		line := 0
		switch {
		case st.Records == 0 && st.Header > 0:
			line, err = st.Header, fmt.Errorf("%w: a header but no rating lines", ErrNoRatings)
		case st.Records == 0 && st.Lines == 0:
			err = fmt.Errorf("%w: empty file", ErrNoRatings)
		case st.Records == 0:
			err = fmt.Errorf("%w: only blank lines", ErrNoRatings)
		default:
			err = fmt.Errorf("%w: all %d rating lines dropped (%d rated 0 = not rated, %d with a user or item not in the training set)",
				ErrNoRatings, st.Records, st.Zeros, st.Cold)
		}
		return nil, l.errAt(line, err)
	}
	dup := l.dup
	if dup == DuplicatesDefault {
		dup = DuplicatesError
	}
	mat, averaged, err := Build(l.users.Len(), l.items.Len(), l.triples, dup)
	if err != nil {
		var de *DuplicateError
		if errors.As(err, &de) {
			return nil, l.errAt(int(l.lines[de.Second]), fmt.Errorf("%w: user %q, item %q already rated on line %d",
				ErrDuplicate, l.users.ID(int(de.User)), l.items.ID(int(de.Item)), l.lines[de.First]))
		}
		return nil, fmt.Errorf("ratings: %s: %w", l.file, err)
	}
	st.Averaged = averaged
	st.Merged = len(l.triples) - mat.Len()
	return &Dataset{
		Ratings: mat,
		Users:   l.users,
		Items:   l.items,
		Min:     l.min,
		Max:     l.max,
		Source:  l.file,
		Format:  l.format,
		Stats:   *st,
	}, nil
}

// splitFields appends to dst the fields of line separated by sep, with
// surrounding white space trimmed, splitting into at most limit fields.
func splitFields(line, sep []byte, limit int, dst [][]byte) [][]byte {
	for len(dst) < limit-1 {
		k := bytes.Index(line, sep)
		if k < 0 {
			break
		}
		dst = append(dst, bytes.TrimSpace(line[:k]))
		line = line[k+len(sep):]
	}
	return append(dst, bytes.TrimSpace(line))
}

func equalFields(fields [][]byte, want []string) bool {
	if len(fields) != len(want) {
		return false
	}
	for k := range fields {
		if string(fields[k]) != want[k] {
			return false
		}
	}
	return true
}

// lineCounter counts the lines of what is read through it.
type lineCounter struct {
	r        io.Reader
	newlines int
	last     byte
	any      bool
}

func (c *lineCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 {
		c.newlines += bytes.Count(p[:n], []byte{'\n'})
		c.last, c.any = p[n-1], true
	}
	return n, err
}

// lines returns the number of lines read so far, counting a last line
// without a newline.
func (c *lineCounter) lines() int {
	if c.any && c.last != '\n' {
		return c.newlines + 1
	}
	return c.newlines
}

// stickyReader remembers the first error other than io.EOF of its reader.
type stickyReader struct {
	r   io.Reader
	err error
}

func (s *stickyReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF && s.err == nil {
		s.err = err
	}
	return n, err
}

// estimateLines guesses the number of lines of r from its size, if r
// reports one, and from head, the first bytes of what is left of it; the
// loader has taken buffered bytes from r. 0 means no guess. The guess lets
// a loader allocate its buffers once.
func estimateLines(r io.Reader, buffered int, head []byte) int {
	var size int64
	switch r := r.(type) {
	case interface{ Len() int }: // *bytes.Reader, *strings.Reader, *bytes.Buffer
		size = int64(r.Len() + buffered)
	case interface{ Stat() (os.FileInfo, error) }: // *os.File
		fi, err := r.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			return 0
		}
		size = fi.Size()
	}
	newlines := bytes.Count(head, []byte{'\n'})
	if size <= 0 || newlines == 0 {
		return 0
	}
	n := float64(size) / float64(len(head)) * float64(newlines) * 1.02
	// A wrong guess only costs memory: stay within what a file of the
	// shortest plausible lines ("1,2,3\n") could need.
	return int(min(n, float64(size)/6+1, 1<<31-1))
}
