package userdp

import (
	"fmt"
	"math"
)

// Objective says what the user-level pipeline fits.
type Objective int

const (
	// ObjectiveRating releases a rating model (global mean, item biases,
	// item factors): the default, for predicting ratings.
	ObjectiveRating Objective = iota
	// ObjectiveRanking releases a top-k ranking model (Result.Ranking):
	// noisy positive counts and the leading eigenvectors of a noisy
	// co-occurrence Gram over the most popular items. See the package
	// documentation, "The ranking objective".
	ObjectiveRanking
)

var objectiveNames = [...]string{ObjectiveRating: "rating", ObjectiveRanking: "ranking"}

// String returns "rating" or "ranking".
func (o Objective) String() string {
	if o >= 0 && int(o) < len(objectiveNames) {
		return objectiveNames[o]
	}
	return fmt.Sprintf("Objective(%d)", int(o))
}

// ParseObjective parses "rating" or "ranking". It returns an error
// wrapping ErrParam for anything else.
func ParseObjective(s string) (Objective, error) {
	for k, n := range objectiveNames {
		if s == n {
			return Objective(k), nil
		}
	}
	return 0, fmt.Errorf("userdp: %w: objective %q, want rating or ranking", ErrParam, s)
}

// DefaultPositive returns the default positive threshold on the public
// rating range [min, max]: min + 0.75·(max − min), which is 4 on a 1–5
// scale, 7.75 on 1–10 and 0.75 on 0–1. Implicit data (every pair is a
// positive) uses math.Inf(-1) instead.
func DefaultPositive(min, max float64) float64 { return min + 0.75*(max-min) }

// RankingOptions tune the ranking objective (Options.Objective =
// ObjectiveRanking); Defaults sets them, and nothing else reads them.
type RankingOptions struct {
	// CountShare is the fraction of the budget left after the number of
	// users (1 − Shares.Mean, of μ² or ρ) that the positive counts get;
	// the Gram gets the rest. 0 means the rule: 0.2 with a public
	// catalogue, 0.5 under private selection (whose counts also choose
	// the items). In [0, 1]; 1 releases the counts only (noisy
	// popularity).
	CountShare float64 `json:"count_share"`
	// MinHead and MaxHead bound the number M of head items (the Gram's
	// size); HeadScale and HeadPower set the rule inside the bounds:
	// M = round(HeadScale·(ñ/σ_G)^HeadPower), ñ the released number of
	// users and σ_G the Gram's noise. 2 ≤ MinHead ≤ MaxHead;
	// HeadScale > 0; HeadPower ≥ 0. Without noise M = MaxHead.
	MinHead   int     `json:"min_head"`
	MaxHead   int     `json:"max_head"`
	HeadScale float64 `json:"head_scale"`
	HeadPower float64 `json:"head_power"`
	// Components is the largest number k of eigenvectors kept (in
	// [1, MaxComponents]); with noise only those whose eigenvalue is above
	// the noise's bulk edge 2σ_G√M count, without noise exactly
	// min(Components, M).
	Components int `json:"components"`
	// MaxHeadPositives (≥ 1) caps the number m_u of a user's positives
	// in the head that enter the Gram (a uniform random subset beyond),
	// which bounds the Gram's cost by Σ_u m_u²; it does not change Δ₂.
	// Unused without noise.
	MaxHeadPositives int `json:"max_head_positives"`
	// FallbackRatio (≥ 0): under private selection, if ñ/σ_G is below
	// it (σ_G at the CountShare split), the whole budget goes to the
	// counts and the model ranks by noisy popularity; the report says so.
	FallbackRatio float64 `json:"fallback_ratio"`
}

// MaxComponents is the largest RankingOptions.Components.
const MaxComponents = 64

// defaultRanking is Defaults' RankingOptions: the rule measured on
// MovieLens 100k (see the package documentation).
func defaultRanking() RankingOptions {
	return RankingOptions{
		MinHead: 50, MaxHead: 1000, HeadScale: 4.8, HeadPower: 0.6,
		Components: 16, MaxHeadPositives: 256, FallbackRatio: 200,
	}
}

