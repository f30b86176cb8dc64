package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/dpmc/dpmc/internal/dense"
	"github.com/dpmc/dpmc/metrics"
	"github.com/dpmc/dpmc/userdp"
)

// Kind says which training mode produced a model, and so what it holds.
type Kind string

const (
	// UserLevel is a model of dpmc train --privacy user: the release
	// alone (item IDs, item biases, item factors V, noisy counts, the
	// global centre and the fold-in ridges). It holds nothing per user; a
	// user's bias and factor come from FoldIn on the user's own ratings.
	UserLevel Kind = "user"
	// Paper is a model of dpmc train --privacy paper: user IDs and user
	// factors U beside the item IDs and V. It carries no proved privacy
	// guarantee (see its privacy report).
	Paper Kind = "paper"
)

// FoldInRidges are the ridge penalties with which a user of a
// user-level model fits the user's own bias b and factor u: they minimize
//
//	Σ_j (x_j − Mu − ItemBias[j] − b − uᵀv_j)² + (UserLambda + UserLambdaPerRating·n)·‖u‖² + UserBiasLambda·b²
//
// over the user's n ratings (clipped to the rating range), an item not in
// the model counting with bias TailBias and factor 0 — or, in a model with
// tail buckets, with its bucket's bias and feature columns.
type FoldInRidges struct {
	UserLambda          float64 `json:"user_lambda"`
	UserLambdaPerRating float64 `json:"user_lambda_per_rating"`
	UserBiasLambda      float64 `json:"user_bias_lambda"`
}

// Model is a trained recommender as dpmc saves it. Prediction for a user
// with bias b and factor u (a User) and item j is
//
//	Mu + ItemBias[j] + b + uᵀv_j
//
// in rating units, not clipped (Clip clips). The zero value is not
// usable; build one with FromUserLevel, FromSolver or Load. A Model must
// not be changed after first use; it is then safe for concurrent use.
type Model struct {
	// Kind is UserLevel or Paper.
	Kind Kind
	// Min and Max are the public rating range.
	Min, Max float64
	// Mu is the global centre added to every prediction, in rating units
	// (the released noisy or public centre of a user-level model; the
	// solver's offset, usually 0, of a paper model).
	Mu float64
	// Rank is the number of factors per item and user (0: biases only),
	// the feature columns included.
	Rank int
	// Features names, for a user-level model, the last len(Features)
	// columns of V, in order: not learned factors but public functions of
	// the released counts and biases (userdp.FeaturePopularity,
	// userdp.FeatureItemBias; userdp.Result.Features). A user's fold-in
	// fits their coefficients like a factor's.
	Features []string
	// ItemIDs are the item IDs; row j of V and ItemBias[j] belong to
	// ItemIDs[j]. Unique and non-empty, without a control character (no
	// tab or line break).
	ItemIDs []string
	// ItemBias holds one bias per item in rating units (all zero for a
	// paper model).
	ItemBias []float64
	// V holds the item factors, len(ItemIDs)·Rank, row-major.
	V []float64
	// TailBias is a user-level model's released bias of every item not in
	// ItemIDs, in rating units: under private item selection the unreleased
	// items are the unpopular ones, rated below the centre (0 with a public
	// catalogue and in a paper model).
	TailBias float64
	// BucketBias and BucketV are a user-level rating model's released
	// tail buckets (nil without them; userdp.TailBucket): an item not in
	// ItemIDs is predicted with the bias BucketBias[b] of its bucket b
	// instead of TailBias, and its factor row is zero learned factors and
	// the bucket's feature columns, BucketV[b·len(Features):
	// (b+1)·len(Features)].
	BucketBias, BucketV []float64
	// Counts holds a user-level model's released noisy weighted item
	// counts (nil for a paper model); informative only, not used to
	// predict.
	Counts []float64
	// UserIDs and U are the users and their factors (len(UserIDs)·Rank,
	// row-major) of a paper model; nil for a user-level model.
	UserIDs []string
	U       []float64
	// Mean is a paper model's mean training rating, its prediction for an
	// unknown user or item (a paper model has no biases and its Mu is the
	// solver's offset, usually 0); 0 in a user-level model, whose
	// fallbacks use Mu and the biases.
	Mean float64
	// Ridges is how a user of a user-level model folds in (nil for a
	// paper model).
	Ridges *FoldInRidges
	// Settings are the training settings as a JSON object (may be nil).
	Settings json.RawMessage
	// Privacy is the training run's privacy report as a JSON object
	// (userdp.Report or privacy.Report; nil for a run without noise).
	Privacy json.RawMessage
	// Released says in words what the file is and what guarantee covers
	// it.
	Released string
	// Ranking is a ranking model's ranking part (dpmc train --objective
	// ranking), nil otherwise; such a model has no rating part (see
	// Ranking, HasRatings).
	Ranking *Ranking

	rankOnce sync.Once
	headRow  []int32 // item → row of Ranking.V, or −1 (headRows)

	once             sync.Once
	itemIdx, userIdx map[string]int
	// indexed is set once itemIdx and userIdx are built, for check.
	indexed atomic.Bool
	// itemsChecked is Read's index of ItemIDs, for check.
	itemsChecked map[string]int
	// floatsChecked says that Read has checked every array is finite.
	floatsChecked bool
	// version is the format version the model was read from (0: not read).
	version int
}

