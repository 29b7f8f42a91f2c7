//go:build race

package garbagecollector

// raceEnabled: the race detector's shadow memory and larger allocations
// change what TestMemoryPerObject measures (see its budgets).
const raceEnabled = true
