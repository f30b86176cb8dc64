package model

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// Pair is one line of a pairs file: a user ID, an item ID and, if the
// file has a rating column, the rating.
type Pair struct {
	User, Item string
	Rating     float64
	// Line is the pair's 1-based line number in its file.
	Line int
}

// Columns says which fields of a pairs file hold what.
type Columns struct {
	// User and Item are the 0-based fields of the user and item IDs,
	// Rating that of the rating (−1: none); N is the field count every
	// line must have.
	User, Item, Rating, N int
}

// HasRating reports whether the columns include a rating.
func (c Columns) HasRating() bool { return c.Rating >= 0 }

// ParseColumns parses a column list such as "user,item",
// "user,item,rating" or "item,_,user" ("_" ignores a field): user and item
// exactly once, rating at most once. The empty string means "user,item".
func ParseColumns(s string) (Columns, error) {
	if s == "" {
		s = "user,item"
	}
	c := Columns{User: -1, Item: -1, Rating: -1}
	names := strings.Split(s, ",")
	c.N = len(names)
	for k, n := range names {
		var dst *int
		switch strings.TrimSpace(n) {
		case "user":
			dst = &c.User
		case "item":
			dst = &c.Item
		case "rating":
			dst = &c.Rating
		case "_":
			continue
		default:
			return c, fmt.Errorf("model: columns %q: unknown column %q (want user, item, rating or _)", s, n)
		}
		if *dst >= 0 {
			return c, fmt.Errorf("model: columns %q: %s twice", s, n)
		}
		*dst = k
	}
	if c.User < 0 || c.Item < 0 {
		return c, fmt.Errorf("model: columns %q: need both user and item", s)
	}
	return c, nil
}

// maxLine bounds one line of a pairs file.
const maxLine = 1 << 20

// ReadPairs reads one pair per line from r (named name in errors): fields
// separated by a tab if the line has one, else by commas if it has one,
// else by spaces. Blank lines and lines starting with # are skipped, and
// so is a first line whose fields are the column names (a header). Every
// line must have exactly c.N fields; a rating must be a finite decimal
// number. Errors name the file and line.
func ReadPairs(r io.Reader, name string, c Columns) ([]Pair, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	var out []Pair
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		if strings.IndexByte(text, 0) >= 0 {
			return nil, fmt.Errorf("model: %s:%d: NUL byte (not a text file?)", name, line)
		}
		t := strings.TrimSpace(text)
		if t == "" || t[0] == '#' {
			continue
		}
		var f []string
		switch {
		case strings.IndexByte(t, '\t') >= 0:
			f = strings.Split(t, "\t")
		case strings.IndexByte(t, ',') >= 0:
			f = strings.Split(t, ",")
		default:
			f = strings.Fields(t)
		}
		for k := range f {
			f[k] = strings.TrimSpace(f[k])
		}
		if len(f) != c.N {
			return nil, fmt.Errorf("model: %s:%d: %d fields, want %d (set the columns, e.g. user,item,rating or user,item,_)", name, line, len(f), c.N)
		}
		if len(out) == 0 && isHeader(f, c) {
			continue
		}
		p := Pair{User: f[c.User], Item: f[c.Item], Line: line, Rating: math.NaN()}
		if p.User == "" || p.Item == "" {
			return nil, fmt.Errorf("model: %s:%d: empty user or item ID", name, line)
		}
		if c.Rating >= 0 {
			x, err := parseRating(f[c.Rating])
			if err != nil {
				return nil, fmt.Errorf("model: %s:%d: rating %q: %w", name, line, f[c.Rating], err)
			}
			p.Rating = x
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("model: %s:%d: line longer than %d bytes", name, line+1, maxLine)
		}
		return nil, fmt.Errorf("model: %s: %w", name, err)
	}
	return out, nil
}

// isHeader reports whether fields name the columns (user, item, rating).
func isHeader(f []string, c Columns) bool {
	if !strings.EqualFold(f[c.User], "user") && !strings.EqualFold(f[c.User], "user_id") && !strings.EqualFold(f[c.User], "userId") {
		return false
	}
	return strings.HasPrefix(strings.ToLower(f[c.Item]), "item") || strings.HasPrefix(strings.ToLower(f[c.Item]), "movie")
}

// parseRating parses a finite decimal number ("4", "3.5", "4e0").
func parseRating(s string) (float64, error) {
	for _, ch := range s {
		if !strings.ContainsRune("0123456789+-.eE", ch) {
			return 0, errors.New("want a decimal number")
		}
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
		return 0, errors.New("want a finite decimal number")
	}
	return x, nil
}

// Histories groups rated pairs by user, in file order: each user's own
// ratings, for FoldIn. A user rating the same item twice is an error
// naming both lines.
func Histories(pairs []Pair, name string) (map[string]History, error) {
	h := make(map[string]History)
	seen := make(map[[2]string]int)
	for _, p := range pairs {
		if math.IsNaN(p.Rating) {
			return nil, fmt.Errorf("model: %s:%d: a history needs a rating column", name, p.Line)
		}
		k := [2]string{p.User, p.Item}
		if l, dup := seen[k]; dup {
			return nil, fmt.Errorf("model: %s:%d: user %s rated item %s already on line %d", name, p.Line, p.User, p.Item, l)
		}
		seen[k] = p.Line
		u := h[p.User]
		u.Items, u.Ratings = append(u.Items, p.Item), append(u.Ratings, p.Rating)
		h[p.User] = u
	}
	return h, nil
}

// LoadPairs reads the pairs file at path (see ReadPairs).
func LoadPairs(path string, c Columns) ([]Pair, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	defer f.Close()
	return ReadPairs(f, path, c)
}

// LoadHistories reads a ratings file of one or more users (columns c,
// which must include a rating) and groups it by user (see Histories).
func LoadHistories(path string, c Columns) (map[string]History, error) {
	if !c.HasRating() {
		return nil, fmt.Errorf("model: %s: a history needs a rating column", path)
	}
	p, err := LoadPairs(path, c)
	if err != nil {
		return nil, err
	}
	return Histories(p, path)
}