// validateRanking checks Objective, Positive and, for the ranking
// objective, Ranking.
func (o *Options) validateRanking() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("userdp: %w: "+format, append([]any{ErrParam}, args...)...)
	}
	if o.Objective != ObjectiveRating && o.Objective != ObjectiveRanking {
		return bad("objective = %d", int(o.Objective))
	}
	if o.Objective != ObjectiveRanking {
		return nil
	}
	if math.IsNaN(o.Positive) || math.IsInf(o.Positive, 1) {
		return bad("positive threshold = %v, want a rating or -Inf (every pair is a positive)", o.Positive)
	}
	r := o.Ranking
	switch {
	case !(r.CountShare >= 0 && r.CountShare <= 1):
		return bad("ranking count share = %v, want in [0, 1] (0: the rule)", r.CountShare)
	case r.MinHead < 2 || r.MaxHead < r.MinHead:
		return bad("ranking head size bounds [%d, %d], want 2 ≤ min ≤ max", r.MinHead, r.MaxHead)
	case !(r.HeadScale > 0) || math.IsInf(r.HeadScale, 0):
		return bad("ranking head scale = %v, want > 0", r.HeadScale)
	case !(r.HeadPower >= 0) || math.IsInf(r.HeadPower, 0):
		return bad("ranking head power = %v, want ≥ 0", r.HeadPower)
	case r.Components < 1 || r.Components > MaxComponents:
		return bad("ranking components = %d, want in [1, %d]", r.Components, MaxComponents)
	case r.MaxHeadPositives < 1:
		return bad("ranking max head positives = %d, want ≥ 1", r.MaxHeadPositives)
	case !(r.FallbackRatio >= 0) || math.IsInf(r.FallbackRatio, 0):
		return bad("ranking fallback ratio = %v, want ≥ 0", r.FallbackRatio)
	}
	return nil
}

// Ranking is the released top-k ranking model (the ranking objective):
// everything a user needs to rank the released items from the user's own
// history, and nothing per user. Item j is Result.ItemIDs[j]. A user's
// scores (Scores, RankScores) come from this and the user's history
// alone (billboard), so they are joint-DP.
//
// The arrays are plain numbers so that a model file can hold them and
// call RankScores.
type Ranking struct {
	// Counts are the released noisy positive counts c̃_j of the released
	// items, in weighted-count units (each user adds 1/√n to each of the
	// user's n contributed positives): the noisy popularity.
	Counts []float64
	// HeadRow[j] is released item j's row of V, or −1 for an item outside
	// the head. Head rows follow the released order (ascending j).
	HeadRow []int32
	// K is the number of components: the columns of V (0: rank by noisy
	// popularity alone).
	K int
	// V holds the top K eigenvectors of the noisy head Gram, M × K
	// row-major (M the number of head items), orthonormal columns in
	// decreasing order of eigenvalue.
	V []float64
	// Weights are the components' weights w_c ∈ [0, 1] (len K): the
	// estimated squared cosine between each noisy eigenvector and the
	// noiseless one, max(0, 1 − Mσ_G²/θ_c²); 1 without noise.
	Weights []float64
	// Eigenvalues are the top K eigenvalues of the noisy Gram (ω-weighted
	// co-occurrence units), and Edge the noise's bulk edge 2σ_G√M below
	// which an eigenvalue is taken for noise (0 without noise); for
	// reports only.
	Eigenvalues []float64
	Edge        float64
	// Fallback is set when the budget went to the counts alone (too few
	// users for the Gram; see RankingOptions.FallbackRatio).
	Fallback bool
	// Positive is the public positive threshold the model was trained
	// with (Options.Positive; −Inf: implicit data, every pair a
	// positive); for reports and model files.
	Positive float64
}

// Head returns the number M of head items (rows of V).
func (r *Ranking) Head() int {
	if r.K == 0 {
		n := 0
		for _, h := range r.HeadRow {
			if h >= 0 {
				n++
			}
		}
		return n
	}
	return len(r.V) / r.K
}

