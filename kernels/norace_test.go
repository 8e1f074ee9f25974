//go:build !race

package kernels

// raceEnabled tells that the tests run under the race detector (see
// race_test.go).
const raceEnabled = false
