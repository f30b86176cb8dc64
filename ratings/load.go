package ratings

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
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
	// that many fields.
	//
	// Empty (the default) means "user,item,rating", optionally followed
	// by a fourth field holding a Unix timestamp (an unsigned integer of
	// 9 to 19 digits, as in MovieLens), which is ignored. Any other line
	// is an error that suggests naming the columns: this catches a
	// decimal comma, "3,3,4,5" (user 3, item 3, rating 4,5), which would
	// otherwise read as rating 4.
	Columns string

	// Header says whether a csv or tsv file starts with a header line.
	// HeaderAuto (the zero value) skips the first non-blank line if its
	// rating field has a letter and no digit and is not NaN or Inf (as
	// "rating" or "score"); Dataset.Stats.Header reports it.
	Header Header

	// Min and Max are the declared rating range, inclusive, in rating
	// units; they apply to every format, the known datasets included. A
	// rating outside it is an error. If both are zero the format's own
	// range applies (Format.DefaultRange): ml100k and mldat 1–5, mlcsv
	// 0.5–5, sweetrs 1–5 (after dropping 0 = not rated), csv and tsv
	// 1–5. Otherwise both must be finite with Min < Max and Max − Min
	// finite; ParseRange parses them from "MIN,MAX".
	//
	// Ratings are written as decimal numbers: an optional sign, digits
	// with at most one decimal point, an optional exponent ("4", "3.5",
	// ".5", "-1", "4e0"). Hexadecimal, digit separators ("1_0"), "Inf",
	// "NaN" and a decimal comma are errors. ml100k ratings must be
	// integers; mldat and mlcsv ratings multiples of 0.5 (MovieLens 1M
	// rates in whole stars, 10M and ml-latest in half stars).
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
	// Implicit says that the file held implicit feedback, (user, item)
	// pairs without ratings (FormatPairs): every value is 1, and a
	// repeated pair was counted once (Stats.Merged). A model trained on
	// it ranks; it cannot predict ratings.
	Implicit bool
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
// UTF-8 byte order mark, CRLF line endings, blank lines (also lines of
// spaces) and white space around fields are accepted. IDs are UTF-8 text,
// compared as strings after trimming white space ("7" and "07" differ); in
// csv they may be quoted and then hold commas, quotes and line breaks; in
// the other formats a quote is an ordinary character.
//
// Bad input gives a *ParseError naming the file and line: a missing or
// extra field (see Options.Columns), an empty ID, an ID longer than
// MaxIDBytes, not valid UTF-8 or holding a control character (a tab, CR,
// LF, …: possible in a quoted csv field), a rating that is not a decimal number
// (see Options.Min), not finite, outside [Min, Max] or not a multiple of
// the format's step, a duplicate pair (unless averaged), a line longer
// than MaxLineBytes, a csv record with more than 65535 commas, a NUL byte
// or a UTF-16 byte order mark (not UTF-8 text), lines ending in a carriage
// return alone, no ratings at all (an empty file, a header alone, only
// blank lines). Read stops at the first such line. It never holds more
// than MaxLineBytes of one line, so an endless line or an unclosed quote
// fails after reading about MaxLineBytes, in memory of that order. Invalid
// Options give a plain error; a failing r gives its error, wrapped.
func Read(r io.Reader, name string, opts Options) (*Dataset, error) {
	return read(r, name, opts, nil, defaultConfig())
}

// LoadContext is Load, stopped when ctx is done (see ReadContext).
func LoadContext(ctx context.Context, path string, opts Options) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("ratings: %w", err)
	}
	defer f.Close()
	return ReadContext(ctx, f, path, opts)
}

// ReadContext is Read, stopped when ctx is done: ctx is looked at every
// 1024 records (every chunk of some 256 KiB where the file is parsed in
// parallel), and once it is done ReadContext returns an error naming the
// file and line and wrapping ctx.Err().
func ReadContext(ctx context.Context, r io.Reader, name string, opts Options) (*Dataset, error) {
	cfg := defaultConfig()
	cfg.ctx = ctx
	return read(r, name, opts, nil, cfg)
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
	return read(r, name, opts, train, defaultConfig())
}

