//go:build race

package kernels

// raceEnabled tells that the tests run under the race detector, whose
// instrumentation slows some code more than other code, which tests that
// time one computation against another cannot allow for.
const raceEnabled = true