// UnreleasedScore is the score to give an item that is not in the
// release: below every released item's score (RankScores), above the
// user's own history's −Inf.
const UnreleasedScore = -1.0

// RankScores writes into dst (grown to len(counts)) one user's score of
// every released item and returns it; a higher score ranks first. The
// arguments are Ranking's fields (counts, headRow, v, k, w) and the
// user's history: the released indices of every item the user rated (all
// ratings, not only positives; −1 and repeats are ignored). The order is:
//
//  1. head items, by s_j = Σ_c V_jc·w_c·h_c with h = Vᵀx, x the user's
//     0/1 history over the head (score 3 + atan(s_j)/π ∈ (2.5, 3.5)); a
//     user with no history in the head (or k = 0) gets the head by noisy
//     count instead;
//  2. the other released items, by noisy count (atan(c̃_j)/π + ½ ∈ (0, 1));
//  3. (for the caller) unreleased items, UnreleasedScore;
//  4. the user's own history items, −Inf: exclude them.
//
// It allocates nothing when dst has room and k ≤ MaxComponents, and
// panics if the arrays' lengths disagree.
func RankScores(counts []float64, headRow []int32, v []float64, k int, w []float64, history []int32, dst []float64) []float64 {
	return rankScores(counts, headRow, v, k, w, history, dst, true)
}

// RankScoresKeep is RankScores without step 4: the user's own history
// items keep the score the order gives them (to rank them too).
func RankScoresKeep(counts []float64, headRow []int32, v []float64, k int, w []float64, history []int32, dst []float64) []float64 {
	return rankScores(counts, headRow, v, k, w, history, dst, false)
}

func rankScores(counts []float64, headRow []int32, v []float64, k int, w []float64, history []int32, dst []float64, exclude bool) []float64 {
	n := len(counts)
	if len(headRow) != n || len(w) != k || (k > 0 && len(v)%k != 0) {
		panic("userdp: RankScores: inconsistent ranking arrays")
	}
	if cap(dst) < n {
		dst = make([]float64, n)
	}
	dst = dst[:n]
	var hs [MaxComponents]float64
	var h []float64
	if k <= MaxComponents {
		h = hs[:k]
	} else {
		h = make([]float64, k)
	}
	any := false
	for _, j := range history {
		if j < 0 || int(j) >= n {
			continue
		}
		if r := headRow[j]; r >= 0 && k > 0 {
			row := v[int(r)*k : int(r+1)*k]
			for c, x := range row {
				h[c] += x
			}
			any = true
		}
	}
	// h = Vᵀx counted a repeated history item more than once; callers'
	// histories have distinct items (a rating matrix row), so accept it.
	for c := range h {
		h[c] *= w[c]
	}
	for j, c := range counts {
		pop := math.Atan(c) / math.Pi
		r := headRow[j]
		switch {
		case r < 0:
			dst[j] = pop + 0.5
		case !any:
			dst[j] = 3 + pop
		default:
			row := v[int(r)*k : int(r+1)*k]
			var s float64
			for c, x := range row {
				s += x * h[c]
			}
			dst[j] = 3 + math.Atan(s)/math.Pi
		}
	}
	if !exclude {
		return dst
	}
	for _, j := range history {
		if j >= 0 && int(j) < n {
			dst[j] = math.Inf(-1)
		}
	}
	return dst
}

// Scores is RankScores with r's arrays.
func (r *Ranking) Scores(history []int32, dst []float64) []float64 {
	return RankScores(r.Counts, r.HeadRow, r.V, r.K, r.Weights, history, dst)
}

// Popularity returns the model that ranks by r's noisy counts alone (the
// noisy popularity the release holds): r with no component.
func (r *Ranking) Popularity() *Ranking {
	p := *r
	p.K, p.V, p.Weights, p.Eigenvalues = 0, nil, nil, nil
	return &p
}