// FileVersion returns the format version of the file m was read from (2
// or 3), or 0 for a model not read from a file. A version-2 file has no
// checksum over its header: a caller may suggest saving it again (Load,
// then Save), which writes the current Version.
func (m *Model) FileVersion() int { return m.version }

// User is one user's part of a prediction: a bias and a factor of Rank
// entries, in rating units.
type User struct {
	Bias   float64
	Factor []float64
}

// ErrNoUsers is returned when a per-user lookup is asked of a model
// without users (a user-level model).
var ErrNoUsers = errors.New("model: the model holds no users (a user-level model: fold in the user's own ratings with FoldIn)")

// ErrNoFoldIn is returned by FoldIn for a paper model.
var ErrNoFoldIn = errors.New("model: a paper model has no fold-in rule (its users are in the model)")

func (m *Model) index() {
	m.once.Do(func() {
		m.itemIdx = make(map[string]int, len(m.ItemIDs))
		for j, id := range m.ItemIDs {
			m.itemIdx[id] = j
		}
		m.userIdx = make(map[string]int, len(m.UserIDs))
		for i, id := range m.UserIDs {
			m.userIdx[id] = i
		}
		m.indexed.Store(true)
	})
}

// Item returns the index of the item with the given ID.
func (m *Model) Item(id string) (int, bool) {
	m.index()
	j, ok := m.itemIdx[id]
	return j, ok
}

// UserIndex returns the index of the user with the given ID in a paper
// model (always false for a user-level model).
func (m *Model) UserIndex(id string) (int, bool) {
	m.index()
	i, ok := m.userIdx[id]
	return i, ok
}

// UserAt returns user i of a paper model (bias 0, the factor aliases U).
func (m *Model) UserAt(i int) (User, error) {
	if m.U == nil {
		return User{}, ErrNoUsers
	}
	if i < 0 || i >= len(m.UserIDs) {
		return User{}, fmt.Errorf("model: user index %d out of range [0, %d)", i, len(m.UserIDs))
	}
	return User{Factor: m.U[i*m.Rank : (i+1)*m.Rank]}, nil
}

// ItemFactor returns item j's factor row; it aliases V.
func (m *Model) ItemFactor(j int) []float64 { return m.V[j*m.Rank : (j+1)*m.Rank] }

// Predict returns the unclipped prediction Mu + ItemBias[j] + u.Bias +
// u.Factorᵀv_j for item index j.
func (m *Model) Predict(u User, j int) float64 {
	return m.Mu + m.ItemBias[j] + u.Bias + dense.Dot(u.Factor, m.ItemFactor(j))
}

// TailIndex returns the index that Fallback and FallbackItem take for an
// item not in the model with ID id: −2 − its tail bucket
// (userdp.TailBucket) when the model has tail buckets, else −1 (which
// always means the tail bias alone).
func (m *Model) TailIndex(id string) int {
	if len(m.BucketBias) == 0 {
		return -1
	}
	return -2 - userdp.TailBucket(id, len(m.BucketBias))
}

