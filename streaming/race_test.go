//go:build race

package streaming_test

// raceDetector: the race detector slows the fuzzed-filter isolation test
// twentyfold; under it that test runs a fiftieth of its filters, and
// scripts/test.sh runs it whole without the detector.
const raceDetector = true
