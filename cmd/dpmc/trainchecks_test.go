package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// helpExamples returns the dpmc command lines of a command's Example
// text, as argument lists without the leading "dpmc".
func helpExamples(t *testing.T, example string) [][]string {
	t.Helper()
	var cmds [][]string
	for _, line := range strings.Split(example, "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if fields[0] != "dpmc" {
			t.Fatalf("example line %q does not start with dpmc", line)
		}
		cmds = append(cmds, fields[1:])
	}
	return cmds
}

// writeExampleData writes small files named as the examples name them:
// u1.base and u1.test (MovieLens 100k format, disjoint (user, item)
// pairs), ratings-final.csv (SweetRS) and clicks.tsv (implicit feedback:
// the pairs of u1.base without ratings), from a fixed seed.
func writeExampleData(t *testing.T, dir string) {
	t.Helper()
	r := rand.New(rand.NewPCG(5, 6))
	var base, test, sweet, clicks strings.Builder
	sweet.WriteString(`"product","user","value"` + "\n")
	for u := 1; u <= 120; u++ {
		for i := 1; i <= 60; i++ {
			if r.Float64() > 0.4 {
				continue
			}
			// A rating with a user and an item effect, so that models fit.
			v := min(5, max(1, 3+(u%3)-(i%3)+r.IntN(2)))
			w := &base
			if r.Float64() < 0.2 {
				w = &test
			}
			fmt.Fprintf(w, "%d\t%d\t%d\t881250949\n", u, i, v)
			fmt.Fprintf(&clicks, "%d\t%d\n", u, i)
			fmt.Fprintf(&sweet, "\"sweet %d\",%d,%d\n", i, u, v)
		}
	}
	for name, text := range map[string]string{"u1.base": base.String(), "u1.test": test.String(), "ratings-final.csv": sweet.String(), "clicks.tsv": clicks.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Every example of dpmc help train runs and exits 0, on small files of
// the names the examples use. The built-in synthetic problems are shrunk
// with flags that apply to them, so that the test stays fast; every
// other flag is the example's own.
func TestTrainHelpExamples(t *testing.T) {
	if raceEnabled {
		t.Skip("whole runs; the plain pass runs them")
	}
	cmds := helpExamples(t, newTrainCmd().Example)
	if len(cmds) < 5 {
		t.Fatalf("found %d examples, want at least 5", len(cmds))
	}
	dir := t.TempDir()
	writeExampleData(t, dir)
	t.Chdir(dir)
	for _, args := range cmds {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			if args[0] != "train" {
				t.Fatalf("example of dpmc train runs %q", args[0])
			}
			run := append([]string(nil), args...)
			joined := " " + strings.Join(args, " ") + " "
			switch {
			case strings.Contains(joined, " --synthetic realistic "):
				for i := range run {
					if run[i] == "--users" {
						run[i+1] = "300"
					}
				}
			case !strings.Contains(joined, " --data "):
				run = append(run, "--rows", "80", "--cols", "60", "--iters", "3", "--irls-iters", "3")
			}
			out, stderr, code := dpmc(t, run...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if !strings.Contains(out, "privacy") {
				t.Errorf("no privacy report:\n%s", out)
			}
		})
	}
}

// In user mode an explicit --rank or --iters releases factors whatever the
// users × ε rule says, and the report says that the rule was not applied;
// --iters 0 is the PCA start alone, refused without noise before any data
// is read, as is a --rank above the head items, naming the flag; the
// head rule's flags set the head and the start.
func TestTrainUserRankIters(t *testing.T) {
	if raceEnabled {
		t.Skip("whole runs; the plain pass runs them")
	}
	dir := t.TempDir()
	writeExampleData(t, dir)
	data := filepath.Join(dir, "u1.base")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--epsilon", "1"}, 0, "factors: none: released users × ε"},
		{[]string{"--epsilon", "1", "--iters", "0"}, 0, "factors: rank 4, 0 ALS step(s) after the PCA start, set explicitly (--rank/--iters): the users × ε rule was not applied"},
		{[]string{"--epsilon", "1", "--rank", "2"}, 0, "factors: rank 2, 1 ALS step(s) after the PCA start, set explicitly"},
		{[]string{"--mechanism", "none", "--iters", "0"}, 1, "--iters = 0: the non-private baseline"},
		{[]string{"--mechanism", "none", "--iters", "0", "--rank", "0"}, 0, "factors: none (rank 0)"},
		{[]string{"--epsilon", "1", "--rank", "2000"}, 1, "--rank = 2000, want ≤ 1024"},
		{[]string{"--epsilon", "1", "--rank", "20", "--head-items", "10"}, 1, "--rank = 20 exceeds the 10 most popular items"},
		{[]string{"--epsilon", "1", "--iters", "-1"}, 1, "--iters = -1, want ≥ 0"},
		// The head rule's flags: every released item may get factors, at
		// most --head-items of them, and the start covers --start-items.
		{[]string{"--epsilon", "50", "--rank", "2", "--head-noise-ratio", "0", "--head-items", "30"}, 0, ", 30 with factors;"},
		{[]string{"--epsilon", "50", "--rank", "2", "--start-items", "7"}, 0, "over the (at most 7) most popular head items"},
		// --popularity-scale and --bias-column-scale set the feature
		// columns (0: none).
		{[]string{"--epsilon", "50", "--rank", "2", "--popularity-scale", "0.25"}, 0, "plus feature columns popularity 0.25·ln"},
		{[]string{"--epsilon", "50", "--rank", "2", "--bias-column-scale", "2"}, 0, "and item bias 2·(b − b_tail)"},
		{[]string{"--epsilon", "50", "--rank", "2", "--popularity-scale", "0"}, 0, "u_userᵀv_item + κ_user·b_item; rank 2"},
		{[]string{"--epsilon", "50", "--rank", "2", "--popularity-scale", "0", "--bias-column-scale", "0"}, 0, "u_userᵀv_item; rank 2"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			out, stderr, code := dpmc(t, append([]string{"train", "--privacy", "user", "--data", data, "--seed", "1"}, c.args...)...)
			if code != c.code {
				t.Fatalf("exit %d, want %d: %s", code, c.code, stderr)
			}
			if got := out + stderr; !strings.Contains(got, c.want) {
				t.Errorf("output lacks %q:\n%s", c.want, got)
			}
			if c.code != 0 && strings.Contains(stderr, "train: prepared") {
				t.Errorf("refused after reading the data: %s", stderr)
			}
		})
	}
}

