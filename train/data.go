package train

import (
	"errors"
	"fmt"
	"math/rand/v2"

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

// Load reads the files of f (package ratings: every error names the file
// and line) and describes them, with the loader's counts of dropped and
// averaged entries.
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
		Train: train.Ratings, Users: train.Users, Items: train.Items, Min: train.Min, Max: train.Max,
	}
	if loaded.Zeros > 0 || loaded.Averaged > 0 {
		d.Describe += fmt.Sprintf(" (file: %d 'not rated' zeros dropped, %d duplicate pairs averaged)", loaded.Zeros, loaded.Averaged)
	}
	if test != nil {
		d.Test = test.Ratings
		d.Describe += fmt.Sprintf(", %d test ratings", test.Ratings.Len())
		if test.Stats.Cold > 0 {
			d.Describe += fmt.Sprintf(" (%d dropped: user or item unseen in training)", test.Stats.Cold)
		}
	}
	return d, nil
}
