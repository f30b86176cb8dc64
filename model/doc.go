// Package model is dpmc's trained recommender as a file and as a value:
// saving and loading (format "dpmc-model" version 3, specified in
// docs/model-format.md, with a checksum over the whole file; version 2
// files are still read), prediction, fold-in of a user from the user's own
// ratings, top-k recommendation, and batch prediction of (user, item)
// pairs read from a file.
//
// # Kinds
//
// A UserLevel model (dpmc train --privacy user) is the release of package
// userdp and nothing else: item IDs, item biases, item factors V, noisy
// counts, the global centre μ, the fold-in ridges, the settings and the
// privacy report. It holds nothing per user. A user's bias and factor are
// computed by FoldIn from the model and that user's own ratings (the
// billboard model), with exactly the code userdp evaluates with.
//
// A Paper model (dpmc train --privacy paper) also holds every user's ID and
// factor, and carries no proved privacy guarantee.
//
// # Use
//
//	m, err := model.Load("model.dpmc")
//	u, _, err := m.FoldIn(model.History{Items: []string{"1", "50"}, Ratings: []float64{5, 3}})
//	top := m.Recommend(u, 10, nil)   // best first, ties by item order
//	j, _ := m.Item("172")
//	x := m.Clip(m.Predict(u, j))     // μ + b_j + b_u + uᵀv_j, clipped
//
// # Pairs files
//
// LoadPairs and LoadHistories read files of (user, item) pairs and users'
// own ratings through package ratings (ratings.Scan and, for histories,
// the compact loader train uses): exactly as dpmc train reads its data,
// in any of its formats, plus lists of pairs without ratings. Give them the model's rating range (Min, Max in
// ratings.Options) so that a rating outside it is refused. A pair listed
// twice is an error naming both lines unless the format averages repeated
// pairs (SweetRS). PredictPairs scores pairs; EvaluatePairs measures rated
// ones, its ranking metrics computed as dpmc train computes them for its
// test set when the histories are the training file. All three take a
// context and stop soon after it is done.
//
// Load returns errors wrapping ErrVersion (another format version, e.g.
// the JSON files of older dpmc versions) or ErrCorrupt (truncated,
// trailing bytes, checksum mismatch, inconsistent content). It reads a
// pipe or FIFO as a stream and refuses a directory as such.
//
// # Performance
//
// The arrays are little-endian float64 read straight into memory; a model
// of 10⁶ items × 64 factors (530 MB) loads in 0.55–1.1 s wall time on the
// shared 2-core development machine (BenchmarkLoad; the item index is
// built while the arrays are read).
package model
