package pipeline_test

import (
	"context"
	"fmt"

	"github.com/dpmc/dpmc/beam/pipeline"
	"github.com/dpmc/dpmc/userdp"
)

// A run from files to a model file, on the runner named by Beam's
// --runner flag (Prism, in process, by default). Call beam.Init() first in
// main.
func ExampleRun() {
	cfg := &pipeline.Config{Files: []string{"ratings-*.csv"}, Save: "model.dpmc"}
	lo, hi, err := pipeline.Resolve(cfg) // files, format and rating range
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg.Options = userdp.Defaults(1, 1e-6, lo, hi) // as dpmc train --privacy user --epsilon 1
	if _, err := pipeline.Run(context.Background(), cfg); err != nil {
		fmt.Println(err)
	}
}
