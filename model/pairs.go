package model

import (
	"context"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/dpmc/dpmc/ratings"
)

// Pair is one record of a pairs file: a user ID, an item ID and, if the
// file has ratings, the rating.
type Pair struct {
	User, Item string
	// Rating is the rating in rating units, NaN if the file has none.
	Rating float64
	// Line is the pair's 1-based line number in its file (of its first
	// occurrence, if repeated pairs were averaged).
	Line int
}

// PairsInfo says how ReadPairs read a pairs file: as package ratings
// scanned it, and how many repeated pairs it averaged.
type PairsInfo struct {
	ratings.ScanInfo
	// Averaged is the number of (user, item) pairs that occurred on more
	// than one line and were kept once with their mean rating (SweetRS,
	// or opts.Duplicates DuplicatesAverage); Merged the records folded
	// away by that.
	Averaged, Merged int
}

// ReadPairs reads a pairs file from r, named name in errors: a ratings
// file of any format that dpmc train reads, parsed by package ratings
// exactly as train parses it (ratings.Scan: the same format detection,
// csv quoting, header rule, opts.Columns, rating syntax and range
// opts.Min, opts.Max), or a list of (user, item) pairs without ratings
// (opts.Columns without "rating", or csv/tsv lines of two fields). A
// (user, item) pair occurring twice is an error naming both lines and
// the IDs, before anything is returned, unless the format averages
// repeated pairs (SweetRS, or opts.Duplicates): then it is kept once,
// at its first line, with its mean rating (a file declared
// ratings.FormatPairs keeps a repeated pair once). A file without a pair is an
// error (wrapping ratings.ErrNoRatings); so is a cancelled ctx, looked at
// every 1024 records. Errors name the file and line.
func ReadPairs(ctx context.Context, r io.Reader, name string, opts ratings.Options) ([]Pair, PairsInfo, error) {
	var out []Pair
	seen := pairSet{seed: maphash.MakeSeed(), first: make(map[uint64]int)}
	count := map[int]int{} // index in out → records of a repeated pair
	dupAt, dupOf := 0, -1  // the first line repeating a pair, and the pair
	si, err := ratings.Scan(ctx, r, name, opts, func(rec ratings.Record) error {
		at, dup := seen.add(out, rec.User, rec.Item, len(out))
		if !dup {
			out = append(out, Pair{User: rec.User, Item: rec.Item, Rating: rec.Rating, Line: rec.Line})
			return nil
		}
		if math.IsNaN(rec.Rating) {
			if opts.Format != ratings.FormatPairs || opts.Duplicates == ratings.DuplicatesError {
				return fmt.Errorf("%s:%d: %w: user %s, item %s already listed on line %d", name, rec.Line, ratings.ErrDuplicate, strconv.Quote(rec.User), strconv.Quote(rec.Item), out[at].Line)
			}
			return nil // a declared pairs file: counted once
		}
		if dupOf < 0 {
			dupAt, dupOf = rec.Line, at
		}
		if count[at] == 0 {
			count[at] = 1
		}
		count[at]++
		out[at].Rating += rec.Rating
		return nil
	})
	if err != nil {
		return nil, PairsInfo{}, fmt.Errorf("model: %w", err)
	}
	info := PairsInfo{ScanInfo: si}
	if dupOf >= 0 && si.Duplicates != ratings.DuplicatesAverage {
		p := out[dupOf]
		return nil, info, fmt.Errorf("model: %s:%d: %w: user %s, item %s already rated on line %d",
			name, dupAt, ratings.ErrDuplicate, strconv.Quote(p.User), strconv.Quote(p.Item), p.Line)
	}
	for k, n := range count {
		info.Averaged++
		info.Merged += n - 1
		out[k].Rating /= float64(n)
	}
	return out, info, nil
}

// pairSet finds repeated (user, item) pairs: by a 64-bit hash of the
// pair, with the pairs whose hash an earlier different pair has (rare)
// kept by value.
type pairSet struct {
	seed    maphash.Seed
	first   map[uint64]int    // hash → index of the first pair with it
	collide map[[2]string]int // pairs whose hash an earlier pair has
}

// add returns the index of the earlier pair (user, item) in out and true,
// or records it as index k and returns false.
func (s *pairSet) add(out []Pair, user, item string, k int) (int, bool) {
	var h maphash.Hash
	h.SetSeed(s.seed)
	h.WriteString(user)
	h.WriteByte(0)
	h.WriteString(item)
	key := h.Sum64()
	at, ok := s.first[key]
	switch {
	case !ok:
		s.first[key] = k
		return 0, false
	case out[at].User == user && out[at].Item == item:
		return at, true
	}
	pair := [2]string{user, item}
	if at, ok := s.collide[pair]; ok {
		return at, true
	}
	if s.collide == nil {
		s.collide = make(map[[2]string]int)
	}
	s.collide[pair] = k
	return 0, false
}

