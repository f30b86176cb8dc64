package userdp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// F4, F6: claims that were false are gone from the docs and the report
// text, and the corrected ones are there. (μ, biases and V are
// post-processing of the noisy statistics, so they are not multiples of
// γ; --sampler float draws floating-point noise even unseeded in paper
// mode and dpmc sample; the default rule was tuned on MovieLens 100k.)
func TestDocClaims(t *testing.T) {
	files, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	own, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	files = append(append(files, "../README.md"), own...)
	gone := []string{
		"every released number is a multiple",
		"every released\nnumber is a multiple",
		"every released\n// number is a multiple",
		"every output is exactly a multiple of γ",
		"not by looking at any one private data set",
		"Every unseeded run — the user-level releases",
		"mechanism every unseeded release uses",
	}
	for _, f := range files {
		if strings.HasSuffix(f, "claims_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range gone {
			if strings.Contains(string(b), c) {
				t.Errorf("%s still says %q", f, c)
			}
		}
	}
	pm, err := os.ReadFile("../docs/private-models.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(pm), "tuned on\nMovieLens 100k") || !strings.Contains(string(pm), "is not covered for the choice of the rule") {
		t.Error("docs/private-models.md does not say that the rule was tuned on MovieLens 100k")
	}
	var b strings.Builder
	r := &Report{Sampler: "discrete", Epsilon: 1, Delta: 1e-6}
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "post-processing") {
		t.Errorf("the report's noise line does not say that μ, biases and V are post-processing:\n%s", b.String())
	}
}