// loader holds the state of one read.
type loader struct {
	recordRules
	dup Duplicates
	// workers is the number of goroutines that parse a format without
	// quoting in chunks of blockSize bytes (see readChunks); 0 reads it
	// line by line.
	workers, blockSize int
	parsers            *goroutines // see readConfig

	users, items *IDs
	fixed        bool // users, items belong to a training set: look up only
	// userFind and itemFind are what IDs are looked up in: users and
	// items, or for a test set their finders (IDs.finder).
	userFind, itemFind *IDs
	coldUsers          map[string]struct{}
	coldItems          map[string]struct{}

	// The ratings kept, as columns: user and item indices, values and
	// line numbers. While vc is not nil, each of is holds the code of the
	// value too (see codedValues); else vs holds the values, float32
	// while every value is exactly one.
	us, is []int32
	vc     *codedValues
	vs     Values
	runs   []lineRun // the line of each record, compressed: see lineOf
	// Dense caches in front of users.index and items.index for IDs in
	// canonical decimal form, the usual case: see numCache.
	userCache, itemCache numCache
	// expect is the guessed number of lines: once the first maxPrealloc
	// are in, the buffers grow to it at once rather than step by step.
	expect int
	stats  Stats

	// sink, if not nil, takes every kept record instead (Scan), and ctx,
	// if not nil, is checked every cancelEvery records; seen counts the
	// records read since the last check.
	sink func(Record) error
	ctx  context.Context
	seen int
}

// cancelEvery is how many records the loader reads between two looks at
// its context: some 50 µs of parsing.
const cancelEvery = 1024

// cancelled returns the context's error, looked at on every
// cancelEvery-th call (one per record, whatever the line numbers: csv
// records may span or skip lines), or nil; line names where it stopped.
func (l *loader) cancelled(line int) error {
	if l.ctx == nil {
		return nil
	}
	if l.seen++; l.seen < cancelEvery {
		return nil
	}
	l.seen = 0
	if err := l.ctx.Err(); err != nil {
		return fmt.Errorf("ratings: %s:%d: %w", l.file, line, err)
	}
	return nil
}

