//go:build !race

package release

// raceEnabled: see race_on_test.go.
const raceEnabled = false
