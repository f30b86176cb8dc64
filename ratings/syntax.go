package ratings

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits on the input. They bound the memory a loader needs for one line,
// whatever the input: an endless line or an unterminated quote ends in an
// error, not in exhausted memory.
const (
	// MaxLineBytes is the longest line, in bytes without its line ending,
	// that the loaders accept, in every format. In csv a quoted field may
	// hold line breaks; the limit then applies to the whole record.
	MaxLineBytes = 1 << 20
	// MaxIDBytes is the longest user or item ID, in bytes of UTF-8, that
	// the loaders accept.
	MaxIDBytes = 1024
)

// maxCommas is the most commas a csv record may have, quoted ones
// included: a bound on the fields encoding/csv allocates for.
const maxCommas = 1<<16 - 1

// isDigit reports whether c is an ASCII decimal digit.
func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// isDecimal reports whether s is a number in the syntax ratings are
// written in: an optional sign, decimal digits with at most one decimal
// point and at least one digit, and an optional exponent (e or E, an
// optional sign, digits):
//
//	[+-] ( d+ [ "." d* ] | "." d+ ) [ (e|E) [+-] d+ ]
//
// Unlike strconv.ParseFloat it rejects hexadecimal ("0x1p2"), digit
// separators ("1_0"), "Inf", "NaN" and white space.
func isDecimal[T ~string | ~[]byte](s T) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && isDigit(s[i]) {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isDigit(s[i]) {
			i++
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for i < len(s) && isDigit(s[i]) {
			i++
			exp++
		}
		if exp == 0 {
			return false
		}
	}
	return i == len(s)
}

// isNonFinite reports whether s spells NaN or an infinity as
// strconv.ParseFloat accepts them: an optional sign and "nan", "inf" or
// "infinity" in any case.
func isNonFinite(s string) bool {
	s = strings.ToLower(strings.TrimLeft(s, "+-"))
	return len(s) <= 9 && (s == "nan" || s == "inf" || s == "infinity")
}

// parseRating parses a rating field: a finite number in the syntax of
// isDecimal. Its errors wrap ErrSyntax.
func parseRating[T ~string | ~[]byte](s T) (float64, error) {
	if len(s) == 1 && isDigit(s[0]) {
		return float64(s[0] - '0'), nil // the common case, without strconv
	}
	if len(s) == 0 {
		return 0, fmt.Errorf("%w: empty rating", ErrSyntax)
	}
	v, why := parseNumber(s)
	if why != "" {
		return 0, fmt.Errorf("%w: rating %s", ErrSyntax, why)
	}
	return v, nil
}

// parseNumber parses a finite number in the syntax of isDecimal. If s is
// not one, why says so, e.g. `"x" is not a number (…)`.
func parseNumber[T ~string | ~[]byte](s T) (v float64, why string) {
	if len(s) == 0 {
		return 0, "is empty"
	}
	if !isDecimal(s) {
		str := string(s)
		if isNonFinite(str) {
			return 0, fmt.Sprintf("%s is not finite", quote(str))
		}
		return 0, fmt.Sprintf("%s is not a number (%s)", quote(str), numberHint(str))
	}
	v, err := strconv.ParseFloat(string(s), 64)
	if err != nil || math.IsInf(v, 0) {
		// isDecimal accepted it, so the error is ErrRange: beyond ±MaxFloat64.
		return 0, fmt.Sprintf("%s is not finite (beyond ±%g)", quote(s), math.MaxFloat64)
	}
	return v + 0, "" // + 0 turns −0 into 0
}

// numberHint says what may be wrong with s, which is not a decimal number.
func numberHint(s string) string {
	switch {
	case strings.Contains(s, ","):
		return "a decimal comma? write 4.5, not 4,5"
	case strings.ContainsAny(s, "xX") && strings.HasPrefix(strings.TrimLeft(s, "+-"), "0"):
		return "hexadecimal is not accepted; want a decimal such as 4 or 3.5"
	case strings.Contains(s, "_"):
		return "digit separators are not accepted; want a decimal such as 4 or 3.5"
	case strings.Contains(s, "\r"):
		return "a carriage return inside the line: old Mac line endings? convert them to \\n"
	}
	return "want a decimal such as 4, 3.5 or 4e0"
}

// namesUser reports whether id, the user field of the first non-blank
// record of a file without a rating column, names the column ("user",
// "userId", "user_id", any case), which makes the record a header under
// HeaderAuto.
func namesUser(id string) bool {
	switch strings.ToLower(id) {
	case "user", "userid", "user_id", "users":
		return true
	}
	return false
}

// looksLikeHeader reports whether rating, the rating field of the first
// non-blank record, makes that record a header under HeaderAuto: it has a
// letter and no digit, and does not spell NaN or an infinity ("rating",
// "score", "Bewertung" do; "4", "", "NaN", "0x1p2" do not).
func looksLikeHeader(rating string) bool {
	if isNonFinite(rating) {
		return false
	}
	letter := false
	for _, r := range rating {
		if '0' <= r && r <= '9' {
			return false
		}
		if unicode.IsLetter(r) {
			letter = true
		}
	}
	return letter
}