// A user-level run that releases no item warns on stderr, naming the
// cause and the remedies, and still saves the (valid) model; one that
// releases items does not warn.
func TestTrainUserWarnsNoItems(t *testing.T) {
	dir := t.TempDir()
	writeExampleData(t, dir)
	data := filepath.Join(dir, "u1.base")
	for _, c := range []struct {
		eps  string
		warn bool
	}{{"0.05", true}, {"50", false}} {
		t.Run("ε="+c.eps, func(t *testing.T) {
			save := filepath.Join(t.TempDir(), "m.dpmc")
			out, stderr, code := dpmc(t, "train", "--privacy", "user", "--data", data, "--epsilon", c.eps, "--seed", "1", "--save", save)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			zero := strings.Contains(out, "released:   0 items")
			if zero != c.warn {
				t.Fatalf("premise: released 0 items = %v, want %v:\n%s", zero, c.warn, out)
			}
			warned := strings.Contains(stderr, "dpmc: warning: no item was released")
			if warned != c.warn {
				t.Errorf("warned = %v, want %v: %s", warned, c.warn, stderr)
			}
			if c.warn && (!strings.Contains(stderr, "--epsilon") || !strings.Contains(stderr, "--items FILE")) {
				t.Errorf("warning names no remedy: %s", stderr)
			}
			if _, err := os.Stat(save); err != nil {
				t.Errorf("model not saved: %v", err)
			}
		})
	}
}

// A --test file that shares (user, item) pairs with --data draws a
// warning with their count, in both privacy modes; a disjoint one none.
func TestTrainWarnsTestOverlap(t *testing.T) {
	dir := t.TempDir()
	writeExampleData(t, dir)
	base, test := filepath.Join(dir, "u1.base"), filepath.Join(dir, "u1.test")
	for _, c := range []struct {
		args []string
		warn bool
	}{
		{[]string{"--test", base, "--mechanism", "none", "--iters", "2"}, true},
		{[]string{"--test", base, "--privacy", "user", "--epsilon", "5"}, true},
		{[]string{"--test", test, "--mechanism", "none", "--iters", "2"}, false},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			_, stderr, code := dpmc(t, append([]string{"train", "--data", base, "--seed", "1"}, c.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if got := strings.Contains(stderr, "dpmc: warning: --test: the test set shares "); got != c.warn {
				t.Errorf("warned = %v, want %v: %s", got, c.warn, stderr)
			}
		})
	}
}

