package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpmc/dpmc/metrics"
	"github.com/dpmc/dpmc/model"
	"github.com/dpmc/dpmc/ratings"
)

// skewedFiles writes a training and a test file of 200 users and 80
// items whose popularity falls with the item number (so that a private
// release leaves out the tail), the test file with one cold item.
func skewedFiles(t *testing.T) (train, test string) {
	t.Helper()
	dir := t.TempDir()
	var tr, te strings.Builder
	for u := range 200 {
		for j := range 80 {
			if (u*31+j*17)%100 >= 90-j {
				continue // item j is rated by about (90 − j)% of users
			}
			x := 1 + (u%5+j%3+(u*j)%4)%5
			if (u+2*j)%5 == 0 {
				fmt.Fprintf(&te, "%d\t%d\t%d\n", u, j, x)
			} else {
				fmt.Fprintf(&tr, "%d\t%d\t%d\n", u, j, x)
			}
		}
	}
	fmt.Fprintf(&te, "3\tcold\t5\n")
	train, test = filepath.Join(dir, "train.tsv"), filepath.Join(dir, "test.tsv")
	os.WriteFile(train, []byte(tr.String()), 0o644)
	os.WriteFile(test, []byte(te.String()), 0o644)
	return train, test
}

// predict's ranking metrics, with the training file as --history, are
// train's for its test set, to the bit: same users, same candidates, and
// relevant test items that a private release left out count as missed.
func TestPredictMetricsEqualTrain(t *testing.T) {
	trainFile, testFile := skewedFiles(t)
	for _, c := range []struct {
		name string
		args []string
		path []string
	}{
		{"paper", []string{"--algo", "als", "--rank", "2", "--iters", "3", "--mechanism", "none"}, []string{"test_metrics"}},
		{"user", []string{"--privacy", "user", "--epsilon", "1", "--rank", "2"}, []string{"evaluation_only_not_released", "test_metrics"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			mp := filepath.Join(t.TempDir(), "m.dpmc")
			args := append([]string{"train", "--data", trainFile, "--test", testFile, "--seed", "1", "--output-format", "json", "--save", mp}, c.args...)
			out, stderr, code := dpmc(t, args...)
			if code != 0 {
				t.Fatal(stderr)
			}
			raw := json.RawMessage(out)
			for _, k := range c.path {
				var v map[string]json.RawMessage
				if err := json.Unmarshal(raw, &v); err != nil {
					t.Fatal(err)
				}
				raw = v[k]
			}
			var want metrics.Result
			if err := json.Unmarshal(raw, &want); err != nil || want.Users == 0 || want.PrecisionJSON == nil || want.RecallJSON == nil || want.NDCGJSON == nil || want.MAPJSON == nil {
				t.Fatalf("train's test metrics %s: %v", raw, err)
			}
			m, err := model.Load(mp)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			opts := ratings.Options{Min: m.Min, Max: m.Max}
			pairs, _, err := model.LoadPairs(ctx, testFile, opts)
			if err != nil {
				t.Fatal(err)
			}
			h, _, err := model.LoadHistories(ctx, trainFile, opts)
			if err != nil {
				t.Fatal(err)
			}
			if c.name == "user" {
				// The test must see relevant items that the release left out.
				missing := 0
				for _, p := range pairs {
					if _, ok := m.Item(p.Item); !ok && p.Rating >= 4 && p.Item != "cold" {
						missing++
					}
				}
				if missing == 0 {
					t.Fatal("the release holds every relevant test item: the test would not test them")
				}
			}
			o := model.PredictOptions{Unknown: model.UnknownFallback, Histories: h, Name: testFile}
			preds, _, err := m.PredictPairs(ctx, pairs, o)
			if err != nil {
				t.Fatal(err)
			}
			got, err := m.EvaluatePairs(ctx, preds, o, metrics.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got.Users != want.Users || got.K != want.K {
				t.Errorf("predict ranks %d users at k %d, train %d at %d", got.Users, got.K, want.Users, want.K)
			}
			for _, x := range [][3]any{{"precision", got.Precision, *want.PrecisionJSON}, {"recall", got.Recall, *want.RecallJSON}, {"NDCG", got.NDCG, *want.NDCGJSON}, {"MAP", got.MAP, *want.MAPJSON}} {
				g, w := x[1].(float64), x[2].(float64)
				if math.Float64bits(g) != math.Float64bits(w) || math.IsNaN(g) {
					t.Errorf("%s@10: predict %v, train %v", x[0], g, w)
				}
			}
		})
	}
}
