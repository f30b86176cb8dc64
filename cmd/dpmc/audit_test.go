package main

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
)

// The audits below are seeded, so deterministic; each would flag a correct
// claim with probability at most 5 % (the union-bounded confidence), and
// the seeds used do not. 2×10⁴ samples keep them fast.

func TestAuditJSON(t *testing.T) {
	out, stderr, code := dpmc(t, "audit", "--mechanism", "laplace", "--scale", "1", "--sensitivity", "1",
		"--samples", "20000", "--seed", "1", "--output-format", "json", "--sampler", "")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("output is not one JSON object: %v\n%s", err, out)
	}
	for _, key := range []string{"mechanism", "claimed_epsilon", "epsilon_lower_bound", "confidence", "samples", "events", "verdict",
		"claimed_delta", "delta_lower_bound", "best_event", "bits_finding", "seed", "interval_confidence"} {
		if _, ok := got[key]; !ok {
			t.Errorf("JSON lacks %q", key)
		}
	}
	if got["mechanism"] != "laplace" || got["claimed_epsilon"] != 1.0 || got["confidence"] != 0.95 ||
		got["samples"] != 20000.0 || got["verdict"] != "PASS" || got["seed"] != 1.0 || got["bits_finding"] != nil {
		t.Errorf("JSON = %v", got)
	}
	if lb, _ := got["epsilon_lower_bound"].(float64); lb < 0.5 || lb > 1 {
		t.Errorf("epsilon_lower_bound = %v, want in [0.5, 1]", lb)
	}
	if ev, _ := got["events"].(float64); ev < 10 {
		t.Errorf("events = %v", ev)
	}
}

// TestAuditVerdicts: the exit status is 1 exactly on VIOLATION, after the
// report.
func TestAuditVerdicts(t *testing.T) {
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"--mechanism", "laplace"}, 0},
		{[]string{"--mechanism", "laplace", "--claim-epsilon", "0.5"}, 1},
		{[]string{"--mechanism", "huber", "--alpha", "1", "--scale", "1"}, 0},
		{[]string{"--mechanism", "huber", "--alpha", "1", "--scale", "1", "--claim-epsilon", "0.5"}, 1},
		{[]string{"--mechanism", "gaussian", "--sigma", "1", "--claim-epsilon", "1", "--claim-delta", "0.127"}, 0},
		{[]string{"--mechanism", "gaussian", "--sigma", "1", "--claim-epsilon", "1", "--claim-delta", "0.0127"}, 1},
		{[]string{"--mechanism", "gaussian", "--sigma", "1"}, 0}, // its own guarantee at δ = 1e-5
		{[]string{"--mechanism", "laplace", "--dims", "3"}, 0},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			args := append([]string{"audit", "--samples", "20000", "--seed", "2"}, tt.args...)
			out, stderr, code := dpmc(t, args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tt.code, out, stderr)
			}
			for _, want := range []string{"claim:", "lower bound:", "best event:", "events:", "samples:", "seed 2", "verdict:"} {
				if !strings.Contains(out, want) {
					t.Errorf("report lacks %q:\n%s", want, out)
				}
			}
			if tt.code == 1 {
				if !strings.Contains(out, "verdict:      VIOLATION") || !strings.HasPrefix(stderr, "dpmc: audit: VIOLATION") {
					t.Errorf("violation not reported:\n%s\nstderr: %s", out, stderr)
				}
			} else if !strings.Contains(out, "verdict:      PASS") || stderr != "" {
				t.Errorf("pass not reported cleanly:\n%s\nstderr: %s", out, stderr)
			}
		})
	}
}

func TestAuditVectorTests(t *testing.T) {
	out, stderr, code := dpmc(t, "audit", "--mechanism", "gaussian", "--dims", "4", "--samples", "10000", "--seed", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"Δ on 1 of 4 coordinate(s)", "Δ/√d = 0.5 on each of 4 coordinates"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks the test %q:\n%s", want, out)
		}
	}
}

