//go:build race

package solver

// raceEnabled is true when the tests run under the race detector, which
// slows arithmetic tenfold: tests that check numbers, not concurrency,
// skip then (they run in the plain pass).
const raceEnabled = true