func read(r io.Reader, name string, opts Options, train *Dataset, cfg readConfig) (*Dataset, error) {
	if name == "" {
		name = "<input>"
	}
	if opts.Format < FormatAuto || opts.Format > FormatPairs {
		return nil, fmt.Errorf("ratings: %s: unknown format %d", name, int(opts.Format))
	}
	genericOpts := opts.Columns != "" || opts.Header != HeaderAuto
	if genericOpts && opts.Format != FormatAuto && !opts.Format.generic() && !(opts.Format == FormatPairs && opts.Columns == "") {
		if opts.Format == FormatPairs {
			return nil, fmt.Errorf("ratings: %s: Columns apply only to csv and tsv, not pairs (always user, item)", name)
		}
		return nil, fmt.Errorf("ratings: %s: Columns and Header apply only to csv and tsv (Header also to pairs), not %s", name, opts.Format)
	}
	if opts.Header < HeaderAuto || opts.Header > HeaderNo {
		return nil, fmt.Errorf("ratings: %s: unknown header option %d", name, int(opts.Header))
	}
	cols, err := parseColumnsFor(opts.Columns, cfg.sink == nil)
	if err != nil {
		return nil, err
	}
	ranged := opts.Min != 0 || opts.Max != 0
	if ranged {
		if err := checkRange(opts.Min, opts.Max); err != nil {
			return nil, fmt.Errorf("ratings: %s: rating range Options.Min = %v, Options.Max = %v: %w", name, opts.Min, opts.Max, err)
		}
	}
	if opts.Duplicates < DuplicatesDefault || opts.Duplicates > DuplicatesAverage {
		return nil, fmt.Errorf("ratings: %s: unknown duplicates policy %d", name, int(opts.Duplicates))
	}

	// A buffer of 64 KiB holds the head that detection looks at; a
	// smaller input needs no more than its size.
	size := inputSize(r)
	atStart := atOffsetZero(r) // sampleInput's offsets count from there
	bufSize := 64 << 10
	if size >= 0 && size < int64(bufSize) {
		bufSize = max(int(size)+1, 16)
	}
	br := bufio.NewReaderSize(r, bufSize)
	if b, _ := br.Peek(len(utf8BOM)); bytes.Equal(b, utf8BOM) {
		_, _ = br.Discard(len(utf8BOM))
	}
	head, err := br.Peek(br.Size())
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, fmt.Errorf("ratings: reading %s: %w", name, err)
	}
	if bytes.HasPrefix(head, []byte{0xFF, 0xFE}) || bytes.HasPrefix(head, []byte{0xFE, 0xFF}) {
		return nil, &ParseError{File: name, Line: 1, Err: fmt.Errorf("%w: UTF-16 byte order mark: convert the file to UTF-8", ErrSyntax)}
	}
	if cr := bytes.IndexByte(head, '\r'); cr >= 0 && cr < len(head)-1 && bytes.IndexByte(head, '\n') < 0 {
		return nil, &ParseError{File: name, Line: 1, Err: fmt.Errorf(
			"%w: lines end in a carriage return alone (old Mac line endings): convert them to \\n", ErrSyntax)}
	}
	format, reason := opts.Format, "requested"
	if format == FormatAuto {
		format, reason = detect(name, head, genericOpts, opts.Columns == "")
		if n, cut := firstLineCut(head); cut && len(head) == br.Size() && strings.HasPrefix(reason, "no tab or comma") {
			return nil, &ParseError{File: name, Line: n, Err: fmt.Errorf(
				"%w: line longer than %d bytes without a tab or comma (the format is detected from the first %d bytes): a first field longer than that, where IDs are at most %d bytes; to skip a long first column, give the format (Options.Format; dpmc: --format)",
				ErrSyntax, len(head), len(head), MaxIDBytes)}
		}
		if reason == "empty input" && len(head) > 0 {
			reason = fmt.Sprintf("only blank lines in the first %d bytes", len(head))
		}
	}

	l := &loader{recordRules: recordRules{file: name, format: format, ranged: ranged}, dup: opts.Duplicates,
		workers: cfg.workers, blockSize: cfg.blockSize, parsers: cfg.parsers, vc: &codedValues{},
		sink: cfg.sink, ctx: cfg.ctx}
	var samples []byte
	if atStart {
		samples = sampleInput(r, size, len(head))
	}
	if n, all := estimateLines(size, head, samples); n > 0 {
		l.us, l.is = make([]int32, 0, n), make([]int32, 0, n)
		l.expect = all
	}
	if l.workers > 0 && l.blockSize <= 0 {
		l.blockSize = defaultBlockSize
	}
	if l.workers > 0 && size >= 0 {
		// A small input in smaller chunks: the chunks in flight need no
		// more memory than a fraction of it, and the workers share it.
		l.blockSize = min(l.blockSize, max(64<<10, int(min(size, math.MaxInt32))/(4*l.workers)))
	}
	l.min, l.max = format.DefaultRange()
	switch format {
	case FormatML100k:
		l.step = 1
	case FormatMLDat, FormatMLCSV:
		l.step = 0.5
	}
	if ranged && format != FormatPairs { // pairs hold no rating: always 0–1
		l.min, l.max = opts.Min, opts.Max
	}
	if format == FormatSweetRS || format == FormatPairs {
		// SweetRS: 0 = not rated; both: a repeated pair is averaged,
		// which for pairs (every value 1) counts it once.
		l.dropZero = format == FormatSweetRS
		if l.dup == DuplicatesDefault {
			l.dup = DuplicatesAverage
		}
	}
	if train != nil {
		l.users, l.items, l.fixed = train.Users, train.Items, true
		l.userFind, l.itemFind = train.Users.finder(), train.Items.finder()
		l.coldUsers, l.coldItems = map[string]struct{}{}, map[string]struct{}{}
	} else {
		l.users, l.items = newIDs(), newIDs()
		l.userFind, l.itemFind = l.users, l.items
	}

	// Every parser reads through a guard, which bounds the line length.
	ml := columns{user: 0, item: 1, rating: 2, n: 4}
	switch format {
	case FormatML100k:
		err = l.readLines(newGuard(br, name, false), bufSize, &lineFormat{sep: []byte{'\t'}, cols: ml, mode: HeaderNo, stamp: true})
	case FormatMLDat:
		err = l.readLines(newGuard(br, name, false), bufSize, &lineFormat{sep: []byte("::"), cols: ml, mode: HeaderNo, stamp: true})
	case FormatMLCSV:
		err = l.readLines(newGuard(br, name, false), bufSize, &lineFormat{sep: []byte{','}, cols: ml,
			want: []string{"userId", "movieId", "rating", "timestamp"}, mode: HeaderYes, stamp: true})
	case FormatTSV:
		err = l.readLines(newGuard(br, name, false), bufSize, &lineFormat{sep: []byte{'\t'}, cols: cols, mode: opts.Header})
	case FormatSweetRS:
		err = l.readCSV(newGuard(br, name, true), columns{item: 0, user: 1, rating: 2, n: 3}, []string{"product", "user", "value"}, HeaderYes)
	case FormatCSV:
		err = l.readCSV(newGuard(br, name, true), cols, nil, opts.Header)
	case FormatPairs:
		pc := columns{user: 0, item: 1, rating: -1, n: 2, pairs: true}
		if pairsSep(head) == '\t' {
			err = l.readLines(newGuard(br, name, false), bufSize, &lineFormat{sep: []byte{'\t'}, cols: pc, mode: opts.Header})
		} else {
			err = l.readCSV(newGuard(br, name, true), pc, nil, opts.Header)
		}
	}
	if err != nil {
		return nil, err
	}
	if l.sink != nil {
		return l.scanned(reason)
	}
	d, err := l.finish()
	if err != nil {
		return nil, err
	}
	d.FormatReason = reason
	return d, nil
}

