package accounting

import (
	"context"
	"errors"
	"testing"

	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/discrete"
	"github.com/dpmc/dpmc/noise/huber"
)

// A cancelled context stops every composing and calibrating entry point
// with an error wrapping context.Canceled, before any long work.
func TestContextCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	h, err := huber.New(1, 1)
	if err != nil {
		t.Fatal(err)
	}
	d, err := discrete.For(h)
	if err != nil {
		t.Fatal(err)
	}
	s := noise.Sensitivity{L1: 1, L2: 1}
	const k = 100_000_000
	huberAt := func(p float64) (noise.Mechanism, error) { return huber.New(1, p) }
	for _, c := range []struct {
		name string
		run  func() error
	}{
		{"ComposeContext", func() error { _, err := ComposeContext(ctx, h, s, k, 1e-6); return err }},
		{"ComposeDiscreteContext", func() error { _, _, err := ComposeDiscreteContext(ctx, d, s, 1, k, 1e-6); return err }},
		{"CalibrateContext", func() error { _, _, err := CalibrateContext(ctx, huberAt, s, k, 1, 1e-6, 0.1, 1e6); return err }},
		{"CalibrateDiscreteContext", func() error {
			_, _, err := CalibrateDiscreteContext(ctx, func(p float64) (discrete.Mechanism, error) {
				m, err := huber.New(1, p)
				if err != nil {
					return nil, err
				}
				return discrete.For(m)
			}, s, 1, k, 1, 1e-6, 0.1, 1e6)
			return err
		}},
	} {
		if err := c.run(); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: err = %v, want context.Canceled", c.name, err)
		}
	}
}

// KOV's bisection, the accountant that takes seconds at k = 10⁸, checks
// its stop function at every step: a stop that fires at the third check
// ends it there with its error.
func TestKOVEpsilonStops(t *testing.T) {
	errStop := errors.New("stop")
	calls := 0
	stop := func() error {
		calls++
		if calls == 3 {
			return errStop
		}
		return nil
	}
	if _, err := kovEpsilon(stop, 0.1, 1000, 1e-6); !errors.Is(err, errStop) || calls != 3 {
		t.Errorf("err = %v after %d checks, want the stop error at the 3rd", err, calls)
	}
	calls = -1 << 30 // never fires
	eps, err := kovEpsilon(stop, 0.1, 1000, 1e-6)
	if err != nil || !(eps > 0) {
		t.Errorf("uncancelled: ε = %v, err = %v", eps, err)
	}
}
