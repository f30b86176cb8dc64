package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// hardeningFiles writes the example data and trains a small paper-mode
// model on it; it returns the folder and the model's path.
func hardeningFiles(t *testing.T) (dir, modelPath string) {
	t.Helper()
	dir = t.TempDir()
	writeExampleData(t, dir)
	modelPath = filepath.Join(dir, "paper.dpmc")
	if _, stderr, code := dpmc(t, "train", "--data", filepath.Join(dir, "u1.base"), "--algo", "als", "--mechanism", "none", "--rank", "2", "--iters", "1", "--seed", "1", "--save", modelPath); code != 0 {
		t.Fatalf("train: %s", stderr)
	}
	return dir, modelPath
}

// An output never replaces an input, even with --force: train --save and
// --save-users against --data, --test and --items (by name, symbolic and
// hard link), predict --output against --pairs, --history and --model.
// The error names both flags and every file is left as it was.
func TestOutputNeverReplacesInput(t *testing.T) {
	dir, mp := hardeningFiles(t)
	base, test := filepath.Join(dir, "u1.base"), filepath.Join(dir, "u1.test")
	items := filepath.Join(dir, "items.txt")
	if err := os.WriteFile(items, []byte("1\n2\n3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sym, hard := filepath.Join(dir, "sym"), filepath.Join(dir, "hard")
	if err := os.Symlink(base, sym); err != nil {
		t.Skip(err)
	}
	if err := os.Link(base, hard); err != nil {
		t.Skip(err)
	}
	files := []string{base, test, items, mp}
	before := map[string]string{}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		before[f] = string(b)
	}
	paper := []string{"train", "--data", base, "--algo", "als", "--mechanism", "none", "--rank", "2", "--iters", "1", "--force"}
	user := []string{"train", "--privacy", "user", "--mechanism", "none", "--data", base, "--force"}
	predict := []string{"predict", "--model", mp, "--pairs", test, "--force"}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"train --save = --data", append(paper, "--save", base), "--save " + base + " is the same file as --data " + base},
		{"train --save = ./--data", append(paper, "--save", filepath.Join(dir, ".", "u1.base")), "is the same file as --data"},
		{"train --save → --data (symlink)", append(paper, "--save", sym), "--save " + sym + " is the same file as --data " + base},
		{"train --save → --data (hard link)", append(paper, "--save", hard), "--save " + hard + " is the same file as --data " + base},
		{"train --save = --test", append(paper, "--test", test, "--save", test), "--save " + test + " is the same file as --test " + test},
		{"train user --save = --data", append(user, "--save", base), "--save " + base + " is the same file as --data"},
		{"train user --save-users = --data", append(user, "--save-users", hard), "--save-users " + hard + " is the same file as --data"},
		{"train user --save = --items", append(user, "--items", items, "--save", items), "--save " + items + " is the same file as --items"},
		{"predict -o = --pairs", append(predict, "-o", test), "--output " + test + " is the same file as --pairs"},
		{"predict -o = --history", append(predict, "--history", base, "-o", sym), "--output " + sym + " is the same file as --history"},
		{"predict -o = --model", append(predict, "-o", mp), "--output " + mp + " is the same file as --model"},
	} {
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, code := dpmc(t, c.args...)
			if code != 1 || !strings.Contains(stderr, c.want) || stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and %q", code, stdout, stderr, c.want)
			}
			for _, f := range files {
				if b, _ := os.ReadFile(f); string(b) != before[f] {
					t.Fatalf("%s changed", f)
				}
			}
		})
	}
}

