package model

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The Python reader in docs/model-format.md, run on a paper model and a
// user-level model this test saves, predicts what Go predicts to 1e-12.
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
	for i, uid := range pm.UserIDs {
		for j, id := range pm.ItemIDs {
			u, _ := pm.UserAt(i)
			qs = append(qs, query{Path: pp, Item: id, User: uid})
			want = append(want, pm.Predict(u, j))
		}
	}
	qj, _ := json.Marshal(qs)
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
print(json.dumps(out))
`
	sp := filepath.Join(dir, "snippet.py")
	os.WriteFile(sp, []byte(script), 0o644)
	out, err := exec.Command(py, sp, string(qj)).CombinedOutput()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, out)
	}
	var got []float64
	if err := json.Unmarshal(out, &got); err != nil || len(got) != len(want) {
		t.Fatalf("python output %q: %v", out, err)
	}
	for k := range want {
		if math.Abs(got[k]-want[k]) > 1e-12 {
			t.Errorf("query %d (%s): python %v, Go %v", k, fmt.Sprint(qs[k].Item), got[k], want[k])
		}
	}
	if um.Rank == 0 {
		t.Error("the user-level model has no factors: the test would not test them")
	}
}
