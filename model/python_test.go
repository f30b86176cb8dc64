package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpmc/dpmc/userdp"
)

// The Python reader in docs/model-format.md, run on a paper model and
// user-level models this test saves (one with tail buckets, queried for
// items outside it too), predicts what Go predicts to 1e-12.
func TestPythonSnippet(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not on PATH")
	}
	doc, err := os.ReadFile("../docs/model-format.md")
	if err != nil {
		t.Fatal(err)
	}
	_, code, ok := strings.Cut(string(doc), "```python\n")
	code, _, ok2 := strings.Cut(code, "```")
	if !ok || !ok2 {
		t.Fatal("no python block in docs/model-format.md")
	}
	dir := t.TempDir()
	train, _ := split(t)
	res, o := userLevel(t, train)
	um, err := FromUserLevel(res, o)
	if err != nil {
		t.Fatal(err)
	}
	user, _, err := um.FoldIn(History{Items: um.ItemIDs[:5], Ratings: []float64{5, 4, 1, 2, 5}})
	if err != nil {
		t.Fatal(err)
	}
	pm := &Model{Kind: Paper, Min: 1, Max: 5, Mu: 0.25, Rank: 3, ItemIDs: []string{"x", "y"}, ItemBias: []float64{0, 0},
		V: []float64{1.5, -2, 0.125, 3, 1e-3, -7}, UserIDs: []string{"p", "q"}, U: []float64{0.3, 0.2, -0.1, 1, 1, 1}}
	up, pp := filepath.Join(dir, "user.dpmc"), filepath.Join(dir, "paper.dpmc")
	if err := um.Save(up, false); err != nil {
		t.Fatal(err)
	}
	if err := pm.Save(pp, false); err != nil {
		t.Fatal(err)
	}
	type query struct {
		Path, Item, User string
		Factor           []float64
		Bias             float64
	}
	var qs []query
	var want []float64
	for j, id := range um.ItemIDs {
		qs = append(qs, query{Path: up, Item: id, Factor: user.Factor, Bias: user.Bias})
		want = append(want, um.Predict(user, j))
	}
	// A model with tail buckets: items in it and items outside it.
	ob := userdp.Defaults(50, 1e-6, train.Min, train.Max)
	ob.Seeded, ob.Seed, ob.TailBuckets = true, 9, 256
	rb, err := userdp.Train(context.Background(), train, ob)
	if err != nil {
		t.Fatal(err)
	}
	bm, err := FromUserLevel(rb, ob)
	if err != nil {
		t.Fatal(err)
	}
	bp := filepath.Join(dir, "buckets.dpmc")
	if err := bm.Save(bp, false); err != nil {
		t.Fatal(err)
	}
	hist := History{Items: []string{train.Items.ID(0), train.Items.ID(1), train.Items.ID(2), "never-seen"}, Ratings: []float64{5, 1, 4, 2}}
	bu, _, err := bm.FoldIn(hist)
	if err != nil {
		t.Fatal(err)
	}
	outside := 0
	for j := range train.Items.Len() {
		id := train.Items.ID(j)
		qs = append(qs, query{Path: bp, Item: id, Factor: bu.Factor, Bias: bu.Bias})
		if k, ok := bm.Item(id); ok {
			want = append(want, bm.Predict(bu, k))
		} else {
			want = append(want, bm.FallbackItem(bu, bm.TailIndex(id)))
			outside++
		}
	}
	if len(bm.BucketBias) != 256 || outside == 0 {
		t.Fatalf("%d tail buckets, %d items outside the model: nothing to test", len(bm.BucketBias), outside)
	}
	for i, uid := range pm.UserIDs {
		for j, id := range pm.ItemIDs {
			u, _ := pm.UserAt(i)
			qs = append(qs, query{Path: pp, Item: id, User: uid})
			want = append(want, pm.Predict(u, j))
		}
	}
	// The version-2 fixture: read without a checksum.
	m2, err := Load("testdata/small-v2.dpmc")
	if err != nil {
		t.Fatal(err)
	}
	v2, err := filepath.Abs("testdata/small-v2.dpmc")
	if err != nil {
		t.Fatal(err)
	}
	u2, _, err := m2.FoldIn(History{Items: m2.ItemIDs[:3], Ratings: []float64{1, 5, 4}})
	if err != nil {
		t.Fatal(err)
	}
	for j, id := range m2.ItemIDs[:10] {
		qs = append(qs, query{Path: v2, Item: id, Factor: u2.Factor, Bias: u2.Bias})
		want = append(want, m2.Predict(u2, j))
	}
	// One flipped bit of the header ("mu"): the reader must refuse it.
	b, err := os.ReadFile(up)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(b, []byte(`"mu": `))
	if at < 0 {
		t.Fatal(`no "mu" in the header`)
	}
	b[at+len(`"mu": `)] ^= 0x01
	flipped := filepath.Join(dir, "flipped.dpmc")
	if err := os.WriteFile(flipped, b, 0o644); err != nil {
		t.Fatal(err)
	}
	// A ranking model: the snippet's rank_scores against Go's.
	rm, _ := rankingModel(t, train, false)
	rp := filepath.Join(dir, "ranking.dpmc")
	if err := rm.Save(rp, false); err != nil {
		t.Fatal(err)
	}
	type rankQuery struct {
		Path    string
		History []string
	}
	var rqs []rankQuery
	var rwant [][]float64
	for _, hist := range [][]int32{{0, 3, 7, 11, 40}, {int32(rm.Ranking.Head[0]), int32(rm.Ranking.Head[2])}, {int32(len(rm.ItemIDs) - 1)}} {
		q := rankQuery{Path: rp}
		for _, j := range hist {
			q.History = append(q.History, rm.ItemIDs[j])
		}
		rqs = append(rqs, q)
		rwant = append(rwant, rm.RankScores(hist, false, nil))
	}
	qj, _ := json.Marshal(qs)
	rj, _ := json.Marshal(rqs)
	script := code + `
import sys
out = []
cache = {}
for q in json.loads(sys.argv[1]):
    if q["Path"] not in cache:
        cache[q["Path"]] = load_model(q["Path"])
    h, a = cache[q["Path"]]
    if q["User"]:
        out.append(predict(h, a, q["Item"], user=q["User"]))
    else:
        out.append(predict(h, a, q["Item"], factor=q["Factor"], bias=q["Bias"]))
ranks = []
for q in json.loads(sys.argv[3]):
    if q["Path"] not in cache:
        cache[q["Path"]] = load_model(q["Path"])
    h, a = cache[q["Path"]]
    ranks.append([None if x == float("-inf") else x for x in rank_scores(h, a, q["History"])])
try:
    load_model(sys.argv[2])
    refused = ""
except ValueError as e:
    refused = str(e)
print(json.dumps({"predictions": out, "ranks": ranks, "flipped": refused}))
`
	sp := filepath.Join(dir, "snippet.py")
	os.WriteFile(sp, []byte(script), 0o644)
	out, err := exec.Command(py, sp, string(qj), flipped, string(rj)).CombinedOutput()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, out)
	}
	var pyOut struct {
		Predictions []float64
		Ranks       [][]*float64
		Flipped     string
	}
	if err := json.Unmarshal(out, &pyOut); err != nil || len(pyOut.Predictions) != len(want) {
		t.Fatalf("python output %q: %v", out, err)
	}
	got := pyOut.Predictions
	if !strings.Contains(pyOut.Flipped, "checksum") {
		t.Errorf("python read a file with a flipped header bit: %q, want a checksum error", pyOut.Flipped)
	}
	if _, err := Load(flipped); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "checksum") {
		t.Errorf("Load of the flipped file: %v, want a checksum error", err)
	}
	for k := range want {
		if math.Abs(got[k]-want[k]) > 1e-12 {
			t.Errorf("query %d (%s): python %v, Go %v", k, fmt.Sprint(qs[k].Item), got[k], want[k])
		}
	}
	if len(pyOut.Ranks) != len(rwant) {
		t.Fatalf("python: %d rankings, want %d", len(pyOut.Ranks), len(rwant))
	}
	for k, want := range rwant {
		got := pyOut.Ranks[k]
		if len(got) != len(want) {
			t.Fatalf("ranking %d: python %d scores, Go %d", k, len(got), len(want))
		}
		for j, w := range want {
			switch {
			case math.IsInf(w, -1) != (got[j] == nil):
				t.Errorf("ranking %d, item %d: python %v, Go %v", k, j, got[j], w)
			case got[j] != nil && math.Abs(*got[j]-w) > 1e-12:
				t.Errorf("ranking %d, item %d: python %v, Go %v", k, j, *got[j], w)
			}
		}
	}
	if um.Rank == 0 {
		t.Error("the user-level model has no factors: the test would not test them")
	}
}
