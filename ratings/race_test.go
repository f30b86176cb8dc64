//go:build race

package ratings

// raceEnabled is true when the tests run under the race detector, which
// slows them tenfold: the tests that compare the chunked parser with the
// line-by-line one then try fewer chunk sizes and readers.
const raceEnabled = true
