// Package syncbuf is a text buffer that several goroutines may write while
// a test reads it: the log sink of tests that watch what an informer, an
// elector, a listener or a child process wrote, from goroutines the test
// does not own.
//
// It has no place in kcm's pipeline; it exists so that the packages'
// tests share one such buffer instead of each keeping its own copy.
package syncbuf
