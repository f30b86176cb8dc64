package model_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/dpmc/dpmc/model"
	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/userdp"
)

// Train a user-level private model from a ratings file and save it. The
// file holds the release only: item IDs, biases, factors, noisy counts,
// the centre and the privacy report, nothing per user.
func Example_trainAndSave() {
	data, err := ratings.Load("testdata/ratings.tsv", ratings.Options{})
	if err != nil {
		panic(err)
	}
	opts := userdp.Defaults(5, 1e-6, data.Min, data.Max) // total ε = 5, δ = 1e-6
	opts.Seeded, opts.Seed = true, 1                     // reproducible for this example: NOT private
	res, err := userdp.Train(context.Background(), data, opts)
	if err != nil {
		panic(err)
	}
	m, err := model.FromUserLevel(res, opts)
	if err != nil {
		panic(err)
	}
	dir, _ := os.MkdirTemp("", "dpmc-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "model.dpmc")
	if err := m.Save(path, false); err != nil {
		panic(err)
	}
	back, err := model.Load(path)
	if err != nil {
		panic(err)
	}
	fmt.Println("kind:", back.Kind)
	fmt.Println("users in the file:", len(back.UserIDs))
	fmt.Println("same items:", len(back.ItemIDs) == len(res.ItemIDs))
	fmt.Printf("total: ε = %.2f, δ = %.0e (what an unseeded run guarantees)\n", res.Report.TotalEpsilon, res.Report.TotalDelta)
	// Output:
	// kind: user
	// users in the file: 0
	// same items: true
	// total: ε = 5.00, δ = 1e-06 (what an unseeded run guarantees)
}

// Load a user-level model and recommend for a user who is not in it: the
// user's bias and factor are computed from the model and the user's own
// ratings, in this process (the billboard model).
func Example_recommend() {
	m, err := model.Load("testdata/small.dpmc")
	if err != nil {
		panic(err)
	}
	me := model.History{Items: []string{"1", "2", "3", "10"}, Ratings: []float64{5, 4, 1, 5}}
	rec, err := m.RecommendUser(model.Request{User: "me", History: &me, K: 3})
	if err != nil {
		panic(err)
	}
	for _, s := range rec.Items {
		fmt.Printf("%s %.3f\n", s.ID, s.Score)
	}
	fmt.Println("excluded:", rec.Excluded)
	// Output:
	// 84 4.166
	// 140 4.040
	// 230 4.015
	// excluded: 4
}

// Predict a file of (user, item) pairs with a user-level model: the
// users' histories and the pairs are read as dpmc train reads ratings
// (here csv with quoted IDs), with the model's rating range; each user is
// folded in from the user's history.
func Example_predictPairs() {
	m, err := model.Load("testdata/small.dpmc")
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	opts := ratings.Options{Min: m.Min, Max: m.Max}
	hist, _, err := model.ReadPairs(ctx, strings.NewReader("user,item,rating\n\"me\",\"1\",5\n\"me\",\"2\",4\n\"you\",\"3\",1\n"), "history.csv", opts)
	if err != nil {
		panic(err)
	}
	h, err := model.GroupHistories(hist, "history.csv")
	if err != nil {
		panic(err)
	}
	pairs, _, err := model.ReadPairs(ctx, strings.NewReader("\"me\",\"10\"\n\"you\",\"10\"\n"), "pairs.csv", opts)
	if err != nil {
		panic(err)
	}
	preds, st, err := m.PredictPairs(ctx, pairs, model.PredictOptions{Clip: true, Histories: h, Name: "pairs.csv"})
	if err != nil {
		panic(err)
	}
	for _, p := range preds {
		fmt.Printf("%s %s %.3f\n", p.User, p.Item, p.Score)
	}
	fmt.Println("folded in:", st.FoldedIn)
	// Output:
	// me 10 3.961
	// you 10 3.242
	// folded in: 2
}
