//go:build race

package store

// raceEnabled scales down the sequential property test under the race
// detector, which finds nothing in single-goroutine code and slows it ~10x.
const raceEnabled = true
