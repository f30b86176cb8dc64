package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// quotedModel trains a paper model on a SweetRS-style file (quoted
// header and IDs, ratings 0 = not rated, one repeated pair) and returns
// the model's path and the file's.
func quotedModel(t *testing.T) (mp, data string) {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString(`"product","user","value"` + "\n")
	for u := range 8 {
		for j := range 6 {
			x := (u + 2*j) % 6 // 0: not rated
			fmt.Fprintf(&b, "\"p%d\",\"%d\",%d\n", j, 10+u, x)
		}
	}
	b.WriteString("\"p1\",\"10\",4\n") // user 10 rated p1 twice (2, then 4): averaged
	data, mp = filepath.Join(dir, "ratings-final.csv"), filepath.Join(dir, "sw.dpmc")
	os.WriteFile(data, []byte(b.String()), 0o644)
	if _, stderr, code := dpmc(t, "train", "--data", data, "--algo", "als", "--rank", "1", "--iters", "2", "--mechanism", "none", "--seed", "1", "--save", mp); code != 0 {
		t.Fatal(stderr)
	}
	return mp, data
}

// predict and recommend read the files train reads, as train reads them,
// and refuse what train refuses: bad ratings, repeated pairs (but
// SweetRS's, averaged), empty files, a file that matches nothing of the
// model; each error names the file and line, and no output file is left.
func TestPredictInput(t *testing.T) {
	mp, sweet := quotedModel(t)
	dir := t.TempDir()
	file := func(name, s string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(s), 0o644)
		return p
	}
	quoted := file("q.csv", "\"10\",\"p0\",5\n\"10\",\"p1\",4\n\"11\",\"p0\",3\n")
	swapped := file("sw.csv", "\"p0\",\"10\",5\n\"p1\",\"11\",4\n")
	dup := file("dup.tsv", "10\tp0\t5\n11\tp1\t4\n10\tp0\t3\n")
	dupPairs := file("dup2.tsv", "10\tp0\n10\tp0\n")
	nine := file("nine.tsv", "10\tp0\t5\n11\tp1\t9\n")
	zero := file("zero.tsv", "10\tp0\t0\n")
	huge := file("huge.tsv", "10\tp0\t1e6\n")
	empty := file("empty.tsv", "")
	header := file("header.csv", "user,item,rating\n")
	out := filepath.Join(dir, "out.tsv")
	for _, c := range []struct {
		name   string
		args   []string
		code   int
		stderr string // substring
		stdout string // substring, with code 0
	}{
		{"train's own file", []string{"predict", "--model", mp, "--pairs", sweet}, 0, "40 pairs (1 repeated pairs averaged, as train does for sweetrs)", "11\tp0\t"},
		{"quoted csv", []string{"predict", "--model", mp, "--pairs", quoted, "--columns", "user,item,rating"}, 0, "3 pairs; every user and item known to the model", "10\tp1\t"},
		{"quoted csv, default columns", []string{"predict", "--model", mp, "--pairs", quoted}, 0, "RMSE", "11\tp0\t"},
		{"swapped columns", []string{"predict", "--model", mp, "--pairs", swapped, "--unknown", "fallback"}, 1, "none of the 2 pairs has a user or an item of the model", ""},
		{"named swapped columns", []string{"predict", "--model", mp, "--pairs", swapped, "--columns", "item,user,rating"}, 0, "2 pairs", "11\tp1\t"},
		{"repeated pair", []string{"predict", "--model", mp, "--pairs", dup, "-o", out}, 1, dup + `:3: duplicate rating: user "10", item "p0" already rated on line 1`, ""},
		{"repeated pair, no ratings", []string{"predict", "--model", mp, "--pairs", dupPairs, "-o", out}, 1, dupPairs + `:2: duplicate rating: user "10", item "p0" already listed on line 1`, ""},
		{"rating 9", []string{"predict", "--model", mp, "--pairs", nine, "-o", out}, 1, nine + ":2: rating out of range: rating 9 outside [1, 5]", ""},
		{"empty pairs", []string{"predict", "--model", mp, "--pairs", empty, "-o", out}, 1, empty + ": no ratings: empty file", ""},
		{"header only", []string{"predict", "--model", mp, "--pairs", header, "-o", out}, 1, header + ":1: no ratings: a header but no rating lines", ""},
		{"history rating 9", []string{"predict", "--model", mp, "--pairs", quoted, "--history", nine, "-o", out}, 1, nine + ":2: rating out of range: rating 9 outside [1, 5]", ""},
		{"history rating 0", []string{"recommend", "--model", mp, "--history", zero}, 1, zero + ":1: rating out of range: rating 0 outside [1, 5]", ""},
		{"history rating 1e6", []string{"recommend", "--model", mp, "--history", huge}, 1, huge + ":1: rating out of range: rating 1e+06 outside [1, 5]", ""},
		{"history repeated", []string{"recommend", "--model", mp, "--history", dup, "--user", "10"}, 1, dup + `:3: duplicate rating`, ""},
		{"--relevant NaN", []string{"predict", "--model", mp, "--pairs", quoted, "--relevant", "NaN"}, 1, "--relevant = NaN, want a finite rating", ""},
		{"--relevant Inf", []string{"predict", "--model", mp, "--pairs", quoted, "--relevant", "+Inf"}, 1, "--relevant = +Inf, want a finite rating", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, code := dpmc(t, c.args...)
			if code != c.code || !strings.Contains(stderr, c.stderr) || !strings.Contains(stdout, c.stdout) {
				t.Errorf("exit %d, stderr %q, stdout %.200q; want exit %d, stderr with %q, stdout with %q", code, stderr, stdout, c.code, c.stderr, c.stdout)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s written", out)
				os.Remove(out)
			}
		})
	}
}