// recordRules are the rules a record of a file must follow, and the
// file's name for errors.
type recordRules struct {
	file     string
	format   Format
	min, max float64
	ranged   bool    // min, max come from Options
	step     float64 // if not 0, ratings must be multiples of step
	dropZero bool    // rating 0 means "not rated"
}

// errAt returns a *ParseError for line.
func (r *recordRules) errAt(line int, err error) error {
	return &ParseError{File: r.file, Line: line, Err: err}
}

// isHeader reports whether the first non-blank record, whose rating field
// is rating (ok false if the record has no such field), is a header to
// skip under mode.
func isHeader(mode Header, rating string, ok bool) bool {
	switch mode {
	case HeaderYes:
		return true
	case HeaderAuto:
		return ok && looksLikeHeader(rating)
	}
	return false
}

// lineFormat is how the formats without quoting lay out a line: fields
// separated by sep in the columns cols; want, if not nil, is the header
// the first non-blank line must be, else mode says whether to skip it;
// stamp says that the fourth field is a timestamp that must be an integer
// (ml100k, mldat, mlcsv).
type lineFormat struct {
	sep   []byte
	cols  columns
	want  []string
	mode  Header
	stamp bool
}

// lineKind is what a line of a format without quoting turned out to be.
type lineKind int

const (
	blankLine  lineKind = iota // blank, or of spaces
	headerLine                 // the header, skipped
	ratingLine                 // a rating to keep
	zeroLine                   // a record dropped for its rating 0 (not rated)
)

// readLines reads a format without quoting, one record per line, from g,
// with a buffer of bufSize bytes to start with: line by line, or in
// chunks parsed by l.workers goroutines if that is at least 1.
func (l *loader) readLines(g *guard, bufSize int, lf *lineFormat) error {
	if l.workers > 0 {
		return g.blame(l.readChunks(g, lf))
	}
	return g.blame(l.scanLines(g, bufSize, lf))
}

// scanLines reads the lines of r one by one with a bufio.Scanner.
func (l *loader) scanLines(r io.Reader, bufSize int, lf *lineFormat) error {
	sc := bufio.NewScanner(r)
	// The guard stops a line at MaxLineBytes; the Scanner must hold that
	// and the line ending.
	sc.Buffer(make([]byte, 0, bufSize), MaxLineBytes+2)
	var fields [][]byte
	first := true
	for sc.Scan() {
		l.stats.Lines++
		line := l.stats.Lines
		if err := l.cancelled(line); err != nil {
			return err
		}
		kind, user, item, v, err := l.recordRules.parseLine(sc.Bytes(), line, lf, &first, &fields)
		switch kind {
		case headerLine:
			l.stats.Header = line
		case ratingLine, zeroLine:
			l.stats.Records++
		}
		if err != nil {
			return err
		}
		switch kind {
		case ratingLine:
			if err := keepRecord(l, line, user, item, v); err != nil {
				return err
			}
		case zeroLine:
			l.stats.Zeros++
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) { // not reached: the guard stops first
			return l.errAt(l.stats.Lines+1, fmt.Errorf("%w: line longer than %d bytes (the limit)", ErrSyntax, MaxLineBytes))
		}
		return fmt.Errorf("ratings: reading %s: %w", l.file, err) // blame prefers the guard's error
	}
	return nil
}

