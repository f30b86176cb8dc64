//go:build race

package main

// raceEnabled is true under the race detector, which slows arithmetic
// tenfold: tests of whole long runs skip then (they run in the plain pass).
const raceEnabled = true
