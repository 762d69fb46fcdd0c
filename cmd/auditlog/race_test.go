//go:build race

package main

// raceDetector: the race detector slows serve several times over; tests
// that size their work to take a while (a demo seed long enough to be
// seen starting) size it down under it.
const raceDetector = true