// parseLine parses line number line, b, without its line ending, of a
// format laid out as lf. first says that no non-blank line came before
// (parseLine clears it); fields is scratch space. It returns what the
// line is, and for a rating line its user and item ID and its rating. A
// bad line gives an error; a header line or rating line may come with
// one too (a wrong header, a bad timestamp), which then wins. It only
// reads r, so goroutines can share it.
func (r *recordRules) parseLine(b []byte, line int, lf *lineFormat, first *bool, fields *[][]byte) (kind lineKind, user, item []byte, v float64, err error) {
	if len(b) == 0 || !(' ' < b[0] && b[0] < utf8.RuneSelf) && len(bytes.TrimSpace(b)) == 0 {
		return blankLine, nil, nil, 0, nil
	}
	cols := lf.cols
	limit := cols.n + 2 // split two fields past the last: a timestamp and extras
	// The fields of the usual short lines go on the stack, where storing
	// them needs no write barrier while the collector runs.
	var short [8][]byte
	var f [][]byte
	if limit <= len(short) {
		f = splitFields(b, lf.sep, limit, short[:0])
	} else {
		long := splitFields(b, lf.sep, limit, (*fields)[:0])
		*fields, f = long, long
	}
	if *first {
		*first = false
		if lf.want != nil {
			if !equalFields(f, lf.want) {
				return headerLine, nil, nil, 0, r.errAt(line, fmt.Errorf("%w: want header %s, got %s", ErrSyntax, strings.Join(lf.want, string(lf.sep)), quote(b)))
			}
			return headerLine, nil, nil, 0, nil
		}
		if headerRecord(lf.mode, cols, f) {
			return headerLine, nil, nil, 0, nil
		}
	}
	n := len(f)
	if n == limit {
		n += bytes.Count(f[n-1], lf.sep) // the last field holds the rest of the line
	}
	if n != cols.n { // fieldsError's first case, without making its closure
		// f holds at most limit fields, its last the rest of the line.
		if err := fieldsError(n, func(k int) []byte {
			if k < len(f) {
				return f[k]
			}
			return nil
		}, cols); err != nil {
			return blankLine, nil, nil, 0, r.errAt(line, err)
		}
	}
	user, item = f[cols.user], f[cols.item]
	if !cols.rated(n) {
		if err := checkRecordIDs(r, line, user, item); err != nil {
			return blankLine, nil, nil, 0, err
		}
		return ratingLine, user, item, math.NaN(), nil
	}
	v, keep, err := checkRecord(r, line, user, item, f[cols.rating])
	kind = ratingLine
	if !keep {
		kind = zeroLine
	}
	if err == nil && lf.stamp && !isInt64(f[3]) {
		err = r.errAt(line, fmt.Errorf("%w: timestamp %s is not an integer", ErrSyntax, quote(f[3])))
	}
	return kind, user, item, v, err
}

// readCSV reads RFC 4180 comma-separated values with encoding/csv from g.
// want and mode are as for readLines.
func (l *loader) readCSV(g *guard, cols columns, want []string, mode Header) error {
	err := l.parseCSV(g, cols, want, mode)
	l.stats.Lines = g.lines()
	return g.blame(err)
}

func (l *loader) parseCSV(g *guard, cols columns, want []string, mode Header) error {
	c := csv.NewReader(g)
	c.FieldsPerRecord = -1
	c.ReuseRecord = true
	first := true
	for {
		rec, err := c.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return l.errAt(pe.Line, fmt.Errorf("%w: %w", ErrSyntax, pe))
			}
			return fmt.Errorf("ratings: reading %s: %w", l.file, err) // blame prefers the guard's error
		}
		if len(rec) == 0 || len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue // a blank line, or one of spaces
		}
		line, _ := c.FieldPos(0)
		if err := l.cancelled(line); err != nil {
			return err
		}
		for k := range rec {
			rec[k] = strings.TrimSpace(rec[k])
		}
		if first {
			first = false
			if want != nil {
				if !slices.Equal(rec, want) {
					return l.errAt(line, fmt.Errorf("%w: want header %s, got %s", ErrSyntax, strings.Join(want, ","), quote(strings.Join(rec, ","))))
				}
				l.stats.Header = line
				continue
			}
			if headerRecord(mode, cols, rec) {
				l.stats.Header = line
				continue
			}
		}
		if err := fieldsError(len(rec), func(k int) string { return rec[k] }, cols); err != nil {
			return l.errAt(line, err)
		}
		if !cols.rated(len(rec)) {
			l.stats.Records++
			if err := checkRecordIDs(&l.recordRules, line, rec[cols.user], rec[cols.item]); err != nil {
				return err
			}
			if err := keepRecord(l, line, rec[cols.user], rec[cols.item], math.NaN()); err != nil {
				return err
			}
			continue
		}
		line, _ = c.FieldPos(cols.rating)
		if err := addRecord(l, line, rec[cols.user], rec[cols.item], rec[cols.rating]); err != nil {
			return err
		}
	}
}

// addRecord checks one record and appends its rating. It is generic so
// that neither []byte fields nor string fields need converting.
func addRecord[T ~string | ~[]byte](l *loader, line int, user, item, rating T) error {
	l.stats.Records++
	v, keep, err := checkRecord(&l.recordRules, line, user, item, rating)
	if err != nil {
		return err
	}
	if !keep {
		l.stats.Zeros++
		return nil
	}
	return keepRecord(l, line, user, item, v)
}

