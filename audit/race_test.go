//go:build race

package audit

// raceEnabled is true when the tests run under the race detector, which
// slows sampling about tenfold: the statistical tests (10⁵–10⁶ draws or
// 1000 training runs per case, checking numbers, not concurrency) skip
// then; they run in the plain pass, and the tests of the concurrent paths
// (workers, progress, cancellation) run in both.
const raceEnabled = true
