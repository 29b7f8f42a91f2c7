package syncbuf

import (
	"strings"
	"sync"
)

// Buffer collects writes under a mutex. The zero value is ready to use; a
// Buffer must not be copied after first use.
type Buffer struct {
	mu sync.Mutex
	b  strings.Builder
}

// Write appends p; it never fails (io.Writer).
func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns everything written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Lines returns what was written so far as lines, without the final
// newline; nil when nothing was written.
func (s *Buffer) Lines() []string {
	text := strings.TrimSpace(s.String())
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}