// quote returns s quoted as by %q, cut after 64 bytes (at a rune boundary
// if possible) and marked "…" if longer, so that an error message stays
// short whatever the input.
func quote[T ~string | ~[]byte](s T) string {
	const max = 64
	if len(s) <= max {
		return strconv.Quote(string(s))
	}
	k := max
	for k > max-utf8.UTFMax && !utf8.RuneStart(s[k]) {
		k--
	}
	return strconv.Quote(string(s[:k])) + "…"
}

// isTimestamp reports whether s can be the optional fourth field of the
// default csv and tsv layout: a Unix time in seconds or milliseconds, an
// unsigned integer of 9 to 19 digits (9 digits reach back to 1973). A
// shorter integer is more likely the fraction of a rating written with a
// decimal comma, "4,5", so it is not accepted.
func isTimestamp[T ~string | ~[]byte](s T) bool {
	if len(s) < 9 || len(s) > 19 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// isDigits reports whether s is a non-empty string of ASCII digits.
func isDigits[T ~string | ~[]byte](s T) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return len(s) > 0
}

// checkID checks a user or item ID (what says which): not empty, at most
// MaxIDBytes bytes, valid UTF-8 and free of control characters (C0, DEL
// and C1: a tab, carriage return or line feed in an ID, possible in a
// quoted csv field, would break every tab-separated output that names
// it). Its errors wrap ErrSyntax.
func checkID[T ~string | ~[]byte](what string, id T) error {
	switch {
	case len(id) == 0:
		return fmt.Errorf("%w: empty %s ID", ErrSyntax, what)
	case len(id) > MaxIDBytes:
		return fmt.Errorf("%w: %s ID of %d bytes, longer than %d: %s", ErrSyntax, what, len(id), MaxIDBytes, quote(id))
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if c < 0x20 || c == 0x7f {
			return controlError(what, id, rune(c))
		}
		if c >= utf8.RuneSelf {
			if !utf8.ValidString(string(id)) {
				return fmt.Errorf("%w: %s ID %s is not valid UTF-8 (convert the file to UTF-8)", ErrSyntax, what, quote(id))
			}
			// C1 controls U+0080–U+009F are 0xC2 0x80–0x9F in UTF-8.
			if c == 0xc2 && i+1 < len(id) && id[i+1] < 0xa0 {
				return controlError(what, id, rune(id[i+1]))
			}
		}
	}
	return nil
}

// controlError is checkID's error for an ID holding the control
// character c.
func controlError[T ~string | ~[]byte](what string, id T, c rune) error {
	hint := ""
	if c == '\r' {
		hint = "; if the file uses CR-only (old Mac) line endings, convert them to \\n"
	}
	return fmt.Errorf("%w: %s ID %s holds the control character %U: IDs must be printable text (a tab, CR or LF would break tab-separated output)%s",
		ErrSyntax, what, quote(id), c, hint)
}

// columns says where the user, item and rating fields are in a record of
// n fields. With stamp (the default csv and tsv layout) a record may also
// have a fourth field if it is a Unix timestamp (isTimestamp).
type columns struct {
	user, item, rating, n int
	stamp                 bool
	// bare (Scan's default pairs layout) also accepts a record of just
	// two fields, user and item, without a rating.
	bare bool
	// pairs is FormatPairs' layout: user, item and nothing else.
	pairs bool
}

// rated reports whether a record of n fields laid out as c has a rating.
func (c columns) rated(n int) bool { return c.rating >= 0 && !(c.bare && n == 2) }

// defaultColumns is the layout of a csv or tsv file when Options.Columns
// is empty.
var defaultColumns = columns{user: 0, item: 1, rating: 2, n: 3, stamp: true}

// parseColumns parses Options.Columns; see there.
func parseColumns(spec string) (columns, error) { return parseColumnsFor(spec, true) }

// parseColumnsFor parses Options.Columns; without needRating (Scan) the
// rating may be left out, and the empty spec also accepts records of
// just a user and an item.
func parseColumnsFor(spec string, needRating bool) (columns, error) {
	if spec == "" {
		c := defaultColumns
		c.bare = !needRating
		return c, nil
	}
	if len(spec) > 1000 {
		return columns{}, fmt.Errorf("ratings: columns %.20q…: longer than 1000 bytes", spec)
	}
	names := strings.Split(spec, ",")
	c := columns{user: -1, item: -1, rating: -1, n: len(names)}
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
	switch {
	case needRating && (c.user < 0 || c.item < 0 || c.rating < 0):
		return c, fmt.Errorf("ratings: columns %q: must name user, item and rating", spec)
	case c.user < 0 || c.item < 0:
		return c, fmt.Errorf("ratings: columns %q: must name user and item", spec)
	}
	return c, nil
}

