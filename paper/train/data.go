package train

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime/debug"

	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/synthetic"
)

// Synthetic generates the paper's synthetic problem (package synthetic)
// as training data; the run then reports the full RMSE against the truth.
func Synthetic(o synthetic.Options) (*Data, error) {
	p, err := synthetic.Generate(o)
	if err != nil {
		return nil, err
	}
	return &Data{
		Describe: fmt.Sprintf("synthetic %d × %d, rank %d, %.3g %% observed (%d ratings), data seed %d",
			o.Rows, o.Cols, o.Rank, 100*o.Observed, p.Observed.Len(), o.Seed),
		Train: p.Observed, Min: synthetic.Min, Max: synthetic.Max, Problem: p, SyntheticSeed: o.Seed,
	}, nil
}

// Files names the ratings files of a run.
type Files struct {
	// Train is the training file; Test the held-out file (same format;
	// "" for none).
	Train, Test string
	// TestFraction, if not 0, holds out this fraction of Train's ratings,
	// chosen with Rand (only without Test).
	TestFraction float64
	Rand         *rand.Rand
	// Ratings are the loader's options (format, columns, header, range).
	Ratings ratings.Options
}

// CheckReadable returns an error unless path names a regular file that
// can be opened for reading, so that a missing or unreadable file is
// reported before any long work (such as loading another, large file).
func CheckReadable(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("train: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("train: %w", err)
	}
	if st.IsDir() {
		return fmt.Errorf("train: %s is a directory, want a ratings file", path)
	}
	return nil
}

// Load reads the files of f (package ratings: every error names the file
// and line) and describes them, with the loader's counts of dropped and
// averaged entries. It returns the memory the loader no longer needs to
// the operating system (debug.FreeOSMemory, a garbage collection) before
// it returns.
func Load(f Files) (*Data, error) {
	if f.Test != "" && f.TestFraction != 0 {
		return nil, errors.New("train: a test file and a test fraction, want one")
	}
	var train, test *ratings.Dataset
	var err error
	switch {
	case f.Test != "":
		if train, test, err = ratings.LoadPair(f.Train, f.Test, f.Ratings); err != nil {
			return nil, err
		}
	default:
		if train, err = ratings.Load(f.Train, f.Ratings); err != nil {
			return nil, err
		}
	}
	// The loader's scratch (its records, 8 bytes a line) is garbage now,
	// in pieces that the factors, allocated next, cannot reuse: hand it
	// back, so that a run's peak memory is the larger of the load's and
	// the training's, not their sum.
	debug.FreeOSMemory()
	loaded := train.Stats // of the file, before any split
	if f.TestFraction != 0 {
		if !(f.TestFraction > 0 && f.TestFraction < 1) {
			return nil, fmt.Errorf("train: test fraction %v, want in (0, 1)", f.TestFraction)
		}
		if train, test, err = ratings.Split(train, f.TestFraction, f.Rand); err != nil {
			return nil, err
		}
	}
	if train.Ratings.Len() == 0 {
		return nil, fmt.Errorf("train: %s: no training ratings", f.Train)
	}
	d := &Data{
		Describe: fmt.Sprintf("%s (format %s: %s, ratings in [%g, %g]), %d users × %d items, %d training ratings",
			train.Source, train.Format, train.FormatReason, train.Min, train.Max, train.Ratings.Rows(), train.Ratings.Cols(), train.Ratings.Len()),
		Train: train.Ratings, Users: train.Users, Items: train.Items, Min: train.Min, Max: train.Max, Implicit: train.Implicit,
	}
	if loaded.Zeros > 0 || loaded.Averaged > 0 {
		d.Describe += fmt.Sprintf(" (file: %d 'not rated' zeros dropped, %d duplicate pairs averaged)", loaded.Zeros, loaded.Averaged)
	}
	if test != nil {
		d.Test = test.Ratings
		d.Overlap = ratings.Overlap(train.Ratings, test.Ratings)
		d.Describe += fmt.Sprintf(", %d test ratings", test.Ratings.Len())
		if test.Stats.Cold > 0 {
			d.Describe += fmt.Sprintf(" (%d dropped: user or item unseen in training)", test.Stats.Cold)
		}
	}
	return d, nil
}

// Realistic generates the MovieLens-1M-shaped synthetic data set
// (synthetic.DefaultRealistic) of the given number of users, its seed
// drawn from r, and holds out the fraction frac of its ratings (chosen
// with r) as the test set.
func Realistic(users int, frac float64, r *rand.Rand) (tr, te *ratings.Dataset, describe string, err error) {
	seed := r.Uint64() >> 1
	g := synthetic.DefaultRealistic(users, seed)
	d, err := g.Generate()
	if err != nil {
		return nil, nil, "", err
	}
	if tr, te, err = ratings.Split(d, frac, r); err != nil {
		return nil, nil, "", err
	}
	describe = fmt.Sprintf("synthetic realistic (MovieLens-1M-shaped) %d users × %d items, rank %d, data seed %d, %d training and %d test ratings",
		g.Users, g.Items, g.Rank, seed, tr.Ratings.Len(), te.Ratings.Len())
	return tr, te, describe, nil
}

// Datasets returns d's matrices with their external IDs (numbered from 1
// for synthetic data), as package userdp wants them.
func (d *Data) Datasets() (tr, te *ratings.Dataset) {
	users, items := d.Users, d.Items
	if users == nil {
		users = ratings.NumberedIDs(d.Train.Rows(), 1)
	}
	if items == nil {
		items = ratings.NumberedIDs(d.Train.Cols(), 1)
	}
	tr = &ratings.Dataset{Ratings: d.Train, Users: users, Items: items, Min: d.Min, Max: d.Max, Implicit: d.Implicit}
	if d.Test != nil {
		te = &ratings.Dataset{Ratings: d.Test, Users: users, Items: items, Min: d.Min, Max: d.Max, Implicit: d.Implicit}
	}
	return tr, te
}
