//go:build !race

package streaming_test

const raceDetector = false
