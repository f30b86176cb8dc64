// Command cmpmodels compares two user-level model files: items, and how
// far apart their factors, biases, counts and privacy reports are (for the
// scale runs of beam/README.md).
//
//	go run ./internal/cmd/cmpmodels A.dpmc B.dpmc
package main

import (
	"fmt"
	"math"
	"os"
	"slices"

	"github.com/dpmc/dpmc/model"
)

func main() {
	a, err := model.Load(os.Args[1])
	if err != nil {
		panic(err)
	}
	b, err := model.Load(os.Args[2])
	if err != nil {
		panic(err)
	}
	maxrel := func(x, y []float64) float64 {
		var s, d float64
		for k := range y {
			s = math.Max(s, math.Abs(y[k]))
			d = math.Max(d, math.Abs(x[k]-y[k]))
		}
		return d / s
	}
	fmt.Println("items equal:", slices.Equal(a.ItemIDs, b.ItemIDs), len(a.ItemIDs), "rank", a.Rank, b.Rank)
	if slices.Equal(a.ItemIDs, b.ItemIDs) {
		fmt.Println("V bit-equal:", slices.Equal(a.V, b.V), "max rel diff", maxrel(a.V, b.V))
		fmt.Println("biases bit-equal:", slices.Equal(a.ItemBias, b.ItemBias), "counts bit-equal:", slices.Equal(a.Counts, b.Counts), "mu", a.Mu == b.Mu, "tail", a.TailBias == b.TailBias)
		fmt.Println("report equal:", string(a.Privacy) == string(b.Privacy))
	}
}
