package laplace_test

import (
	"fmt"

	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/laplace"
)

func ExampleScaleForEpsilon() {
	b, err := laplace.ScaleForEpsilon(1, 5)
	if err != nil {
		panic(err)
	}
	m, _ := laplace.New(b)
	g, _ := m.Guarantee(noise.Sensitivity{L1: 5}, 0)
	fmt.Printf("%v, variance %g: %v\n", m, m.Variance(), g)
	// Output:
	// laplace(b=5), variance 50: ε = 1 (pure ε-DP)
}
