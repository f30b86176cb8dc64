package userdp

import (
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/dpmc/dpmc/ratings"
)

// ReleaseFormat names the file WriteRelease writes.
//
// Deprecated: dpmc writes models with package model (format dpmc-model
// version 2); model.FromUserLevel turns a Result into one.
const ReleaseFormat = "dpmc-release-v1"

// release is the JSON form of a Result: exactly what Train released and
// its privacy report, nothing per user.
type release struct {
	Format  string  `json:"format"`
	Mode    string  `json:"mode"`
	Private string  `json:"private"`
	Rank    int     `json:"rank"`
	Min     float64 `json:"min"`
	Max     float64 `json:"max"`
	Mu      float64 `json:"mu"`
	// FoldIn says how a user computes their own bias and factor.
	FoldIn struct {
		UserLambda          float64 `json:"user_lambda"`
		UserLambdaPerRating float64 `json:"user_lambda_per_rating"`
		UserBiasLambda      float64 `json:"user_bias_lambda"`
		Rule                string  `json:"rule"`
	} `json:"fold_in"`
	Items    []string    `json:"items"`
	ItemBias []float64   `json:"item_bias"`
	Counts   []float64   `json:"noisy_counts"`
	V        [][]float64 `json:"v"`
	Privacy  *Report     `json:"privacy"`
}

// Deprecated: use model.FromUserLevel and Model.Save (format dpmc-model
// version 2, which dpmc predict and recommend read).
//
// WriteRelease writes the release as one JSON object (format
// ReleaseFormat): the rating range, μ, the item IDs, item biases, noisy
// counts and factors, the fold-in ridges and the privacy report. It holds
// nothing per user — no user ID, factor, bias or count — so the file is
// exactly what the privacy report covers. (The report's
// evaluation-only section holds only the count of ratings dropped outside
// a catalogue; Summary holds the rest and is not written here.)
func (res *Result) WriteRelease(w io.Writer) error {
	var r release
	r.Format, r.Mode, r.Rank, r.Min, r.Max, r.Mu = ReleaseFormat, "user", res.Rank, res.Min, res.Max, res.Mu
	r.Private = "the whole file, at the privacy report's total (unseeded runs only)"
	if res.Report.NoNoise {
		r.Private = "nothing: trained without noise (a non-private baseline)"
	}
	r.FoldIn.UserLambda, r.FoldIn.UserLambdaPerRating, r.FoldIn.UserBiasLambda = res.UserLambda, res.UserLambdaPerRating, res.UserBiasLambda
	r.FoldIn.Rule = "a user's bias b and factor u minimize Σ (x − mu − item_bias[j] − b − u·v[j])² + (user_lambda + user_lambda_per_rating·n)·‖u‖² + user_bias_lambda·b² over the user's own n ratings; an item not listed contributes with item_bias 0 and v 0"
	r.Items, r.ItemBias, r.Counts = res.ItemIDs, res.ItemBias, res.Counts
	r.V = make([][]float64, len(res.ItemIDs))
	for j := range r.V {
		r.V[j] = res.V[j*res.Rank : (j+1)*res.Rank]
	}
	r.Privacy = res.Report
	e := json.NewEncoder(w)
	e.SetIndent("", " ")
	return e.Encode(r)
}

// WriteUsers writes each user's locally computed bias and factor (as
// FoldInAll computes them from train) as JSON lines
// {"user": ID, "bias": b, "factor": [...]}. In the billboard model each
// line is that user's own data, computed from the release and the user's
// ratings: it is NOT covered by the release's guarantee and must go only
// to its user.
func (us *Users) WriteUsers(w io.Writer, train *ratings.Dataset) error {
	e := json.NewEncoder(w)
	r := us.res.Rank
	for i := range train.Ratings.Rows() {
		f := us.U[i*r : (i+1)*r]
		if math.IsNaN(us.Bias[i]) {
			return fmt.Errorf("userdp: user %s: bias is NaN", train.Users.ID(i))
		}
		if err := e.Encode(struct {
			User   string    `json:"user"`
			Note   string    `json:"note,omitempty"`
			Bias   float64   `json:"bias"`
			Factor []float64 `json:"factor"`
		}{train.Users.ID(i), map[bool]string{true: "this user's own data: not private, not part of the release"}[i == 0], us.Bias[i], f}); err != nil {
			return err
		}
	}
	return nil
}