// fieldsError returns nil if a record of n fields, whose fields are
// given by field, fits cols, else the cause of the error (wrapping
// ErrSyntax).
func fieldsError[T ~string | ~[]byte](n int, field func(int) T, cols columns) error {
	switch {
	case n == cols.n, cols.bare && n == 2:
		return nil
	case hasCR(n, field):
		return fmt.Errorf("%w: %d fields, and a carriage return inside the line: the file seems to use CR-only (old Mac) line endings; convert them to \\n", ErrSyntax, n)
	case cols.pairs:
		return fmt.Errorf("%w: %d fields, want 2: a pairs file has user and item alone on each line (a file with ratings: format csv or tsv)", ErrSyntax, n)
	case cols.bare && n < 2:
		return fmt.Errorf("%w: %d field, want user,item or user,item,rating (fields are separated by commas or tabs)", ErrSyntax, n)
	case n < cols.n:
		hint := ""
		for k := range n {
			if strings.Contains(string(field(k)), ";") {
				hint = " (semicolon-separated? only commas and tabs separate fields)"
				break
			}
		}
		return fmt.Errorf("%w: %d fields, want %d%s", ErrSyntax, n, cols.n, hint)
	case !cols.stamp:
		return fmt.Errorf("%w: more than %d fields (%d)", ErrSyntax, cols.n, n)
	case n == cols.n+1 && isTimestamp(field(cols.n)):
		return nil
	case n == cols.n+1:
		rating, fourth := field(2), field(3)
		hint := ""
		if isDigits(rating) && isDigits(fourth) {
			hint = fmt.Sprintf(`the rating %s,%s written with a decimal comma? write %s.%s; `, rating, fourth, rating, fourth)
			if len(rating)+len(fourth) > 40 {
				hint = "" // not a rating
			}
		}
		return fmt.Errorf("%w: 4 fields, and the 4th, %s, is not a Unix timestamp (9 to 19 digits): %s"+
			"the default columns are user,item,rating and an optional timestamp; name the columns with Options.Columns (dpmc: --columns), e.g. %q",
			ErrSyntax, quote(fourth), hint, "user,item,rating,_")
	}
	example := "user,item,rating" + strings.Repeat(",_", min(n-3, 10))
	if n > 13 {
		example += ",…"
	}
	return fmt.Errorf("%w: more than 4 fields (%d): the default columns are user,item,rating and an optional timestamp; "+
		"name the columns with Options.Columns (dpmc: --columns), e.g. %q", ErrSyntax, n, example)
}

// hasCR reports whether one of the n fields holds a carriage return (a
// field may be empty, e.g. past those a parser split off):
// what is left of CR-only line endings in a line that a later line feed
// ends.
func hasCR[T ~string | ~[]byte](n int, field func(int) T) bool {
	for k := range n {
		f := field(k)
		for i := 0; i < len(f); i++ {
			if f[i] == '\r' {
				return true
			}
		}
	}
	return false
}

// checkRange checks a declared rating range: finite, lo < hi, and hi − lo
// finite, so that a centre (lo+hi)/2 and a half-width (hi−lo)/2 are finite
// too. The error says what is wrong, without a prefix.
func checkRange(lo, hi float64) error {
	switch {
	case math.IsNaN(lo) || math.IsInf(lo, 0):
		return fmt.Errorf("minimum %v is not finite", lo)
	case math.IsNaN(hi) || math.IsInf(hi, 0):
		return fmt.Errorf("maximum %v is not finite", hi)
	case !(lo < hi):
		return fmt.Errorf("minimum %v is not below maximum %v", lo, hi)
	case math.IsInf(hi-lo, 0):
		return fmt.Errorf("width %v − (%v) overflows", hi, lo)
	case math.IsInf(float64(float32(lo)), 0) || math.IsInf(float64(float32(hi)), 0):
		return fmt.Errorf("%v, %v is beyond the float32 range (±%g) a Matrix stores its ratings in", lo, hi, math.MaxFloat32)
	}
	return nil
}

// ParseRange parses a rating range written "MIN,MAX", such as "1,5" or
// "0.5,5", as for a command-line flag (dpmc's --rating-range): two numbers
// in the syntax of ratings (see Options) separated by one comma, white
// space allowed around each. The result, in rating units, is meant for
// Options.Min and Options.Max. It returns an error, prefixed "ratings:
// rating range", unless both are finite and within float32's range (a
// Matrix stores ratings as float32), MIN < MAX and MAX − MIN is finite.
func ParseRange(s string) (lo, hi float64, err error) {
	fail := func(format string, args ...any) (float64, float64, error) {
		return 0, 0, fmt.Errorf("ratings: rating range %q: %s", s, fmt.Sprintf(format, args...))
	}
	if len(s) > 1000 {
		return 0, 0, fmt.Errorf("ratings: rating range %.20q…: longer than 1000 bytes", s)
	}
	a, b, ok := strings.Cut(s, ",")
	if !ok || strings.Contains(b, ",") {
		return fail("want MIN,MAX, e.g. 1,5 or 0.5,5")
	}
	var v [2]float64
	for k, f := range []string{a, b} {
		f = strings.TrimSpace(f)
		x, why := parseNumber(f)
		if why != "" {
			return fail("%s %s", [2]string{"MIN", "MAX"}[k], why)
		}
		v[k] = x
	}
	if err := checkRange(v[0], v[1]); err != nil {
		return fail("%v", err)
	}
	return v[0], v[1], nil
}
