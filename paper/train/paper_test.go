package train_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/discrete"
	"github.com/dpmc/dpmc/noise/laplace"
	"github.com/dpmc/dpmc/paper/train"
	"github.com/dpmc/dpmc/solver"
	"github.com/dpmc/dpmc/synthetic"
)

// epsilonDelta matches a JSON key that names an ε or a δ.
var epsilonDelta = regexp.MustCompile(`(?i)epsilon|delta|ε|δ`)

// noGuaranteeFigures fails if the JSON document doc, whose privacy
// guarantee is "none", holds a numeric ε or δ where a reader could take
// it for a guarantee: at its top level, or at the top level of any object
// whose "guarantee" is "none". It returns the objects with guarantee
// "none", and fails if there is none (the check would be vacuous).
func noGuaranteeFigures(t *testing.T, name string, doc []byte) []map[string]any {
	t.Helper()
	var top map[string]any
	if err := json.Unmarshal(doc, &top); err != nil {
		t.Fatalf("%s: not a JSON object: %v\n%s", name, err, doc)
	}
	var none []map[string]any
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if v["guarantee"] == "none" {
				none = append(none, v)
			}
			for _, e := range v {
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(top)
	if len(none) == 0 {
		t.Fatalf(`%s: no object with "guarantee": "none"`, name)
	}
	for _, obj := range append([]map[string]any{top}, none...) {
		for k, v := range obj {
			if _, num := v.(float64); num && epsilonDelta.MatchString(k) {
				t.Errorf(`%s: numeric %q = %v beside "guarantee": "none" reads as a guarantee`, name, k, v)
			}
		}
	}
	return none
}

// TestPaperJSONStatesNoGuarantee: paper mode's JSON report (dpmc train
// --json) and the header of its saved model carry no numeric ε or δ
// beside "guarantee": "none"; the paper's figures are nested under
// "not_a_guarantee", marked as the ideal mechanism's under the float
// sampler.
func TestPaperJSONStatesNoGuarantee(t *testing.T) {
	p, err := synthetic.Generate(synthetic.Options{Rows: 40, Cols: 30, Rank: 2, Observed: 0.3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	data := &train.Data{Describe: "test", Train: p.Observed, Min: 1, Max: 5}
	lap, err := laplace.New(1)
	if err != nil {
		t.Fatal(err)
	}
	exact, err := discrete.For(lap)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		sampler  string
		noise    noise.Mechanism
		delivers bool
	}{
		{"float", lap, false},
		{"discrete", exact, true},
	} {
		t.Run(tt.sampler, func(t *testing.T) {
			o := solver.Options{Rank: 2, Lambda: 0.5, Iters: 2, Noise: tt.noise, Seeded: true, Seed: 3, Workers: 1}
			run, err := train.Paper(context.Background(), data, o, train.Settings{Delta: 1e-6})
			if err != nil {
				t.Fatal(err)
			}
			var js bytes.Buffer
			if err := run.WriteJSON(&js); err != nil {
				t.Fatal(err)
			}
			m, err := run.Model()
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "paper.dpmc")
			if err := m.Save(path, false); err != nil {
				t.Fatal(err)
			}
			file, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			// The header is the JSON after the 16-byte preamble, whose
			// last 4 bytes are its length (docs/model-format.md).
			header := file[16 : 16+binary.LittleEndian.Uint32(file[12:16])]
			for name, doc := range map[string][]byte{"report": js.Bytes(), "model header": header} {
				none := noGuaranteeFigures(t, name, doc)
				fig, _ := none[0]["not_a_guarantee"].(map[string]any)
				if none[0]["sampler"] != tt.sampler || fig["sampler_delivers_mechanism"] != tt.delivers ||
					fig["per_release_epsilon_if_sensitivity_held"] == nil || fig["composed_epsilon_if_sensitivity_held"] == nil {
					t.Errorf("%s: privacy %v", name, none[0])
				}
			}
		})
	}
}
