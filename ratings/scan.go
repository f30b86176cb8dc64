package ratings

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
)

// Record is one kept record of a file read by Scan.
type Record struct {
	// User and Item are the record's IDs, trimmed and unquoted.
	User, Item string
	// Rating is the rating, in rating units, or NaN if the file has no
	// rating column.
	Rating float64
	// Line is the record's 1-based line number (in csv, of its rating
	// field, or of its first field if it has no rating).
	Line int
}

// ScanInfo says how Scan read a file.
type ScanInfo struct {
	// Format is the format the file was read as, never FormatAuto, and
	// FormatReason why (as in Dataset).
	Format       Format
	FormatReason string
	// Min and Max are the declared rating range every rating lies in.
	Min, Max float64
	// Duplicates is the format's policy for a repeated (user, item) pair,
	// DuplicatesError or DuplicatesAverage (never DuplicatesDefault),
	// which Scan leaves to its caller to apply (as Read applies it).
	Duplicates Duplicates
	// Rated says that the records have ratings.
	Rated bool
	// Stats counts the lines read; Cold and the averaging counts are 0.
	Stats Stats
}

// Scan reads a ratings file from r record by record, parsing every line
// exactly as Read does — the same format detection, field splitting, csv
// quoting, header rule, ID and rating checks and errors (*ParseError
// naming name and the line) — and calls fn with each kept record in file
// order, without building a matrix or looking at duplicates (see
// ScanInfo.Duplicates). It stops at the first error, fn's included (then
// returned as is).
//
// Unlike Read, Scan also reads files without ratings, such as lists of
// (user, item) pairs: opts.Columns may leave out "rating" ("user,item",
// "item,_,user"), and a csv or tsv file read with the default columns may
// have records of just user and item. Then every Record.Rating is NaN,
// and under HeaderAuto the first record is a header if its user field is
// "user", "users", "userId" or "user_id" (any case). A file must not mix records
// with and without a rating. A file without a kept record is an error
// wrapping ErrNoRatings.
//
// ctx is looked at every 1024 records: once it is done Scan returns an error
// wrapping ctx.Err().
func Scan(ctx context.Context, r io.Reader, name string, opts Options, fn func(Record) error) (ScanInfo, error) {
	kept := 0
	var first Record
	sink := func(rec Record) error {
		if kept == 0 {
			first = rec
		} else if math.IsNaN(rec.Rating) != math.IsNaN(first.Rating) {
			has := func(r Record) string {
				if math.IsNaN(r.Rating) {
					return "no rating"
				}
				return "a rating"
			}
			return &ParseError{File: name, Line: rec.Line, Err: fmt.Errorf("%w: a record with %s, but the record on line %d has %s", ErrSyntax, has(rec), first.Line, has(first))}
		}
		kept++
		return fn(rec)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	d, err := read(r, name, opts, nil, readConfig{sink: sink, ctx: ctx})
	if err != nil {
		return ScanInfo{}, err
	}
	info := ScanInfo{Format: d.Format, FormatReason: d.FormatReason, Min: d.Min, Max: d.Max, Duplicates: opts.Duplicates, Rated: !math.IsNaN(first.Rating), Stats: d.Stats}
	if info.Duplicates == DuplicatesDefault {
		info.Duplicates = DuplicatesError
		if d.Format == FormatSweetRS || d.Format == FormatPairs {
			info.Duplicates = DuplicatesAverage
		}
	}
	return info, nil
}

// ScanFile reads the ratings file at path with Scan.
func ScanFile(ctx context.Context, path string, opts Options, fn func(Record) error) (ScanInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return ScanInfo{}, fmt.Errorf("ratings: %w", err)
	}
	defer f.Close()
	return Scan(ctx, f, path, opts, fn)
}

// scanned ends a Scan: the Dataset, without a matrix or IDs, that says
// how the file was read, or the error for a file without a kept record.
func (l *loader) scanned(reason string) (*Dataset, error) {
	if l.stats.Records-l.stats.Zeros == 0 {
		return nil, l.noRatings()
	}
	return &Dataset{Min: l.min, Max: l.max, Source: l.file, Format: l.format, FormatReason: reason, Stats: l.stats}, nil
}
