package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/dpmc/dpmc/internal/check"
	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/solver"
	"github.com/dpmc/dpmc/userdp"
)

func TestClaimPolicy(t *testing.T) {
	lap, gau, hub := mustLaplace(t, 2), mustGaussian(t, 1), mustHuber(t, 1, 1)
	for _, tt := range []struct {
		m         noise.Mechanism
		delta     float64
		sens, eps float64
	}{
		{lap, 0, 1, 0.5},
		{hub, 0, 3, 3},
		{gau, DefaultGaussianClaimDelta, 1, 0}, // ε from the analytic Gaussian, checked > 0 below
	} {
		if got := DefaultClaimDelta(tt.m); got != tt.delta {
			t.Errorf("DefaultClaimDelta(%v) = %g, want %g", tt.m, got, tt.delta)
		}
		g, err := GuaranteeClaim(tt.m, tt.sens, tt.delta)
		if err != nil {
			t.Fatal(err)
		}
		if tt.eps > 0 && math.Abs(g.Epsilon-tt.eps) > 1e-12 || !(g.Epsilon > 0) || g.Delta != tt.delta {
			t.Errorf("GuaranteeClaim(%v, %g) = %v, want ε = %g", tt.m, tt.sens, g, tt.eps)
		}
	}
	if _, err := GuaranteeClaim(gau, 1, 0); err == nil || !strings.Contains(err.Error(), "gaussian mechanism's guarantee") {
		t.Errorf("Gaussian at δ = 0: %v", err)
	}
	if _, err := GuaranteeClaim(nil, 1, 0); !errors.Is(err, check.ErrParam) {
		t.Errorf("nil mechanism: %v", err)
	}
}

// TestMechanismReportJSON: the JSON report has the keys dpmc audit has
// always printed, and the lattice part only with a support.
func TestMechanismReportJSON(t *testing.T) {
	m := mustLaplace(t, 1)
	for _, sup := range []Support{nil, Grid{Gamma: 0.5}} {
		opts := MechanismOptions{Options: Options{Claim: noise.Guarantee{Epsilon: 1}}, Sensitivity: 1, Samples: 1000, Seeded: true, Seed: 3, Support: sup}
		res, err := Mechanism(context.Background(), m, opts)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := (&MechanismReport{Mechanism: m, Options: opts, Result: res}).WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		if err := json.Unmarshal(b.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{"mechanism", "parameters", "sensitivity", "at", "dims", "claimed_epsilon", "claimed_delta",
			"claim_from_guarantee", "epsilon_lower_bound", "ideal_epsilon_lower_bound", "delta_lower_bound", "delta_estimate",
			"confidence", "interval_confidence", "samples", "selection_samples", "events", "seed", "best_event", "bits_finding", "seconds", "verdict"} {
			if _, ok := got[key]; !ok {
				t.Errorf("JSON lacks %q", key)
			}
		}
		_, hasLattice := got["lattice_finding"]
		if hasLattice != (sup != nil) || got["samples"] != 1000.0 || got["dims"] != 1.0 {
			t.Errorf("support %v: JSON = %v", sup, got)
		}
		if sup != nil {
			// Every Laplace release at x = 0 is y = noise, off the grid
			// 0.5ℤ but for y = 0: the lattice events see nothing.
			lf := got["lattice_finding"].(map[string]any)
			if lf["finding"] != false || lf["support"] != "the grid round_γ(x) + γℤ, γ = 0.5" || lf["events"] != 2.0 {
				t.Errorf("lattice_finding = %v", lf)
			}
		}
	}
}

// TestTrainSetups: the two modes' setups and reports, at a fixed seed.
func TestTrainSetups(t *testing.T) {
	if raceEnabled {
		t.Skip("statistical: runs without -race")
	}
	ctx := context.Background()
	o := userdp.Defaults(2, 1e-6, TinyMin, TinyMax).WithFactors(2, 1, 0.4)
	user, err := NewUserTrainSetup(ctx, o, 7, true)
	if err != nil {
		t.Fatal(err)
	}
	if !user.HasClaim || math.Abs(user.Claim.Epsilon-2) > 1e-6 || math.Abs(user.Claim.Delta-1e-6) > 1e-12 || user.ClaimFrom != "the accountant's total" {
		t.Errorf("user claim %v from %q", user.Claim, user.ClaimFrom)
	}
	paper, err := NewPaperTrainSetup(solver.Options{Algorithm: solver.ALS, Rank: 2, Lambda: 0.5, Iters: 3, Noise: mustGaussian(t, 1)}, true, 1e-6, 7, true)
	if err != nil {
		t.Fatal(err)
	}
	if paper.HasClaim || paper.Paper.StartV == nil || paper.Paper.Threshold != 3 {
		t.Errorf("paper setup: claim %v, start %v, threshold %g", paper.HasClaim, paper.Paper.StartV != nil, paper.Paper.Threshold)
	}
	for _, tt := range []struct {
		s       *TrainSetup
		verdict string
		want    []string
	}{
		{user, "PASS", []string{"user mode, the userdp pipeline", "rank 2, a PCA start share 0.5 and 1 ALS step(s)", "noise:        discrete Gaussian", "accountant:   total (ε, δ) = (2, 1e-06) by zCDP, ρ = 0.", "seed 7 (reproducible)"}},
		{paper, NoGuarantee, []string{"paper mode, als", "every run starts from one public V₀", "privacy:      NONE to test"}},
	} {
		res, err := Train(ctx, tt.s.Options(100, 2, 0.95))
		if err != nil {
			t.Fatal(err)
		}
		r := &TrainReport{Setup: tt.s, Result: res, Workers: 2}
		var text, js bytes.Buffer
		if err := r.WriteText(&text); err != nil {
			t.Fatal(err)
		}
		if err := r.WriteJSON(&js); err != nil {
			t.Fatal(err)
		}
		if r.Verdict() != tt.verdict {
			t.Errorf("%s mode: verdict %s, want %s", tt.s.Mode, r.Verdict(), tt.verdict)
		}
		for _, w := range append(tt.want, "verdict:      "+tt.verdict) {
			if !strings.Contains(text.String(), w) {
				t.Errorf("%s mode: report lacks %q:\n%s", tt.s.Mode, w, text.String())
			}
		}
		var got map[string]any
		if err := json.Unmarshal(js.Bytes(), &got); err != nil || got["mode"] != tt.s.Mode || got["verdict"] != tt.verdict {
			t.Errorf("%s mode: JSON %v (%v)", tt.s.Mode, got, err)
		}
	}
	// Bad setups.
	for name, err := range map[string]error{
		"no noise": func() error {
			_, err := NewUserTrainSetup(ctx, userdp.Defaults(math.Inf(1), 1e-6, TinyMin, TinyMax), 1, true)
			return err
		}(),
		"wrong scale": func() error { _, err := NewUserTrainSetup(ctx, userdp.Defaults(1, 1e-6, 0, 5), 1, true); return err }(),
		"paper without noise": func() error {
			_, err := NewPaperTrainSetup(solver.Options{Algorithm: solver.ALS, Rank: 2, Lambda: 0.5, Iters: 3}, true, 1e-6, 1, true)
			return err
		}(),
	} {
		if !errors.Is(err, check.ErrParam) {
			t.Errorf("%s: %v, want a check.ErrParam", name, err)
		}
	}
}