// TestAuditBitsFinding: at x = 0 the bit family finds that the float64
// outputs of the paper's floating-point Laplace sampler reveal the input
// (see the audit package's TestBitsFamily); the report says so and the
// verdict counts it. The same audit of the default, discrete sampler finds
// nothing in the bits and nothing in its emitted set.
func TestAuditBitsFinding(t *testing.T) {
	out, stderr, code := dpmc(t, "audit", "--mechanism", "laplace", "--samples", "20000", "--seed", "4", "--bits", "--sampler", "")
	if code != 1 || !strings.Contains(out, "FLOATING-POINT FINDING") || !strings.Contains(out, "mantissa") {
		t.Errorf("exit %d, report:\n%s%s", code, out, stderr)
	}
	out, stderr, code = dpmc(t, "audit", "--mechanism", "laplace", "--samples", "20000", "--seed", "4", "--bits")
	if code != 0 || !strings.Contains(out, "floating point: no finding") || !strings.Contains(out, "emitted set:  no finding") ||
		!strings.Contains(out, "sampler:      discrete") {
		t.Errorf("discrete sampler (default): exit %d, report:\n%s%s", code, out, stderr)
	}
	out, _, _ = dpmc(t, "audit", "--mechanism", "laplace", "--samples", "20000", "--seed", "4", "--bits", "--output-format", "json", "--sampler", "")
	var got struct {
		Bits *struct {
			Finding bool    `json:"finding"`
			Eps     float64 `json:"epsilon_lower_bound"`
		} `json:"bits_finding"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || got.Bits == nil || !got.Bits.Finding || got.Bits.Eps <= 1 {
		t.Errorf("bits_finding = %+v (%v):\n%s", got.Bits, err, out)
	}
	out, _, code = dpmc(t, "audit", "--mechanism", "laplace", "--samples", "20000", "--seed", "4", "--bits", "--at", "1000", "--sampler", "")
	if code != 0 || !strings.Contains(out, "floating point: no finding") {
		t.Errorf("at x = 1000: exit %d\n%s", code, out)
	}
}

// TestAuditSamplerFloat: the lattice family flags math/rand/v2's ziggurat
// samplers at the three configurations (the issue measured
// P[y ∈ S(x) | x] ≈ 0.99 against P[y ∈ S(x) | x′] ≤ 0.05), on the lattice
// events alone: the real-valued mechanism passes its own claim. Seeded, so
// deterministic.
func TestAuditSamplerFloat(t *testing.T) {
	for _, args := range [][]string{
		{"--mechanism", "gaussian", "--sigma", "49", "--at", "1000"},
		{"--mechanism", "laplace", "--scale", "3.7", "--at", "0.1", "--sensitivity", "0.25"},
		{"--mechanism", "huber", "--alpha", "1", "--scale", "25.3", "--at", "1000"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			base := append([]string{"audit", "--sampler", "float", "--samples", "20000", "--seed", "5"}, args...)
			out, stderr, code := dpmc(t, base...)
			if code != 1 || !strings.Contains(out, "SAMPLER FINDING") || !strings.Contains(out, "sampler:      float; emitted set S(x): the ziggurat lattice") ||
				!strings.Contains(out, "only the sampler's releases, the real-valued mechanism passes") || !strings.HasPrefix(stderr, "dpmc: audit: VIOLATION") {
				t.Errorf("exit %d:\n%s%s", code, out, stderr)
			}
			out, _, _ = dpmc(t, append(base, "--output-format", "json")...)
			var got struct {
				Sampler string  `json:"sampler"`
				Ideal   float64 `json:"ideal_epsilon_lower_bound"`
				Lattice *struct {
					Finding bool    `json:"finding"`
					Delta   float64 `json:"delta_lower_bound"`
					Best    *struct {
						Count1, N1, Count2, N2 int
					} `json:"best_event"`
				} `json:"lattice_finding"`
			}
			if err := json.Unmarshal([]byte(out), &got); err != nil || got.Sampler != "float" || got.Lattice == nil || !got.Lattice.Finding ||
				got.Lattice.Delta < 0.9 || got.Lattice.Best == nil {
				t.Fatalf("lattice_finding = %+v (%v):\n%s", got.Lattice, err, out)
			}
			b := got.Lattice.Best
			if p1, p2 := float64(b.Count1)/float64(b.N1), float64(b.Count2)/float64(b.N2); p1 < 0.99 || p2 > 0.01 {
				t.Errorf("best lattice event: %d/%d against %d/%d", b.Count1, b.N1, b.Count2, b.N2)
			}
		})
	}
	// The default, discrete sampler passes the same audits: its releases
	// on x and x′ lie on one grid.
	for _, args := range [][]string{
		{"--mechanism", "gaussian", "--sigma", "49", "--at", "1000"},
		{"--mechanism", "laplace", "--scale", "3.7", "--at", "0.1", "--sensitivity", "0.25"},
		{"--mechanism", "huber", "--alpha", "1", "--scale", "25.3", "--at", "1000"},
	} {
		out, stderr, code := dpmc(t, append([]string{"audit", "--samples", "20000", "--seed", "5"}, args...)...)
		if code != 0 || !strings.Contains(out, "sampler:      discrete") || !strings.Contains(out, "emitted set:  no finding") {
			t.Errorf("%v with the discrete sampler: exit %d\n%s%s", args, code, out, stderr)
		}
	}
	// With --sampler "" the report is as before: no lattice family.
	out, _, code := dpmc(t, "audit", "--mechanism", "gaussian", "--sigma", "49", "--at", "1000", "--samples", "20000", "--seed", "5", "--sampler", "")
	if code != 0 || strings.Contains(out, "sampler") || strings.Contains(out, "lattice") {
		t.Errorf("without --sampler: exit %d\n%s", code, out)
	}
}

func TestAuditUnseeded(t *testing.T) {
	out, stderr, code := dpmc(t, "audit", "--mechanism", "huber", "--samples", "5000")
	if code != 0 || !strings.Contains(out, "crypto/rand") || strings.Contains(out, "seed ") {
		t.Errorf("exit %d:\n%s%s", code, out, stderr)
	}
}

func TestAuditBadFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{}, "--mechanism is required"},
		{[]string{"--mechanism", "cauchy"}, "cauchy"},
		{[]string{"--mechanism", "laplace", "--sigma", "2"}, "--sigma does not apply"},
		{[]string{"--mechanism", "laplace", "--scale", "0"}, "scale"},
		{[]string{"--mechanism", "laplace", "--samples", "5"}, "--samples"},
		{[]string{"--mechanism", "laplace", "--dims", "0"}, "--dims"},
		{[]string{"--mechanism", "laplace", "--sensitivity", "-1"}, "--sensitivity"},
		{[]string{"--mechanism", "laplace", "--claim-epsilon", "-1"}, "--claim-epsilon"},
		{[]string{"--mechanism", "laplace", "--claim-delta", "1.5"}, "--claim-delta"},
		{[]string{"--mechanism", "laplace", "--claim-delta", "1"}, "--claim-delta"},
		{[]string{"--mechanism", "gaussian", "--claim-delta", "0"}, "--claim-delta"},
		{[]string{"--mechanism", "laplace", "--confidence", "1"}, "--confidence"},
		{[]string{"--mechanism", "laplace", "--at", "NaN"}, "--at"},
		{[]string{"--mechanism", "laplace", "--samples", "x"}, "--samples"},
		{[]string{"--mechanism", "laplace", "extra"}, "unknown command"},
		{[]string{"--mechanism", "laplace", "--sampler", "exact"}, "--sampler"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			_, stderr, code := dpmc(t, append([]string{"audit"}, tt.args...)...)
			if code != 1 || !strings.HasPrefix(stderr, "dpmc: ") || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want 1 and a dpmc error mentioning %q", code, stderr, tt.want)
			}
		})
	}
}

func TestAuditHelp(t *testing.T) {
	out, _, code := dpmc(t, "help", "audit")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"--mechanism", "--alpha", "--scale", "--sigma", "--sensitivity", "(default 1)",
		"--claim-epsilon", "--claim-delta", "--samples", "(default 1000000)", "--seed", "crypto/rand", "--dims",
		"--bits", "--at", "--confidence", "(default 0.95)", "--output-format", "json", "PASS", "VIOLATION", "Mironov",
		"--train", "--privacy", "--runs", "(default 1000)", "--epsilon", "--delta", "--max-user-ratings", "--clip-norm",
		"--variance", "--algo", "--rank", "--iters", "--irls-iters", "--lambda", "--workers", "V Vᵀ", "20 %", "--start", "public",
		"--sampler", "lattice", "userdp"} {
		if !strings.Contains(out, want) {
			t.Errorf("help audit lacks %q", want)
		}
	}
	out, _, _ = dpmc(t, "--help")
	if !strings.Contains(out, "audit") {
		t.Error("dpmc --help does not list audit")
	}
}

// The training audits below are seeded, so deterministic, and use 200 or
// 300 runs per side to stay fast. Each flags a correct claim with
// probability at most 5 % (the union-bounded confidence); the seeds used
// do not.

// auditTrainJSON runs dpmc audit --train with args and --json and decodes the
// report; want is the exit status expected.
func auditTrainJSON(t *testing.T, want int, args ...string) map[string]any {
	t.Helper()
	out, stderr, code := dpmc(t, append([]string{"audit", "--train", "--output-format", "json"}, args...)...)
	if code != want {
		t.Fatalf("exit %d, want %d: %s", code, want, stderr)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("output is not one JSON object: %v\n%s", err, out)
	}
	return got
}

func TestAuditTrainJSON(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		check func(t *testing.T, got map[string]any)
	}{
		{"user", []string{"--runs", "200", "--seed", "1"}, func(t *testing.T, got map[string]any) {
			if got["mode"] != "user" || got["pipeline"] != "userdp" || got["verdict"] != "PASS" || got["claimed_epsilon"] != got["accountant_epsilon"] ||
				got["claimed_delta"] != got["accountant_delta"] || !strings.Contains(got["accountant"].(string), "zCDP") ||
				got["options"] == nil || got["privacy"] == nil {
				t.Errorf("JSON = %v", got)
			}
			if eps, _ := got["accountant_epsilon"].(float64); math.Abs(eps-1) > 1e-3 {
				t.Errorf("accountant_epsilon = %v, want 1 (calibrated)", eps)
			}
			if d, _ := got["accountant_delta"].(float64); math.Abs(d-1e-6) > 1e-9 {
				t.Errorf("accountant_delta = %v, want 1e-6", d)
			}
		}},
		{"user with factors", []string{"--rank", "2", "--epsilon", "2", "--runs", "200", "--seed", "1"}, func(t *testing.T, got map[string]any) {
			o, _ := got["options"].(map[string]any)
			if got["verdict"] != "PASS" || o == nil || o["rank"] != 2.0 || o["auto_factors"] != false {
				t.Errorf("JSON = %v", got)
			}
		}},
		{"paper", []string{"--privacy", "paper", "--runs", "200", "--seed", "1", "--iters", "3"}, func(t *testing.T, got map[string]any) {
			fig, _ := got["not_a_guarantee"].(map[string]any)
			if got["mode"] != "paper" || got["verdict"] != "NO GUARANTEE" || got["guarantee"] != "none" || got["claimed_epsilon"] != nil ||
				got["noise"] != "gaussian(σ=1)" || got["sampler"] != "float" || fig == nil ||
				fig["per_release_epsilon_if_sensitivity_held"] == nil || fig["composed_epsilon_if_sensitivity_held"] == nil || fig["sampler_delivers_mechanism"] != false {
				t.Errorf("JSON = %v", got)
			}
			// Beside "guarantee": "none" the only numeric ε and δ are the
			// audit's own measurements; the paper's figures are nested.
			for k, v := range got {
				if _, num := v.(float64); num && (strings.Contains(k, "epsilon") || strings.Contains(k, "delta")) &&
					k != "epsilon_lower_bound" && k != "delta_lower_bound" && k != "epsilon_ceiling" {
					t.Errorf("paper mode: numeric %q = %v beside guarantee none", k, v)
				}
			}
		}},
		{"paper irls laplace", []string{"--privacy", "paper", "--algo", "irls", "--mechanism", "laplace", "--scale", "1", "--iters", "3", "--runs", "200", "--seed", "2"}, func(t *testing.T, got map[string]any) {
			if got["algo"] != "irls" || got["mechanism"] != "laplace" || got["releases"] != 6.0 || got["irls_iters"] != 2.0 || got["verdict"] != "NO GUARANTEE" {
				t.Errorf("JSON = %v", got)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := auditTrainJSON(t, 0, tt.args...)
			keys := []string{"mode", "runs", "epsilon_lower_bound", "guarantee",
				"confidence", "statistic", "verdict", "select_runs", "epsilon_ceiling", "events", "best_event", "seed", "statistic_weights"}
			if got["mode"] == "user" {
				keys = append(keys, "accountant_epsilon", "accountant_delta", "accountant")
			} else {
				keys = append(keys, "not_a_guarantee", "sampler")
			}
			for _, key := range keys {
				if _, ok := got[key]; !ok {
					t.Errorf("JSON lacks %q", key)
				}
			}
			if got["runs"] != 200.0 || got["select_runs"] != 40.0 || got["confidence"] != 0.95 || got["seed"] == nil || got["statistic"] == "" {
				t.Errorf("JSON = %v", got)
			}
			lb, _ := got["epsilon_lower_bound"].(float64)
			if ceil, _ := got["epsilon_ceiling"].(float64); lb < 0 || ceil < lb || ceil > 5 {
				t.Errorf("bound %v, ceiling %v", lb, ceil)
			}
			tt.check(t, got)
		})
	}
}

// TestAuditTrainDeterministic: --seed fixes the report (but for the
// time), whatever --workers.
func TestAuditTrainDeterministic(t *testing.T) {
	a := auditTrainJSON(t, 0, "--runs", "100", "--seed", "7", "--workers", "1", "--epsilon", "20")
	b := auditTrainJSON(t, 0, "--runs", "100", "--seed", "7", "--workers", "2", "--epsilon", "20")
	for _, m := range []map[string]any{a, b} {
		delete(m, "seconds")
		delete(m, "workers")
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Errorf("seed 7 gave two reports:\n%s\n%s", ja, jb)
	}
}

// TestAuditTrainVerdicts: a claim far below the truth is caught, and the
// exit status is then 1, after the report.
func TestAuditTrainVerdicts(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"user, accountant's claim", []string{"--epsilon", "100"}, 0,
			[]string{"user mode, the userdp pipeline", "accountant:   total (ε, δ) = (100, 1e-06) by zCDP, ρ = 49.55", "verdict:      PASS"}},
		{"user with factors, accountant's claim", []string{"--epsilon", "2", "--rank", "2"}, 0,
			[]string{"rank 2, a PCA start share 0.5 and 1 ALS step(s)", "accountant:   total (ε, δ) = (2, 1e-06)", "verdict:      PASS"}},
		// A deliberately under-stated ε: the pipeline calibrated to ε = 200
		// claimed as ε = 0.25.
		{"user at ε = 200, claim 0.25", []string{"--epsilon", "200", "--claim-epsilon", "0.25"}, 1,
			[]string{"(the claim given by --claim-epsilon: ε = 0.25)", "verdict:      VIOLATION"}},
		{"paper, tiny noise, claim 1", []string{"--privacy", "paper", "--variance", "1e-4", "--claim-epsilon", "1"}, 1,
			[]string{"privacy:      NONE", "T = 30 sweeps", "verdict:      VIOLATION"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"audit", "--train", "--runs", "300", "--seed", "3"}, tt.args...)
			out, stderr, code := dpmc(t, args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tt.code, out, stderr)
			}
			for _, want := range append(tt.want, "seed 3 (reproducible)", "statistic:", "lower bound:", "best event:", "cannot show more than") {
				if !strings.Contains(out, want) {
					t.Errorf("report lacks %q:\n%s", want, out)
				}
			}
			if tt.code == 1 && !strings.HasPrefix(stderr, "dpmc: audit: VIOLATION") {
				t.Errorf("stderr %q", stderr)
			}
		})
	}
}

// TestAuditTrainPublicStart: from one public start the runs differ only by
// the noise, and the paper's un-noised Gram matrices show after 3 sweeps
// (seed 1: ε ≥ 3.40, the ceiling of 300 runs), where random starts hide
// them (ε ≥ 0).
func TestAuditTrainPublicStart(t *testing.T) {
	args := []string{"--privacy", "paper", "--iters", "3", "--runs", "300", "--seed", "1", "--claim-epsilon", "1"}
	pub := auditTrainJSON(t, 1, append(args, "--start", "public")...)
	rnd := auditTrainJSON(t, 0, append(args, "--start", "random")...)
	if pub["start"] != "public" || rnd["start"] != "random" || pub["verdict"] != "VIOLATION" {
		t.Errorf("start %v / %v, verdict %v", pub["start"], rnd["start"], pub["verdict"])
	}
	if p, r := pub["epsilon_lower_bound"].(float64), rnd["epsilon_lower_bound"].(float64); !(p > r+1) {
		t.Errorf("lower bound %v from a public start, %v from random starts; want the public one clearly larger", p, r)
	}
}

func TestAuditTrainUnseeded(t *testing.T) {
	out, stderr, code := dpmc(t, "audit", "--train", "--privacy", "paper", "--iters", "2", "--runs", "100")
	if code != 0 || !strings.Contains(out, "crypto/rand") || strings.Contains(out, "(reproducible)") || !strings.Contains(out, "NO GUARANTEE") {
		t.Errorf("exit %d:\n%s%s", code, out, stderr)
	}
	// The root seed it reports replays it, public start included.
	args := []string{"audit", "--train", "--output-format", "json", "--privacy", "paper", "--iters", "2", "--runs", "100"}
	out, stderr, code = dpmc(t, args...)
	var first map[string]any
	var exact struct {
		Root *uint64 `json:"root_seed"` // a uint64: read exactly, not through a float64
	}
	if err := json.Unmarshal([]byte(out), &first); err != nil || code != 0 {
		t.Fatalf("exit %d, %v: %s", code, err, stderr)
	}
	if err := json.Unmarshal([]byte(out), &exact); err != nil || exact.Root == nil || first["seed"] != nil {
		t.Fatalf("root_seed %v, seed %v (%v)", exact.Root, first["seed"], err)
	}
	again := auditTrainJSON(t, 0, append(args[4:], "--seed", strconv.FormatUint(*exact.Root, 10))...)
	for _, key := range []string{"epsilon_lower_bound", "statistic", "selection_separation", "root_seed"} {
		if first[key] != again[key] {
			t.Errorf("%s: %v unseeded, %v replayed", key, first[key], again[key])
		}
	}
}

func TestAuditTrainBadFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--privacy", "rating"}, "--privacy"},
		{[]string{"--algo", "sgd"}, "--algo"},
		{[]string{"--mechanism", "cauchy"}, "--mechanism"},
		{[]string{"--rank", "13"}, "--rank"},
		{[]string{"--rank", "-1"}, "--rank"},
		{[]string{"--iters", "-1"}, "--iters"},
		{[]string{"--privacy", "paper", "--rank", "0"}, "--rank"},
		{[]string{"--privacy", "paper", "--iters", "0"}, "--iters"},
		{[]string{"--runs", "50"}, "--runs"},
		{[]string{"--runs", "many"}, "--runs"},
		{[]string{"--workers", "-1"}, "--workers"},
		{[]string{"--lambda", "0"}, "--lambda"},
		{[]string{"--max-user-ratings", "0"}, "--max-user-ratings"},
		{[]string{"--clip-norm", "0"}, "--clip-norm"},
		{[]string{"--epsilon", "0"}, "--epsilon"},
		{[]string{"--delta", "0"}, "--delta"},
		{[]string{"--delta", "1"}, "--delta"},
		{[]string{"--confidence", "1"}, "--confidence"},
		{[]string{"--claim-epsilon", "-1"}, "--claim-epsilon"},
		{[]string{"--claim-delta", "0.1"}, "--claim-delta"},
		{[]string{"--irls-iters", "3"}, "--irls-iters"},
		{[]string{"--privacy", "paper", "--algo", "irls", "--irls-threshold", "-1"}, "--irls-threshold"},
		{[]string{"--privacy", "paper", "--irls-iters", "3"}, "--irls-iters"},
		{[]string{"--variance", "2"}, "--variance"},
		{[]string{"--sigma", "2"}, "--sigma"},
		{[]string{"--mechanism", "laplace"}, "--mechanism laplace"},
		{[]string{"--start", "random"}, "--start"},
		{[]string{"--alpha", "2"}, "--alpha"},
		{[]string{"--mechanism", "laplace", "--sigma", "2"}, "--sigma"},
		{[]string{"--privacy", "paper", "--epsilon", "1"}, "--epsilon"},
		{[]string{"--privacy", "paper", "--clip-norm", "1"}, "--clip-norm"},
		{[]string{"--privacy", "paper", "--variance", "-1"}, "--variance"},
		{[]string{"--privacy", "paper", "--variance", "1", "--sigma", "1"}, "--variance"},
		{[]string{"--samples", "1000"}, "--samples"},
		{[]string{"--sensitivity", "2"}, "--sensitivity"},
		{[]string{"--bits"}, "--bits"},
		{[]string{"--sampler", "float"}, "--sampler"},
		{[]string{"--start", "fixed"}, "--start"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			_, stderr, code := dpmc(t, append([]string{"audit", "--train"}, tt.args...)...)
			if code != 1 || !strings.HasPrefix(stderr, "dpmc: ") || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want 1 and a dpmc error mentioning %q", code, stderr, tt.want)
			}
		})
	}
	// The training flags need --train.
	for _, flag := range []string{"--rank", "--runs", "--privacy", "--epsilon"} {
		_, stderr, code := dpmc(t, "audit", "--mechanism", "laplace", flag, "1")
		if code != 1 || !strings.Contains(stderr, flag+" applies only with --train") {
			t.Errorf("%s without --train: exit %d, stderr %q", flag, code, stderr)
		}
	}
}

// dpmc audit --train --objective ranking audits the ranking model: the
// accountant's claim passes, a false claim is flagged (exit status 1).
func TestAuditTrainRanking(t *testing.T) {
	if raceEnabled {
		t.Skip("statistical: runs without -race")
	}
	out, stderr, code := dpmc(t, "audit", "--train", "--objective", "ranking", "--epsilon", "1", "--runs", "300", "--seed", "3")
	if code != 0 || !strings.Contains(out, "ranking objective") || !strings.Contains(out, "PASS") {
		t.Errorf("true claim: exit %d\n%s\n%s", code, out, stderr)
	}
	out, _, code = dpmc(t, "audit", "--train", "--objective", "ranking", "--epsilon", "100", "--claim-epsilon", "0.5", "--runs", "300", "--seed", "3")
	if code == 0 || !strings.Contains(out, "VIOLATION") {
		t.Errorf("false claim: exit %d\n%s", code, out)
	}
	if _, stderr, code := dpmc(t, "audit", "--train", "--objective", "ranking", "--rank", "2"); code == 0 || !strings.Contains(stderr, "--rank") {
		t.Errorf("--rank with ranking: exit %d, %s", code, stderr)
	}
}
