package userdp

import (
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/dpmc/dpmc/ratings"
)

// WriteUsers writes each user's locally computed bias and factor (as
// FoldInAll computes them from train) as JSON lines
// {"user": ID, "bias": b, "factor": [...]} (with feature columns, the
// factor's last len(Result.Features) entries are the user's coefficients
// on them, in that order). In the billboard model each
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