// A huge k no longer panics or exhausts memory: recommend and predict
// clamp it to the items there are and say so (recommend's --json too, with
// the k asked for); k < 1 is an error naming the flag.
func TestHugeK(t *testing.T) {
	dir, mp := hardeningFiles(t)
	maxInt := strconv.Itoa(math.MaxInt)
	stdout, stderr, code := dpmc(t, "recommend", "--model", mp, "--user", "1", "-k", maxInt, "--output-format", "json")
	if code != 0 {
		t.Fatalf("recommend: exit %d: %s", code, stderr)
	}
	var got struct {
		K          int               `json:"k"`
		KRequested int               `json:"k_requested"`
		Items      []json.RawMessage `json:"recommendations"`
		Warnings   []string          `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	if got.KRequested != math.MaxInt || got.K != len(got.Items) || got.K == 0 || len(got.Warnings) == 0 {
		t.Errorf("recommend --json: %+v", got)
	}
	if !strings.Contains(stderr, "-k "+maxInt+" exceeds the model's") || !strings.Contains(stderr, "fewer than -k") {
		t.Errorf("recommend stderr %q does not say k was clamped", stderr)
	}
	_, stderr, code = dpmc(t, "predict", "--model", mp, "--pairs", filepath.Join(dir, "u1.test"), "--k", maxInt, "-o", filepath.Join(dir, "p.tsv"))
	if code != 0 || !strings.Contains(stderr, "--k "+maxInt+" exceeds the") {
		t.Errorf("predict: exit %d, stderr %q", code, stderr)
	}
	for _, c := range []struct{ args []string }{
		{[]string{"recommend", "--model", mp, "--user", "1", "-k", "0"}},
		{[]string{"predict", "--model", mp, "--pairs", filepath.Join(dir, "u1.test"), "--k", "-1"}},
	} {
		if _, stderr, code := dpmc(t, c.args...); code != 1 || !strings.Contains(stderr, "want ≥ 1") {
			t.Errorf("%v: exit %d, stderr %q", c.args, code, stderr)
		}
	}
}

// recommend says when its list is shorter than -k (here the user rated
// items that are left out), and warns that a paper-mode model without
// --history cannot leave out the user's rated items; with --history it
// does not warn about them.
func TestRecommendSaysWhy(t *testing.T) {
	dir, mp := hardeningFiles(t)
	base := filepath.Join(dir, "u1.base")
	for _, c := range []struct {
		name       string
		args       []string
		want, dont []string
	}{
		{"no history", []string{"--user", "1", "-k", "5"}, []string{"does not record which items user 1 rated"}, []string{"fewer than -k"}},
		{"history", []string{"--user", "1", "-k", "5", "--history", base}, nil, []string{"does not record", "fewer than -k"}},
		{"history, all items", []string{"--user", "1", "-k", "60", "--history", base}, []string{"fewer than -k 60", "rated by the user and left out"}, []string{"does not record"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, stderr, code := dpmc(t, append([]string{"recommend", "--model", mp}, c.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
			for _, w := range c.dont {
				if strings.Contains(stderr, w) {
					t.Errorf("stderr %q has %q", stderr, w)
				}
			}
		})
	}
}

// A --save that fails while writing (/dev/full: the check passes, the
// write fails) prints no summary or privacy report: nothing claims a
// release that did not happen; exit 1.
func TestFailedSavePrintsNoReport(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	dir := t.TempDir()
	writeExampleData(t, dir)
	base := filepath.Join(dir, "u1.base")
	for _, args := range [][]string{
		{"train", "--data", base, "--algo", "als", "--mechanism", "none", "--rank", "2", "--iters", "1", "--save", "/dev/full"},
		{"train", "--privacy", "user", "--epsilon", "5", "--seed", "1", "--data", base, "--save", "/dev/full"},
	} {
		stdout, stderr, code := dpmc(t, args...)
		if code != 1 || stdout != "" || !strings.Contains(stderr, "--save") || strings.Contains(stderr, "wrote") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 1, no output", args, code, stdout, stderr)
		}
	}
}

// --workers out of range is blamed on --workers, not on --rank.
func TestWorkersBound(t *testing.T) {
	dir := t.TempDir()
	writeExampleData(t, dir)
	for _, w := range []string{"9000000000000000000", "-1"} {
		for _, mode := range []string{"paper", "user"} {
			_, stderr, code := dpmc(t, "train", "--privacy", mode, "--mechanism", "none", "--data", filepath.Join(dir, "u1.base"), "--workers", w)
			if code != 1 || !strings.HasPrefix(stderr, "dpmc: --workers = "+w+", want in [0, 4096]") {
				t.Errorf("%s --workers %s: exit %d, stderr %q", mode, w, code, stderr)
			}
		}
	}
}

// utility and reproduce check --report before any work: a folder that
// does not exist is an error naming --report (utility no longer creates
// it), as is a --report that is a folder.
func TestReportCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no", "such", "R.md")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"utility, no folder", []string{"utility", "--quick", "--output-dir", filepath.Join(dir, "u"), "--report", missing}, "utility: --report: " + missing},
		{"utility, a folder", []string{"utility", "--quick", "--output-dir", filepath.Join(dir, "u"), "--report", dir}, "is a directory"},
		{"reproduce, no folder", []string{"reproduce", "--quick", "--table", "3", "--output-dir", filepath.Join(dir, "r"), "--report", missing}, "--report: " + missing},
		{"reproduce, a folder", []string{"reproduce", "--quick", "--table", "3", "--output-dir", filepath.Join(dir, "r"), "--report", dir}, "is a directory"},
	} {
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, code := dpmc(t, c.args...)
			if code != 1 || !strings.Contains(stderr, c.want) || stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and %q", code, stdout, stderr, c.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "no")); err == nil {
				t.Error("the --report folder was created")
			}
		})
	}
}

// utility finds MovieLens 100k as the archive unpacks it (ml-100k/) as
// well as movielens-100k/; reproduce, which reads movielens-100k/ only,
// says where an ml-100k/ it found should go.
func TestMovieLensFolderNames(t *testing.T) {
	for _, name := range []string{"movielens-100k", "ml-100k"} {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name, "u1.base"), []byte("1\t1\t5\t0\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := utilityDataDir(dir); got != filepath.Join(dir, name) {
			t.Errorf("utilityDataDir with %s/: %q", name, got)
		}
		hint := movieLensHint("6", dir)
		if (name == "ml-100k") != strings.Contains(hint, "found "+filepath.Join(dir, "ml-100k")) {
			t.Errorf("movieLensHint with %s/: %q", name, hint)
		}
		if h := movieLensHint("7", dir); h != "" {
			t.Errorf("movieLensHint for table 7: %q", h)
		}
	}
	if got := utilityDataDir(t.TempDir()); got != "" {
		t.Errorf("utilityDataDir of an empty folder: %q", got)
	}
}

// Under --unknown error predict's count line does not speak of fallbacks.
func TestPredictCountLine(t *testing.T) {
	dir, mp := hardeningFiles(t)
	test := filepath.Join(dir, "u1.test")
	for _, c := range []struct {
		unknown, want, dont string
	}{
		{"error", "every user and item known to the model", "fallback"},
		{"fallback", "with an unknown item (fallback)", "every user"},
	} {
		_, stderr, code := dpmc(t, "predict", "--model", mp, "--pairs", test, "--unknown", c.unknown, "-o", filepath.Join(dir, c.unknown+".tsv"))
		if code != 0 || !strings.Contains(stderr, c.want) || strings.Contains(stderr, c.dont) {
			t.Errorf("--unknown %s: exit %d, stderr %q", c.unknown, code, stderr)
		}
	}
}
