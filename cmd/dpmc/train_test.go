package main

import (
	"encoding/json"
	"fmt"
	"github.com/dpmc/dpmc/model"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// small is a fast synthetic run.
var small = []string{"train", "--rows", "60", "--cols", "50", "--observed", "0.3", "--rank", "3", "--iters", "5", "--irls-iters", "3"}

// smallALS is small with --algo als (which refuses --irls-iters).
var smallALS = []string{"train", "--rows", "60", "--cols", "50", "--observed", "0.3", "--rank", "3", "--iters", "5", "--algo", "als"}

func TestTrainSummary(t *testing.T) {
	out, stderr, code := dpmc(t, append(small, "--seed", "1")...)
	if code != 0 {
		t.Fatal(stderr)
	}
	for _, want := range []string{"synthetic 60 × 50, rank 3", "irls", "huber(α=3, s=1)", "NONE proved", "full RMSE 0.", "time:"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(stderr, "NOT private") {
		t.Errorf("seeded noisy run without warning: %q", stderr)
	}
}

func TestTrainJSON(t *testing.T) {
	out, stderr, code := dpmc(t, append(smallALS, "--seed", "2", "--output-format", "json", "--mechanism", "laplace", "--variance", "2")...)
	if code != 0 {
		t.Fatal(stderr)
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	for _, k := range []string{"algo", "mechanism", "variance", "rank", "lambda", "iters", "irls_iters", "users", "items",
		"train_ratings", "test_ratings", "train_rmse", "test_rmse", "test_mae", "full_rmse", "seconds", "privacy"} {
		if _, ok := res[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	if res["algo"] != "als" || res["mechanism"] != "laplace" || res["variance"] != 2.0 || res["users"] != 60.0 {
		t.Errorf("JSON = %v", res)
	}
	if res["test_rmse"] != nil || res["full_rmse"] == nil {
		t.Errorf("synthetic run: test_rmse %v (want null), full_rmse %v (want a number)", res["test_rmse"], res["full_rmse"])
	}
	p := res["privacy"].(map[string]any)
	// Paper mode: per release ε = Δ/b = 5/1 with Δ the largest rating; the
	// composition is shown but is no guarantee, and the report says why.
	notes := fmt.Sprint(p["notes"])
	fig, _ := p["not_a_guarantee"].(map[string]any)
	if p["guarantee"] != "none" || p["covers_gram"] != false || p["unit"] != "rating" || p["sampler"] != "float" || fig == nil ||
		fig["per_release_epsilon_if_sensitivity_held"] != 5.0 || fig["sampler_delivers_mechanism"] != false ||
		!strings.Contains(notes, "NOT a guarantee") || !strings.Contains(notes, "Gram matrix") || !strings.Contains(notes, "assumed") {
		t.Errorf("privacy = %v: must say it guarantees nothing and why", p)
	}
	// The composed total is at most basic composition, k·ε₀.
	if te, k := fig["composed_epsilon_if_sensitivity_held"].(float64), p["releases_per_user"].(float64); !(te > 0 && te <= 5*k) {
		t.Errorf("composed ε %v over %v releases", te, k)
	}
	// Same seed, same result.
	again, _, _ := dpmc(t, append(smallALS, "--seed", "2", "--output-format", "json", "--mechanism", "laplace", "--variance", "2")...)
	var res2 map[string]any
	json.Unmarshal([]byte(again), &res2)
	if res2["full_rmse"] != res["full_rmse"] {
		t.Errorf("same seed: full RMSE %v then %v", res["full_rmse"], res2["full_rmse"])
	}
}

func TestTrainOnFileWithTestFraction(t *testing.T) {
	out, stderr, code := dpmc(t, "train", "--data", filepath.Join("testdata", "tiny.tsv"), "--test-fraction", "0.25",
		"--rank", "2", "--iters", "3", "--mechanism", "none", "--output-format", "json", "--seed", "3")
	if code != 0 {
		t.Fatal(stderr)
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res["train_ratings"] != 7.0 || res["test_ratings"] != 2.0 || res["test_rmse"] == nil || res["privacy"] != nil {
		t.Errorf("JSON = %v", res)
	}
	if strings.Contains(stderr, "NOT private") {
		t.Errorf("noiseless run warned about noise: %q", stderr)
	}
}

func TestTrainSave(t *testing.T) {
	path := filepath.Join(t.TempDir(), "model.dpmc")
	args := append(small, "--seed", "4", "--save", path)
	if _, stderr, code := dpmc(t, args...); code != 0 {
		t.Fatal(stderr)
	}
	m, err := model.Load(path)
	if err != nil || m.Kind != model.Paper || len(m.UserIDs) != 60 || len(m.U) != 60*3 || m.Rank != 3 {
		t.Fatalf("saved model: %v", err)
	}
	if _, stderr, code := dpmc(t, args...); code != 1 || !strings.Contains(stderr, "--force") {
		t.Errorf("second save without --force: exit %d, %q", code, stderr)
	}
	if _, stderr, code := dpmc(t, append(args, "--force")...); code != 0 {
		t.Error(stderr)
	}
}

func TestTrainBadInput(t *testing.T) {
	tiny := filepath.Join("testdata", "tiny.tsv")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--algo", "sgd"}, "--algo"},
		{[]string{"--init", "cold"}, "--init"},
		{[]string{"--mechanism", "cauchy"}, "cauchy"},
		{[]string{"--mechanism", "none", "--variance", "2"}, "--variance does not apply"},
		{[]string{"--variance", "2", "--alpha", "1"}, "not both"},
		{[]string{"--mechanism", "laplace", "--alpha", "1"}, "--alpha does not apply"},
		{[]string{"--variance", "-1"}, "variance"},
		{[]string{"--rank", "0"}, "rank"},
		{[]string{"--lambda", "-1"}, "lambda"},
		{[]string{"--iters", "0"}, "iters"},
		{[]string{"--observed", "2"}, "observed"},
		{[]string{"--workers", "-1"}, "--workers"},
		{[]string{"--test", "x.tsv"}, "--test needs --data"},
		{[]string{"--data", tiny, "--rows", "5"}, "--rows applies only"},
		{[]string{"--data", tiny, "--test-fraction", "1.5"}, "--test-fraction"},
		{[]string{"--data", tiny, "--test", tiny, "--test-fraction", "0.5"}, "not both"},
		{[]string{"--data", "no/such/file.tsv"}, "no/such/file.tsv"},
		{[]string{"--data", tiny, "--format", "xls"}, "--format"},
		{[]string{"--force"}, "--force needs --save"},
		{[]string{"--privacy", "group"}, "--privacy"},
		{[]string{"--epsilon", "1"}, "--epsilon needs --privacy user"},
		{[]string{"--clip-norm", "2"}, "--clip-norm needs --privacy user"},
		{[]string{"--items", "items.txt"}, "--items needs --privacy user"},
		{[]string{"--synthetic", "realistic"}, "--synthetic needs --privacy user"},
		{[]string{"--delta", "1"}, "--delta"},
		{[]string{"--lambda-scale", "rows"}, "--lambda-scale"},
		{[]string{"--privacy", "user", "--epsilon", "1", "--lambda-scale", "count"}, "--lambda-scale applies to --privacy paper"},
		// --privacy user, on the realistic generator (userSmall):
		{[]string{"--privacy", "user"}, "needs --epsilon"},
		{[]string{"--privacy", "user", "--epsilon", "-1"}, "--epsilon"},
		{[]string{"--privacy", "user", "--epsilon", "NaN"}, "--epsilon"},
		{[]string{"--privacy", "user", "--epsilon", "1", "--variance", "2"}, "--variance applies to --privacy paper"},
		{[]string{"--privacy", "user", "--epsilon", "1", "--mechanism", "none"}, "--epsilon does not apply to --mechanism none"},
		{[]string{"--privacy", "user", "--epsilon", "1", "--mechanism", "laplace"}, "Gaussian"},
		{[]string{"--privacy", "user", "--epsilon", "1", "--clip-norm", "0"}, "--clip-norm"},
		{[]string{"--privacy", "user", "--epsilon", "1", "--max-user-ratings", "0"}, "--max-user-ratings"},
		{[]string{"--privacy", "user", "--epsilon", "1", "--center", "100"}, "--center = 100"},
		{[]string{"--privacy", "user", "--epsilon", "1", "--center", "NaN"}, "--center"},
		{[]string{"--privacy", "user", "--epsilon", "1", "--items", "no/such/items.txt"}, "--items"},
		{[]string{"--privacy", "user", "--epsilon", "1", "--weights", "heavy"}, "--weights"},
		{[]string{"--privacy", "user", "--epsilon", "1", "--sampler", "exact"}, "--sampler"},
		{[]string{"--privacy", "user", "--epsilon", "1", "--sampler", "float"}, "--sampler float is not private"},
		{[]string{"--sampler", "exact"}, "--sampler"},
		{[]string{"--privacy", "user", "--epsilon", "1", "--factor-share", "0.3"}, "--factor-share needs --rank"},
		{[]string{"--privacy", "user", "--epsilon", "1", "--synthetic", "fancy"}, "--synthetic"},
		{[]string{"--privacy", "user", "--epsilon", "1", "--delta", "0"}, "--delta"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			base := small
			switch {
			case tt.args[0] == "--data":
				base = []string{"train", "--rank", "2", "--iters", "2"}
			case tt.args[0] == "--privacy" && len(tt.args) > 1 && tt.args[1] == "user":
				base = userSmall
			}
			_, stderr, code := dpmc(t, append(base[:len(base):len(base)], tt.args...)...)
			if code != 1 || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want 1 and mention of %q", code, stderr, tt.want)
			}
		})
	}
}

// userSmall is a fast --privacy user run on the realistic generator.
var userSmall = []string{"train", "--synthetic", "realistic", "--users", "300"}

// TestTrainUserLevel trains a user-level private model to a total budget
// and checks that the report proves it, for a seeded run (which it must
// not call private) and an unseeded one, and that exact figures of the
// data appear only under the evaluation-only label.
func TestTrainUserLevel(t *testing.T) {
	args := append(userSmall[:len(userSmall):len(userSmall)], "--privacy", "user", "--epsilon", "2", "--delta", "1e-6", "--output-format", "json")
	for _, seeded := range []bool{true, false} {
		a := args
		if seeded {
			a = append(a[:len(a):len(a)], "--seed", "4")
		}
		out, stderr, code := dpmc(t, a...)
		if code != 0 {
			t.Fatal(stderr)
		}
		var res struct {
			Privacy struct {
				Unit          string   `json:"unit"`
				Guarantee     string   `json:"guarantee"`
				TotalEpsilon  *float64 `json:"total_epsilon"`
				TotalDelta    *float64 `json:"total_delta"`
				NotAGuarantee *struct {
					TotalEpsilon float64 `json:"total_epsilon_if_unseeded"`
				} `json:"not_a_guarantee"`
				Accountant string `json:"accountant"`
				Releases   []struct {
					Name  string  `json:"name"`
					Sigma float64 `json:"sigma"`
				} `json:"releases"`
			} `json:"privacy"`
			Evaluation struct {
				TrainRatings int      `json:"train_ratings"`
				TestRMSE     *float64 `json:"test_rmse"`
			} `json:"evaluation_only_not_released"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		p := res.Privacy
		if p.Unit != "user" || p.Accountant == "" || len(p.Releases) < 4 {
			t.Errorf("privacy = %+v", p)
		}
		// A seeded run guarantees nothing: its total is null, and what an
		// unseeded run would guarantee sits under not_a_guarantee.
		eps := math.NaN()
		switch {
		case seeded && p.TotalEpsilon == nil && p.TotalDelta == nil && p.NotAGuarantee != nil:
			eps = p.NotAGuarantee.TotalEpsilon
		case !seeded && p.TotalEpsilon != nil && p.TotalDelta != nil && p.NotAGuarantee == nil && *p.TotalDelta <= 1e-6:
			eps = *p.TotalEpsilon
		default:
			t.Errorf("seeded %v: total ε %v, δ %v, not_a_guarantee %v", seeded, p.TotalEpsilon, p.TotalDelta, p.NotAGuarantee)
		}
		if !(eps <= 2 && eps > 1.99) {
			t.Errorf("total ε = %v, want 2", eps)
		}
		if private := !strings.HasPrefix(p.Guarantee, "NONE"); private == seeded {
			t.Errorf("seeded %v: guarantee %q", seeded, p.Guarantee)
		}
		if res.Evaluation.TrainRatings == 0 || res.Evaluation.TestRMSE == nil {
			t.Errorf("evaluation section = %+v", res.Evaluation)
		}
		if seeded != strings.Contains(stderr, "NOT private") {
			t.Errorf("seeded %v: stderr %q", seeded, stderr)
		}
	}
}

// A user-mode --save writes the release alone: no user IDs, no per-user
// arrays; --save-users writes the users' own parts, labelled as such. A
// bad output path is refused before training.
func TestTrainUserSave(t *testing.T) {
	dir := t.TempDir()
	rel, users := filepath.Join(dir, "model.dpmc"), filepath.Join(dir, "users.jsonl")
	args := append(userSmall[:len(userSmall):len(userSmall)], "--privacy", "user", "--epsilon", "50", "--seed", "1", "--save", rel, "--save-users", users)
	out, stderr, code := dpmc(t, args...)
	if code != 0 {
		t.Fatal(stderr)
	}
	if !strings.Contains(out, "evaluation only") {
		t.Errorf("summary missing: %q", out)
	}
	m, err := model.Load(rel)
	if err != nil {
		t.Fatal(err)
	}
	if m.Kind != model.UserLevel || m.UserIDs != nil || m.U != nil || len(m.Privacy) == 0 {
		t.Errorf("release: kind %q, %d user IDs, %d user factors, privacy %q", m.Kind, len(m.UserIDs), len(m.U), m.Privacy)
	}
	ub, err := os.ReadFile(users)
	if err != nil || strings.Count(string(ub), "\n") != 300 || !strings.Contains(string(ub), "not private") {
		t.Errorf("users file: %v, %d lines", err, strings.Count(string(ub), "\n"))
	}
	// Saving again without --force fails before training; a directory as
	// --save fails before training too.
	for _, bad := range [][]string{
		{"--save", rel},
		{"--save", dir},
		{"--save", filepath.Join(dir, "no", "such", "m.json")},
	} {
		a := append(userSmall[:len(userSmall):len(userSmall)], "--privacy", "user", "--epsilon", "1")
		_, stderr, code := dpmc(t, append(a, bad...)...)
		if code != 1 || !strings.Contains(stderr, "--save") || strings.Contains(stderr, "train:") {
			t.Errorf("%v: exit %d, %q (want an early --save error)", bad, code, stderr)
		}
	}
}

// Paper mode draws exact discrete noise unless the run is seeded (which
// reproduces the paper's floating-point experiments) or asks for
// --sampler float, which then warns when unseeded.
func TestTrainPaperSampler(t *testing.T) {
	for _, tc := range []struct {
		args      []string
		mechanism string
		warns     bool
	}{
		{nil, "discrete-huber", false},
		{[]string{"--seed", "3"}, "huber", false},
		{[]string{"--seed", "3", "--sampler", "discrete"}, "discrete-huber", false},
		{[]string{"--sampler", "float"}, "huber", true},
		{[]string{"--mechanism", "gaussian", "--variance", "1"}, "discrete-gaussian", false},
	} {
		out, stderr, code := dpmc(t, append(append(small[:len(small):len(small)], "--output-format", "json"), tc.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, stderr)
		}
		var res struct {
			Mechanism string `json:"mechanism"`
			Privacy   struct {
				Notes []string `json:"notes"`
			} `json:"privacy"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if res.Mechanism != tc.mechanism {
			t.Errorf("%v: mechanism %q, want %q", tc.args, res.Mechanism, tc.mechanism)
		}
		if got := strings.Contains(stderr, "--sampler float draws floating-point noise"); got != tc.warns {
			t.Errorf("%v: float warning %v, want %v: %s", tc.args, got, tc.warns, stderr)
		}
		discreteNote := strings.Contains(strings.Join(res.Privacy.Notes, "\n"), "exact discrete noise on a grid")
		if discreteNote != strings.HasPrefix(tc.mechanism, "discrete") {
			t.Errorf("%v: the privacy notes do not say which sampler drew the noise: %v", tc.args, res.Privacy.Notes)
		}
	}
}
