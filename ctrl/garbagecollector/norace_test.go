//go:build !race

package garbagecollector

const raceEnabled = false
