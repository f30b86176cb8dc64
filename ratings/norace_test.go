//go:build !race

package ratings

// raceEnabled is true when the tests run under the race detector; see
// race_test.go.
const raceEnabled = false
