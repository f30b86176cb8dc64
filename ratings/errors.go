package ratings

import (
	"errors"
	"fmt"
)

// Sentinel errors wrapped by the loaders' errors; test with errors.Is.
var (
	// ErrSyntax: a malformed line — wrong number of fields, an empty,
	// overlong or non-UTF-8 ID or one holding a control character (a tab,
	// CR, LF, …), a rating that is not a decimal number or
	// not finite, a missing or wrong header, a line longer than
	// MaxLineBytes, a NUL byte or a UTF-16 byte order mark.
	ErrSyntax = errors.New("malformed line")
	// ErrRange: a rating outside the declared range, or not a multiple
	// of the format's step: an integer in ml100k, a multiple of 0.5 in
	// mldat and mlcsv.
	ErrRange = errors.New("rating out of range")
	// ErrTooLarge: an input too large to index: more than math.MaxInt32
	// lines, more than math.MaxInt32 distinct IDs on one side, or more
	// than 4 GiB of their text.
	ErrTooLarge = errors.New("input too large")
	// ErrDuplicate: a (user, item) pair rated twice when duplicates are not
	// allowed.
	ErrDuplicate = errors.New("duplicate rating")
	// ErrNoRatings: the input holds no rating to keep — an empty file, a
	// header alone, or only dropped lines.
	ErrNoRatings = errors.New("no ratings")
)

// ParseError is the error the loaders return for bad input. File is the
// name given to Read (the path for Load); Line is the 1-based line number
// of the offending line, or 0 when the error concerns the whole input (an
// empty file). Err is the cause; it wraps one of ErrSyntax, ErrRange,
// ErrTooLarge, ErrDuplicate or ErrNoRatings, and for a CSV quoting error also the
// *csv.ParseError.
type ParseError struct {
	File string
	Line int
	Err  error
}

// Error returns "ratings: FILE:LINE: CAUSE", without ":LINE" when Line is 0.
func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("ratings: %s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("ratings: %s: %v", e.File, e.Err)
}

// Unwrap returns e.Err.
func (e *ParseError) Unwrap() error { return e.Err }
