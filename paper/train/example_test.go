package train_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/dpmc/dpmc/model"
	"github.com/dpmc/dpmc/paper/train"
	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/rng"
	"github.com/dpmc/dpmc/solver"
)

// Train the paper's (non-private) ALS from a file, print the report's
// test metrics, save the model and predict with the loaded copy, which
// predicts exactly what the in-memory model does.
func ExamplePaper() {
	d, err := ratings.Load("../../model/testdata/ratings.tsv", ratings.Options{})
	if err != nil {
		panic(err)
	}
	tr, te, err := ratings.Split(d, 0.2, rng.Seeded(1))
	if err != nil {
		panic(err)
	}
	data := &train.Data{Describe: "example", Train: tr.Ratings, Test: te.Ratings, Users: tr.Users, Items: tr.Items, Min: tr.Min, Max: tr.Max}
	opts := solver.Options{Algorithm: solver.ALS, Rank: 4, Lambda: 0.1, LambdaScale: solver.LambdaCount, Iters: 5, Seeded: true, Seed: 2}
	run, err := train.Paper(context.Background(), data, opts, train.Settings{Delta: 1e-6})
	if err != nil {
		panic(err)
	}
	t := run.TestMetrics
	fmt.Printf("ranked %d users at k = %d, relevant ≥ %g\n", t.Users, t.K, t.Threshold)
	m, err := run.Model()
	if err != nil {
		panic(err)
	}
	dir, _ := os.MkdirTemp("", "dpmc-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "paper.dpmc")
	if err := m.Save(path, false); err != nil {
		panic(err)
	}
	back, err := model.Load(path)
	if err != nil {
		panic(err)
	}
	u, _ := back.UserAt(0)
	fmt.Println("kind:", back.Kind, "users:", len(back.UserIDs))
	fmt.Println("bit-identical:", back.Predict(u, 5) == run.SolverModel().Predict(0, 5))
	// Output:
	// ranked 99 users at k = 10, relevant ≥ 4
	// kind: paper users: 100
	// bit-identical: true
}