// checkRecord checks one record, on line line, by the rules r and returns
// its rating, and keep false if the record is to be dropped (a rating 0
// where that means "not rated"). It only reads r.
func checkRecord[T ~string | ~[]byte](r *recordRules, line int, user, item, rating T) (v float64, keep bool, err error) {
	if err := checkRecordIDs(r, line, user, item); err != nil {
		return 0, false, err
	}
	v, err = parseRating(rating)
	if err != nil {
		return 0, false, r.errAt(line, err)
	}
	if v == 0 && r.dropZero {
		return 0, false, nil
	}
	if !(v >= r.min && v <= r.max) {
		hint := ""
		if r.format == FormatMLDat && !r.ranged && v == 0.5 {
			hint = " (MovieLens 10M rates 0.5–5: set Min 0.5; dpmc: --rating-range 0.5,5)"
		}
		if r.format.generic() && v == 0 && r.min > 0 {
			hint = " (SweetRS writes 0 for not rated: read its ratings-final.csv as format sweetrs, without columns; dpmc: --format sweetrs)"
		}
		return 0, false, r.errAt(line, fmt.Errorf("%w: rating %v outside [%v, %v]%s", ErrRange, v, r.min, r.max, hint))
	}
	if r.step != 0 && v/r.step != math.Trunc(v/r.step) {
		if r.step == 1 {
			return 0, false, r.errAt(line, fmt.Errorf("%w: rating %v is not an integer (%s rates in whole stars)", ErrRange, v, r.format))
		}
		return 0, false, r.errAt(line, fmt.Errorf("%w: rating %v is not a multiple of %v (%s rates in whole or half stars)", ErrRange, v, r.step, r.format))
	}
	return v, true, nil
}

// checkRecordIDs checks the line number and the user and item IDs of a record
// on line line by the rules r.
func checkRecordIDs[T ~string | ~[]byte](r *recordRules, line int, user, item T) error {
	if line > math.MaxInt32 {
		// Also bounds the number of users and items, which index as int32.
		return r.errAt(line, fmt.Errorf("%w: more than %d lines", ErrTooLarge, math.MaxInt32))
	}
	if err := checkID("user", user); err != nil {
		return r.errAt(line, err)
	}
	if err := checkID("item", item); err != nil {
		return r.errAt(line, err)
	}
	return nil
}

// headerRecord reports whether the first non-blank record, of fields f
// laid out as cols, is a header to skip under mode. A record without a
// rating field (Scan) is one under HeaderAuto if its user field names
// the column (namesUser).
func headerRecord[T ~string | ~[]byte](mode Header, cols columns, f []T) bool {
	if cols.rated(len(f)) {
		ok := len(f) > cols.rating
		var rating string
		if ok {
			rating = string(f[cols.rating])
		}
		return isHeader(mode, rating, ok)
	}
	switch mode {
	case HeaderYes:
		return true
	case HeaderAuto:
		return len(f) > cols.user && namesUser(string(f[cols.user]))
	}
	return false
}

// keepRecord appends a checked record, of line line, with IDs user and
// item and rating v: it gives new IDs indices or, for a test set, drops
// the record as cold if an ID is unknown. Its only error is too many
// distinct IDs (see addID).
func keepRecord[T ~string | ~[]byte](l *loader, line int, user, item T, v float64) error {
	if l.sink != nil {
		return l.sink(Record{User: string(user), Item: string(item), Rating: v, Line: line})
	}
	u, uok := cacheFind(&l.userCache, l.userFind, user)
	i, iok := cacheFind(&l.itemCache, l.itemFind, item)
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
		var err error
		if !uok {
			if u, err = addID(l.users, user); err != nil {
				return l.errAt(line, fmt.Errorf("user ID: %w", err))
			}
			cachePut(&l.userCache, user, u)
		}
		if !iok {
			if i, err = addID(l.items, item); err != nil {
				return l.errAt(line, fmt.Errorf("item ID: %w", err))
			}
			cachePut(&l.itemCache, item, i)
		}
	}
	l.appendRecord(line, u, i, v)
	return nil
}

// appendRecord appends the rating v of user u for item i, read from line
// line; a record without a rating (NaN: a pair of FormatPairs) is stored
// as 1.
func (l *loader) appendRecord(line int, u, i int32, v float64) {
	if v != v {
		v = 1
	}
	if n := len(l.us); n == cap(l.us) && n >= maxPrealloc && l.expect > n {
		l.grow(l.expect)
	}
	if l.vc != nil {
		if x, ok := l.vc.pack(i, v); ok {
			l.us, l.is = append(l.us, u), append(l.is, x)
		} else {
			l.vs, l.vc = l.vc.unpack(l.is), nil
		}
	}
	if l.vc == nil {
		l.us, l.is = append(l.us, u), append(l.is, i)
		appendValue(&l.vs, v)
	}
	// Record k−1 is in the last run.
	if k, last := len(l.us)-1, len(l.runs)-1; last < 0 || l.runs[last].line+(k-1-l.runs[last].rec)+1 != line {
		l.runs = append(l.runs, lineRun{rec: k, line: line})
	}
}

