package manager

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

// TestLogger: --logging-format json writes JSON objects, text a plain
// line; -v maps to zerolog levels at the documented boundaries.
func TestLogger(t *testing.T) {
	var b strings.Builder
	l := NewLogger(&Options{LogFormat: LogFormatJSON}, &b)
	l.Info().Str("k", "v").Msg("hello")
	var m map[string]any
	if err := json.Unmarshal([]byte(b.String()), &m); err != nil || m["message"] != "hello" || m["k"] != "v" {
		t.Errorf("json log %q: %v", b.String(), err)
	}
	b.Reset()
	l = NewLogger(&Options{LogFormat: LogFormatText}, &b)
	l.Info().Msg("hello")
	if !strings.Contains(b.String(), "INF hello") || strings.HasPrefix(b.String(), "{") {
		t.Errorf("text log %q", b.String())
	}
	for v, want := range map[int]zerolog.Level{0: zerolog.InfoLevel, 3: zerolog.InfoLevel, 4: zerolog.DebugLevel,
		5: zerolog.DebugLevel, 6: zerolog.TraceLevel, 9: zerolog.TraceLevel} {
		if got := NewLogger(&Options{Verbosity: v}, &b).GetLevel(); got != want {
			t.Errorf("-v=%d: level %v, want %v", v, got, want)
		}
	}
}