// Histories are users' own ratings, grouped by user.
type Histories struct {
	// ByUser holds each user's ratings: in file order from
	// GroupHistories, in the order dpmc train holds them (by item, items
	// in order of first appearance) from LoadHistories.
	ByUser map[string]History
	// Users and Items are the users and the items rated, in order of
	// first appearance in the file (the order dpmc train gives the rows
	// and columns of the same file).
	Users, Items []string
}

// GroupHistories groups rated pairs (from ReadPairs: no pair repeated)
// by user. Pairs without a rating are an error naming the line.
func GroupHistories(pairs []Pair, name string) (Histories, error) {
	h := Histories{ByUser: make(map[string]History)}
	items := make(map[string]bool)
	for _, p := range pairs {
		if math.IsNaN(p.Rating) {
			return Histories{}, fmt.Errorf("model: %s:%d: a history needs ratings", name, p.Line)
		}
		u, ok := h.ByUser[p.User]
		if !ok {
			h.Users = append(h.Users, p.User)
		}
		if !items[p.Item] {
			items[p.Item] = true
			h.Items = append(h.Items, p.Item)
		}
		u.Items, u.Ratings = append(u.Items, p.Item), append(u.Ratings, p.Rating)
		h.ByUser[p.User] = u
	}
	return h, nil
}

// LoadPairs reads the pairs file at path (see ReadPairs).
func LoadPairs(ctx context.Context, path string, opts ratings.Options) ([]Pair, PairsInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, PairsInfo{}, fmt.Errorf("model: %w", err)
	}
	defer f.Close()
	return ReadPairs(ctx, f, path, opts)
}

// LoadHistories reads a ratings file of one or more users, with package
// ratings' loader exactly as dpmc train reads its data (ratings.Load:
// the same formats, checks, errors naming file and line, and repeated
// pairs refused or, for SweetRS or opts.Duplicates, averaged), and
// groups it by user. It must have ratings, or be implicit feedback
// (ratings.FormatPairs: a list of the user's items, each listed once),
// whose histories have NaN ratings and info.Rated false: a ranking model
// ranks from the items alone, a rating model (FoldIn) refuses them. It holds what training holds
// and then 24 bytes a rating for the Histories, whose ID strings share
// the loader's storage: some 50 bytes a rating at its peak, where reading
// pairs and grouping them (ReadPairs, GroupHistories) took some 200. ctx
// is looked at while the file is read.
func LoadHistories(ctx context.Context, path string, opts ratings.Options) (Histories, PairsInfo, error) {
	if opts.Columns != "" && !slices.Contains(strings.Split(strings.ReplaceAll(opts.Columns, " ", ""), ","), "rating") {
		return Histories{}, PairsInfo{}, fmt.Errorf("model: %s: a history needs ratings (name a rating column, e.g. --history-columns user,item,rating)", path)
	}
	d, err := ratings.LoadContext(ctx, path, opts)
	if err != nil {
		return Histories{}, PairsInfo{}, fmt.Errorf("model: %w", err)
	}
	info := PairsInfo{ScanInfo: ratings.ScanInfo{Format: d.Format, FormatReason: d.FormatReason, Min: d.Min, Max: d.Max,
		Duplicates: opts.Duplicates, Rated: !d.Implicit, Stats: d.Stats}, Averaged: d.Stats.Averaged, Merged: d.Stats.Merged}
	info.Stats.Averaged, info.Stats.Merged = 0, 0 // as Scan reports them: PairsInfo has them
	if info.Duplicates == ratings.DuplicatesDefault {
		info.Duplicates = ratings.DuplicatesError
		if d.Format == ratings.FormatSweetRS || d.Implicit {
			info.Duplicates = ratings.DuplicatesAverage
		}
	}
	h := histories(d)
	if d.Implicit {
		for _, u := range h.ByUser {
			for k := range u.Ratings {
				u.Ratings[k] = math.NaN()
			}
		}
	}
	return h, info, nil
}

// histories groups d's ratings by user: one backing array of item IDs
// and one of ratings for all users, each user's History a slice of them.
func histories(d *ratings.Dataset) Histories {
	nu, ni := d.Users.Len(), d.Items.Len()
	h := Histories{ByUser: make(map[string]History, nu), Users: make([]string, nu), Items: make([]string, ni)}
	for i := range nu {
		h.Users[i] = d.Users.ID(i)
	}
	for j := range ni {
		h.Items[j] = d.Items.ID(j)
	}
	n := d.Ratings.Len()
	items, vals := make([]string, n), make([]float64, n)
	p := 0
	for i, id := range h.Users {
		cols, vs := d.Ratings.Row(i)
		a := p
		for _, j := range cols {
			items[p] = h.Items[j]
			p++
		}
		vs.CopyTo(vals[a:p])
		h.ByUser[id] = History{Items: items[a:p:p], Ratings: vals[a:p:p]}
	}
	return h
}