// lineRun says that record rec, and each record after it up to the next
// run, was read from line line, line+1, …: a file without skipped lines
// between records is one run, so the loader needs no line number per
// record.
type lineRun struct{ rec, line int }

// lineOf returns the line number of record k (0 ≤ k < len(l.us)).
func (l *loader) lineOf(k int) int {
	i := sort.Search(len(l.runs), func(i int) bool { return l.runs[i].rec > k }) - 1
	return l.runs[i].line + k - l.runs[i].rec
}

// grow makes room for n records in all of the loader's buffers.
func (l *loader) grow(n int) {
	l.us = slices.Grow(l.us, n-len(l.us))
	l.is = slices.Grow(l.is, n-len(l.is))
	switch {
	case l.vc != nil:
	case l.vs.f64 != nil:
		l.vs.f64 = slices.Grow(l.vs.f64, n-len(l.vs.f64))
	default:
		l.vs.f32 = slices.Grow(l.vs.f32, n-len(l.vs.f32))
	}
}

// finish builds the Dataset from the records read.
func (l *loader) finish() (*Dataset, error) {
	st := &l.stats
	if l.fixed {
		st.ColdUsers, st.ColdItems = len(l.coldUsers), len(l.coldItems)
	}
	if len(l.us) == 0 {
		return nil, l.noRatings()
	}
	if !l.fixed {
		l.users.compact()
		l.items.compact()
	}
	dup := l.dup
	if dup == DuplicatesDefault {
		dup = DuplicatesError
	}
	// build holds the only references to the records, so that they can
	// go before it makes the column view.
	us, is, vc, vs := l.us, l.is, l.vc, l.vs
	l.us, l.is, l.vc, l.vs = nil, nil, nil, Values{}
	records := len(us)
	workers := min(l.workers, records>>16) // a goroutine per 64 Ki records or more
	if vc != nil {
		rec := &heldRecords{us: us, is: is}
		us, is = nil, nil // only rec holds them, so that buildScatter can let is go
		if mat, ok := buildScatter(l.users.Len(), l.items.Len(), rec, vc.table, workers); ok {
			return l.dataset(mat), nil
		}
		us, is = rec.us, rec.is
		vs, vc = vc.unpack(is), nil
	} else if vs.f64 == nil {
		if mat, ok := buildScatter32(l.users.Len(), l.items.Len(), us, is, vs.f32, workers); ok {
			return l.dataset(mat), nil
		}
	}
	mat, averaged, err := build(l.users.Len(), l.items.Len(), us, is, vs, dup)
	if err != nil {
		var de *DuplicateError
		if errors.As(err, &de) {
			return nil, l.errAt(l.lineOf(de.Second), fmt.Errorf("%w: user %s, item %s already rated on line %d",
				ErrDuplicate, quote(l.users.ID(int(de.User))), quote(l.items.ID(int(de.Item))), l.lineOf(de.First)))
		}
		return nil, fmt.Errorf("ratings: %s: %w", l.file, err)
	}
	st.Averaged = averaged
	st.Merged = records - mat.Len()
	return l.dataset(mat), nil
}

// noRatings returns the *ParseError (wrapping ErrNoRatings) for a file
// that kept no record.
func (l *loader) noRatings() error {
	st := &l.stats
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
	return l.errAt(line, err)
}

// dataset returns the Dataset of the matrix built.
func (l *loader) dataset(mat *Matrix) *Dataset {
	return &Dataset{
		Ratings:  mat,
		Users:    l.users,
		Items:    l.items,
		Min:      l.min,
		Max:      l.max,
		Source:   l.file,
		Format:   l.format,
		Stats:    l.stats,
		Implicit: l.format.Implicit(),
	}
}

// isInt64 reports whether b is a decimal int64 as strconv.ParseInt(b, 10,
// 64) accepts it (an optional sign, at least one digit, nothing else, in
// range), without making a string of it for every line.
func isInt64(b []byte) bool {
	neg := false
	if len(b) > 0 && (b[0] == '+' || b[0] == '-') {
		neg, b = b[0] == '-', b[1:]
	}
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	for len(b) > 1 && b[0] == '0' {
		b = b[1:]
	}
	limit := "9223372036854775807"
	if neg {
		limit = "9223372036854775808"
	}
	return len(b) < len(limit) || len(b) == len(limit) && string(b) <= limit
}

