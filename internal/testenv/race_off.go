//go:build !race

package testenv

// Race reports whether the test binary was built with -race (test.sh's
// second pass). See [ShrinkUnderRace].
const Race = false
