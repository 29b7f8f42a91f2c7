package managerbench

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"time"
)

// LineWatcher is the io.Writer a manager process writes its log to. It
// passes every byte on to an underlying writer (the log file) and notes,
// for each watched string, when a complete line first and last contained
// it and how many lines did. The harness reads a manager's own signals
// ("caches synced") from it at the moment they are printed, instead of
// parsing log timestamps whose formats differ between managers.
type LineWatcher struct {
	out   io.Writer
	now   func() time.Time
	watch []string

	mu      sync.Mutex
	partial []byte               // an unterminated last line; guarded by mu
	marks   map[string]LineMarks // guarded by mu
}

// maxLine bounds the unterminated line a LineWatcher keeps.
const maxLine = 64 << 10

// LineMarks is what a LineWatcher knows about one watched string.
type LineMarks struct {
	First, Last time.Time
	Count       int
}

// NewLineWatcher returns a LineWatcher writing to out and reading the time
// from now (time.Now outside tests).
func NewLineWatcher(out io.Writer, now func() time.Time, watch ...string) *LineWatcher {
	return &LineWatcher{out: out, now: now, watch: watch, marks: map[string]LineMarks{}}
}

// Write implements io.Writer. A line split over several writes is
// matched once it is complete.
func (w *LineWatcher) Write(p []byte) (int, error) {
	w.mu.Lock()
	at := w.now()
	data := append(w.partial, p...)
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break
		}
		w.match(string(data[:i]), at)
		data = data[i+1:]
	}
	if len(data) > maxLine { // a line this long is matched as it is
		w.match(string(data), at)
		data = nil
	}
	w.partial = append(w.partial[:0:0], data...)
	w.mu.Unlock()
	return w.out.Write(p)
}

// match records line against the watched strings; the caller holds mu.
func (w *LineWatcher) match(line string, at time.Time) {
	for _, s := range w.watch {
		if !strings.Contains(line, s) {
			continue
		}
		m := w.marks[s]
		if m.Count == 0 {
			m.First = at
		}
		m.Last = at
		m.Count++
		w.marks[s] = m
	}
}

// Marks returns what is known about s so far (Count 0: never seen).
func (w *LineWatcher) Marks(s string) LineMarks {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.marks[s]
}