// Fallback returns the prediction for an unknown user and item j (Mu +
// ItemBias[j]), or for an item not in the model (j < 0, its TailIndex:
// Mu + its tail bucket's bias; Mu + TailBias for j = −1); for a paper
// model, Mean in every case.
func (m *Model) Fallback(j int) float64 {
	switch {
	case m.Kind == Paper:
		return m.Mean
	case j < -1 && len(m.BucketBias) > 0:
		return m.Mu + m.BucketBias[-2-j]
	case j < 0:
		return m.Mu + m.TailBias
	}
	return m.Mu + m.ItemBias[j]
}

// FallbackItem returns the prediction for a known user u and the item
// of TailIndex j < 0, which is not in the model: Mu + TailBias + u.Bias
// for j = −1 or without tail buckets; for a bucket's index Mu + the
// bucket's bias + u.Bias + the user's feature coefficients times the
// bucket's feature columns (userdp.Result.ScoreTail). Mean for a paper
// model.
func (m *Model) FallbackItem(u User, j int) float64 {
	if m.Kind == Paper {
		return m.Mean
	}
	if j >= -1 || len(m.BucketBias) == 0 {
		return m.Mu + m.TailBias + u.Bias
	}
	return m.release().ScoreTail(int32(j), u.Factor, u.Bias)
}

// Clip returns x clipped to the rating range [Min, Max].
func (m *Model) Clip(x float64) float64 { return math.Min(math.Max(x, m.Min), m.Max) }

// History is one user's own ratings: parallel item IDs and ratings.
type History struct {
	Items   []string
	Ratings []float64
}

// FoldIn computes a user's bias and factor from a user-level model and
// the user's own ratings, exactly as dpmc train does for its evaluation
// (userdp.Result.FoldIn): ratings are clipped to the rating range, and a
// rating of an item not in the model counts with item bias TailBias and
// factor 0, or with its tail bucket's bias and feature columns. unknown is the number of such ratings. Nothing leaves the call: in
// the billboard model this runs on the user's side.
func (m *Model) FoldIn(h History) (u User, unknown int, err error) {
	if m.Ridges == nil {
		return User{}, 0, ErrNoFoldIn
	}
	if !m.HasRatings() {
		return User{}, 0, ErrNoRatings
	}
	if len(h.Items) != len(h.Ratings) {
		return User{}, 0, fmt.Errorf("model: fold-in: %d items but %d ratings", len(h.Items), len(h.Ratings))
	}
	items := make([]int32, len(h.Items))
	for p, id := range h.Items {
		x := h.Ratings[p]
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return User{}, 0, fmt.Errorf("model: fold-in: rating %v of item %s is not a finite number", x, id)
		}
		j, ok := m.Item(id)
		if !ok {
			j = m.TailIndex(id)
			unknown++
		}
		items[p] = int32(j)
	}
	f, b := m.release().FoldIn(items, h.Ratings)
	return User{Bias: b, Factor: f}, unknown, nil
}

// release returns the model's user-level part in userdp's form (aliasing
// the model), for FoldIn.
func (m *Model) release() *userdp.Result {
	return &userdp.Result{
		Rank: m.Rank, Features: m.Features, Mu: m.Mu, ItemIDs: m.ItemIDs, ItemBias: m.ItemBias, TailBias: m.TailBias, V: m.V, Counts: m.Counts,
		BucketBias: m.BucketBias, BucketV: m.BucketV, Min: m.Min, Max: m.Max,
		UserLambda: m.Ridges.UserLambda, UserBiasLambda: m.Ridges.UserBiasLambda, UserLambdaPerRating: m.Ridges.UserLambdaPerRating,
	}
}

// Scored is one recommended item.
type Scored struct {
	// Item is the item's index and ID the item's ID.
	Item int    `json:"-"`
	ID   string `json:"item"`
	// Score is the unclipped prediction, in rating units.
	Score float64 `json:"score"`
}

// Recommend returns the k items with the highest predictions for user u,
// best first, skipping every item for which exclude returns true (nil
// excludes nothing). Ties are broken by the lower item index, so the
// result is deterministic. Fewer than k items are returned when fewer are
// left.
func (m *Model) Recommend(u User, k int, exclude func(j int) bool) []Scored {
	top := metrics.TopK(len(m.ItemIDs), k, func(j int) float64 { return m.Predict(u, j) }, exclude)
	out := make([]Scored, len(top))
	for p, s := range top {
		out[p] = Scored{Item: s.Item, ID: m.ItemIDs[s.Item], Score: s.Score}
	}
	return out
}