// Bad flags are refused before --data is read, naming the flag: the
// training file here is malformed, so an error about it would mean the
// flags were checked only after loading.
func TestTrainRefusesFlagsBeforeLoading(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.tsv")
	if err := os.WriteFile(bad, []byte("1\t1\t5\nthis is not a rating line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "nope.tsv")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--iters", "0"}, "--iters = 0, want ≥ 1"},
		{[]string{"--irls-iters", "0"}, "--irls-iters = 0, want ≥ 1"},
		{[]string{"--rank", "0"}, "--rank = 0, want ≥ 1"},
		{[]string{"--test", missing}, "--test: train: open " + missing},
		{[]string{"--privacy", "user", "--epsilon", "1", "--test", missing}, "--test: train: open " + missing},
		{[]string{"--lambda", "1e-300"}, "--lambda = 1e-300, want a finite number ≥ 1e-06"},
		{[]string{"--lambda", "+Inf"}, "--lambda = +Inf, want a finite number"},
		{[]string{"--algo", "als", "--irls-iters", "3"}, "--irls-iters applies to --algo irls only"},
		{[]string{"--algo", "als", "--init", "paper"}, "--init applies to --algo irls only"},
		{[]string{"--algo", "als", "--irls-threshold", "2"}, "--irls-threshold applies to --algo irls only"},
		{[]string{"--privacy", "user", "--epsilon", "1", "--users", "500"}, "--users applies only to --synthetic realistic"},
		{[]string{"--privacy", "user", "--epsilon", "1", "--rank", "2000"}, "--rank = 2000, want ≤ 1024"},
		{[]string{"--privacy", "user", "--epsilon", "1", "--rank", "500", "--head-items", "400"}, "--rank = 500 exceeds the 400 most popular items"},
		{[]string{"--privacy", "user", "--epsilon", "1", "--head-noise-ratio", "-1"}, "--head-noise-ratio = -1, want a finite number ≥ 0"},
		{[]string{"--privacy", "user", "--epsilon", "1", "--head-noise-ratio", "NaN"}, "--head-noise-ratio = NaN, want a finite number ≥ 0"},
		{[]string{"--privacy", "user", "--epsilon", "1", "--start-items", "-1"}, "--start-items = -1, want ≥ 0"},
		{[]string{"--start-items", "10"}, "--start-items"},
		{[]string{"--privacy", "user", "--epsilon", "1", "--popularity-scale", "-0.5"}, "--popularity-scale = -0.5, want a finite number ≥ 0"},
		{[]string{"--privacy", "user", "--epsilon", "1", "--objective", "ranking", "--popularity-scale", "1"}, "--popularity-scale applies to the rating objective"},
		{[]string{"--privacy", "user", "--epsilon", "1", "--bias-column-scale", "Inf"}, "--bias-column-scale = +Inf, want a finite number ≥ 0"},
		{[]string{"--privacy", "user", "--epsilon", "1", "--objective", "ranking", "--head-noise-ratio", "5"}, "--head-noise-ratio applies to the rating objective"},
		{[]string{"--privacy", "user", "--mechanism", "none", "--iters", "0"}, "--iters = 0: the non-private baseline"},
		{[]string{"--privacy", "user", "--epsilon", "1", "--rank", "2", "--factor-share", "2"}, "--factor-share"},
		{[]string{"--privacy", "user", "--epsilon", "1", "--rating-range", "1,5", "--center", "9"}, "--center = 9, want a number in the rating range [1, 5]"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			_, stderr, code := dpmc(t, append([]string{"train", "--data", bad}, c.args...)...)
			if code != 1 || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr %q; want exit 1 and %q", code, stderr, c.want)
			}
		})
	}
	// The malformed file itself is reported with its line, so the cases
	// above would have seen this error had they loaded it.
	if _, stderr, code := dpmc(t, "train", "--data", bad); code != 1 || !strings.Contains(stderr, "bad.tsv:2:") {
		t.Errorf("malformed file: exit %d, %q", code, stderr)
	}
}