// recommend --history reads quoted IDs and excludes the user's rated
// items; SweetRS's repeated pairs are averaged, as train averages them.
func TestRecommendQuotedHistory(t *testing.T) {
	mp, sweet := quotedModel(t)
	stdout, stderr, code := dpmc(t, "recommend", "--model", mp, "--history", sweet, "--user", "10", "--output-format", "json", "-k", "6")
	if code != 0 {
		t.Fatal(stderr)
	}
	var r struct {
		HistoryRatings int `json:"history_ratings"`
		Unknown        int `json:"history_items_not_in_model"`
		Excluded       int `json:"excluded_rated_items"`
		Items          []struct {
			ID string `json:"item"`
		} `json:"recommendations"`
	}
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatal(err)
	}
	// User 10 (u = 0) rated p1, p2, p4, p5 (p0 and p3 are 0: not rated).
	if r.HistoryRatings != 4 || r.Unknown != 0 || r.Excluded != 4 || len(r.Items) != 2 {
		t.Fatalf("recommendation %+v", r)
	}
	for _, it := range r.Items {
		if it.ID != "p0" && it.ID != "p3" {
			t.Errorf("recommended %q, which user 10 rated", it.ID)
		}
	}
}

// With a cancelled context predict stops, exits 1 with the context's
// error and writes no output, whether the file is short or longer than
// the stretch between two looks at the context.
func TestPredictCancelled(t *testing.T) {
	mp, _ := quotedModel(t)
	dir := t.TempDir()
	for _, n := range []int{3, 5000} {
		pairs := filepath.Join(dir, fmt.Sprintf("p%d.tsv", n))
		var b strings.Builder
		for k := range n {
			fmt.Fprintf(&b, "u%d\tp%d\n", k, k%6) // users unknown, items known
		}
		os.WriteFile(pairs, []byte(b.String()), 0o644)
		out := filepath.Join(dir, "out.tsv")
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		var stdout, stderr bytes.Buffer
		code := run(ctx, []string{"predict", "--model", mp, "--pairs", pairs, "--unknown", "fallback", "-o", out}, &stdout, &stderr)
		if code != 1 || !strings.Contains(stderr.String(), "context canceled") {
			t.Errorf("%d pairs: exit %d, %q", n, code, stderr.String())
		}
		if left, _ := filepath.Glob(filepath.Join(dir, "*out.tsv*")); len(left) != 0 {
			t.Errorf("%d pairs: left %v", n, left)
		}
	}
}
