// Package report turns `go test -bench` output of the bench suite into the
// comparison table of RESULTS.md: one row per figure, one column per
// engine, the ratio of kcm to client-go and the design target it is held
// to.
//
//	go test -bench (text) ──Parse──▶ Set (medians over -count) ──Rows──▶ []Row ──Markdown──▶ table
//
// Benchmark names are read as figure/…/engine with an optional -P suffix,
// GOMAXPROCS, that the testing package appends when P is not 1. Repeated
// runs of one benchmark (-count) are summarised by their median.
//
// It has no client-go counterpart.
package report
