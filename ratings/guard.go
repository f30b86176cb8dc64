package ratings

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// guard is the reader every parser reads the input through. It
//
//   - ends a line (in csv: a record, whose quoted fields may hold line
//     breaks) longer than MaxLineBytes with an error, so a parser never
//     buffers more than that of one line: an endless line or an unclosed
//     quote costs O(MaxLineBytes) memory, not the size of the input;
//   - in csv, ends a record with more than maxCommas commas with an error,
//     so that encoding/csv, which spends some 40 bytes on each field, does
//     not spend 40 times MaxLineBytes on a line of empty fields;
//   - ends the input at a NUL byte with an error (a binary or UTF-16 file);
//   - counts lines;
//   - keeps the first error of the underlying reader, so that a parser
//     error caused by the truncated last line can be blamed on the reader.
//
// It hands on the bytes before the offending one and then its error, so a
// parser sees every line before it and reports an earlier bad line first.
type guard struct {
	r      io.Reader
	file   string
	quotes bool // RFC 4180: a line break inside double quotes does not end a record

	line    int  // line of the next byte, from 1
	start   int  // line on which the current record started
	size    int  // bytes of the current record so far, without its final line ending
	commas  int  // commas in the current record so far, if quotes
	inQuote bool // inside a quoted field: an odd number of quotes since start
	last    byte // the last byte handed on
	any     bool // whether any byte was handed on

	err     error // first error: the reader's (other than io.EOF) or the guard's own *ParseError
	errLine int   // the line err concerns: an error a parser reports on an earlier line comes first
	reader  bool  // err comes from r
}

func newGuard(r io.Reader, file string, quotes bool) *guard {
	return &guard{r: r, file: file, quotes: quotes, line: 1, start: 1}
}

// Read reads from the underlying reader and checks what it read.
func (g *guard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.r.Read(p)
	ok, gerr := g.check(p[:n])
	if ok > 0 {
		g.last, g.any = p[ok-1], true
	}
	switch {
	case gerr != nil:
		g.err, g.errLine = gerr, gerr.(*ParseError).Line
		return ok, gerr
	case err != nil && err != io.EOF:
		g.err, g.errLine, g.reader = err, g.line, true
	}
	return n, err
}

// check checks b, the next bytes of the input, and returns how many of
// them can be handed on and, if not all, why not.
func (g *guard) check(b []byte) (int, error) {
	nul := bytes.IndexByte(b, 0)
	if nul >= 0 {
		b = b[:nul]
	}
	if g.fits(b) {
		return len(b), g.nulError(nul)
	}
	done := 0
	for len(b) > 0 {
		seg, rest, found := bytes.Cut(b, []byte{'\n'})
		if g.size+len(seg) > MaxLineBytes {
			return done + MaxLineBytes - g.size, g.tooLong()
		}
		g.size += len(seg)
		if g.quotes {
			if c := bytes.Count(seg, []byte{','}); g.commas+c > maxCommas {
				k := 0 // seg[:k] holds maxCommas − g.commas commas
				for range maxCommas - g.commas + 1 {
					k += bytes.IndexByte(seg[k:], ',') + 1
				}
				return done + k - 1, &ParseError{File: g.file, Line: g.start, Err: fmt.Errorf(
					"%w: more than %d commas in one record (the limit)", ErrSyntax, maxCommas)}
			} else {
				g.commas += c
			}
			if bytes.Count(seg, []byte{'"'})%2 == 1 {
				g.inQuote = !g.inQuote
			}
		}
		if !found {
			done += len(seg)
			break
		}
		g.line++
		if g.inQuote {
			g.size++ // the line break belongs to the quoted field
		} else {
			g.size, g.commas, g.start = 0, 0, g.line
		}
		done += len(seg) + 1
		b = rest
	}
	return done, g.nulError(nul)
}

// fits checks b, the next bytes of the input, NUL-free, on the fast path:
// if b is too short to take the current record past MaxLineBytes or
// maxCommas and holds no quote to track, it updates g and reports true;
// else it reports false and leaves g for the slow path, line by line.
func (g *guard) fits(b []byte) bool {
	if g.size+len(b) > MaxLineBytes {
		return false
	}
	if g.quotes && (g.inQuote || g.commas+len(b) > maxCommas || bytes.IndexByte(b, '"') >= 0) {
		return false
	}
	last := bytes.LastIndexByte(b, '\n')
	if last < 0 {
		g.size += len(b)
	} else {
		g.line += bytes.Count(b, []byte{'\n'})
		g.size, g.commas, g.start = len(b)-last-1, 0, g.line
	}
	if g.quotes {
		g.commas += bytes.Count(b[last+1:], []byte{','})
	}
	return true
}

// nulError returns the error for a NUL byte at position nul of the bytes
// checked last, on line g.line, or nil if nul < 0.
func (g *guard) nulError(nul int) error {
	if nul < 0 {
		return nil
	}
	return &ParseError{File: g.file, Line: g.line, Err: fmt.Errorf(
		"%w: NUL byte: not a text file (UTF-16 or binary?); ratings files are UTF-8 text", ErrSyntax)}
}

// tooLong returns the error for a record past MaxLineBytes.
func (g *guard) tooLong() error {
	var err error
	switch {
	case g.inQuote:
		err = fmt.Errorf("%w: quoted field not closed within %d bytes (the line length limit); a missing \"?", ErrSyntax, MaxLineBytes)
	case g.start < g.line:
		err = fmt.Errorf("%w: record of lines %d–%d longer than %d bytes (the line length limit)", ErrSyntax, g.start, g.line, MaxLineBytes)
	default:
		err = fmt.Errorf("%w: line longer than %d bytes (the limit)", ErrSyntax, MaxLineBytes)
	}
	return &ParseError{File: g.file, Line: g.start, Err: err}
}

// blame returns the error to report when a parser reading through g
// stopped with err, nil at the end of the input. An error of g's wins,
// unless err is a *ParseError on an earlier line: a parser reports an
// error on the truncated line before an error of g's on that line.
func (g *guard) blame(err error) error {
	if g.err == nil {
		return err
	}
	var pe *ParseError
	if errors.As(err, &pe) && pe.Line > 0 && pe.Line < g.errLine {
		return err
	}
	if g.reader {
		return fmt.Errorf("ratings: reading %s: %w", g.file, g.err)
	}
	return g.err
}

// lines returns the number of lines handed on so far, counting a last
// line without a line break.
func (g *guard) lines() int {
	if g.any && g.last != '\n' {
		return g.line
	}
	return g.line - 1
}