// splitFields appends to dst the fields of line separated by sep, with
// surrounding white space trimmed, splitting into at most limit fields.
func splitFields(line, sep []byte, limit int, dst [][]byte) [][]byte {
	if len(sep) == 1 {
		c := sep[0]
		for len(dst) < limit-1 {
			k := bytes.IndexByte(line, c)
			if k < 0 {
				break
			}
			dst = append(dst, trimSpace(line[:k]))
			line = line[k+1:]
		}
		return append(dst, trimSpace(line))
	}
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

// trimSpace is bytes.TrimSpace, quicker for a field that starts and
// ends with a printable ASCII byte.
func trimSpace(b []byte) []byte {
	if n := len(b); n > 0 && ' ' < b[0] && b[0] < utf8.RuneSelf && ' ' < b[n-1] && b[n-1] < utf8.RuneSelf {
		return b
	}
	return bytes.TrimSpace(b)
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

// maxPrealloc bounds the records a loader allocates room for before
// reading them (8 bytes each, 12 if the values cannot be coded) until
// that many lines have been read.
const maxPrealloc = 1 << 20

// inputSize returns the number of bytes r holds if r tells — a
// *bytes.Reader, *strings.Reader or *bytes.Buffer (what is left of it), a
// regular *os.File (its size) — else −1.
func inputSize(r io.Reader) int64 {
	switch r := r.(type) {
	case interface{ Len() int }:
		return int64(r.Len())
	case interface{ Stat() (os.FileInfo, error) }:
		fi, err := r.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			return -1
		}
		return fi.Size()
	}
	return -1
}

// estimateLines guesses the number of lines of an input of size bytes (−1
// if unknown) whose first bytes are head, with more of its bytes, from
// further in, in samples (none if the input cannot be read at random):
// n to allocate room for at once, and all, the guess for the whole input.
// 0 means no guess. The guess lets a loader allocate its buffers once; a
// guess from the head alone runs high when IDs lengthen down the file
// (users numbered in order: 15 % high for dpmc generate's 10 M lines),
// and the records then keep that much unused room.
func estimateLines(size int64, head, samples []byte) (n, all int) {
	newlines := bytes.Count(head, []byte{'\n'})
	if size <= 0 || newlines == 0 {
		return 0, 0
	}
	// The lines per byte of the head, or of the samples, which stand for
	// far more of a large input than its head does.
	density := float64(newlines) / float64(len(head))
	if k := bytes.Count(samples, []byte{'\n'}); k > 0 {
		density = float64(k) / float64(len(samples))
	}
	guess := float64(size) * density * 1.02
	// A wrong guess only costs memory: stay within what a file of the
	// shortest plausible lines ("1,2,3\n") could need, and within
	// maxPrealloc, so that a head of short lines before one endless line
	// costs little; append grows the buffers past it.
	all = int(min(guess, float64(size)/6+1, math.MaxInt32))
	return min(all, maxPrealloc), all
}

// sampleInput reads, from an input of size bytes that can be read at
// random (an *os.File) and whose offset 0 is its start (atOffsetZero), sampleCount pieces of sampleSize bytes spread
// evenly over what follows the head of headLen bytes, without moving the
// input's offset; nil for other inputs, for inputs not much larger than
// the head, or on a read error.
func sampleInput(r io.Reader, size int64, headLen int) []byte {
	ra, ok := r.(io.ReaderAt)
	if !ok || size < int64(4*headLen) || size < 4*sampleCount*sampleSize {
		return nil
	}
	buf := make([]byte, 0, sampleCount*sampleSize)
	for k := 1; k <= sampleCount; k++ {
		off := int64(headLen) + (size-int64(headLen)-sampleSize)*int64(k)/sampleCount
		piece := buf[len(buf) : len(buf)+sampleSize]
		if _, err := ra.ReadAt(piece, off); err != nil {
			return nil
		}
		buf = buf[:len(buf)+sampleSize]
	}
	return buf
}

// atOffsetZero reports whether r is an io.Seeker positioned at its start,
// so that the offsets of io.ReaderAt are those of r's remaining bytes (a
// file opened by path; not a reader part of which was read before).
func atOffsetZero(r io.Reader) bool {
	sk, ok := r.(io.Seeker)
	if !ok {
		return false
	}
	off, err := sk.Seek(0, io.SeekCurrent)
	return err == nil && off == 0
}

// sampleCount and sampleSize shape sampleInput's samples.
const (
	sampleCount = 8
	sampleSize  = 16 << 10
)
