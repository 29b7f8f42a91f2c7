package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
)

// lineTap is an io.Writer that keeps every complete line written to it and
// lets a test await a line without sleeping.
type lineTap struct {
	mu    sync.Mutex
	part  []byte   // an incomplete last line
	lines []string // guarded by mu
	// kick is signalled (without blocking) after each Write.
	kick chan struct{}
}

func newLineTap() *lineTap { return &lineTap{kick: make(chan struct{}, 1)} }

func (l *lineTap) Write(p []byte) (int, error) {
	l.mu.Lock()
	l.part = append(l.part, p...)
	for {
		i := strings.IndexByte(string(l.part), '\n')
		if i < 0 {
			break
		}
		l.lines = append(l.lines, string(l.part[:i]))
		l.part = l.part[i+1:]
	}
	l.mu.Unlock()
	select {
	case l.kick <- struct{}{}:
	default:
	}
	return len(p), nil
}

// all returns a copy of the lines so far.
func (l *lineTap) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

// await returns the index of the first line at or after from that
// contains every one of parts, waiting for it until ctx ends.
func (l *lineTap) await(ctx context.Context, from int, parts ...string) (int, error) {
	for {
		lines := l.all()
		for i := from; i < len(lines); i++ {
			if containsAll(lines[i], parts) {
				return i, nil
			}
		}
		select {
		case <-ctx.Done():
			return -1, fmt.Errorf("no line with %q after line %d: %w", parts, from, ctx.Err())
		case <-l.kick:
		}
	}
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
