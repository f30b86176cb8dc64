//go:build !race

package userdp

const raceEnabled = false
