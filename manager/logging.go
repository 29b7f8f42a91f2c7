package manager

import (
	"io"
	"time"

	"github.com/rs/zerolog"
)

// NewLogger returns the logger --logging-format and -v ask for, writing to
// w: "json" writes one JSON object per line, "text" a human-readable line.
// Verbosity maps to zerolog levels: 0-3 info, 4-5 debug, 6 and above
// trace (kube-controller-manager's klog levels have no exact counterpart;
// kcm logs routine progress at info and per-request detail at debug).
func NewLogger(o *Options, w io.Writer) zerolog.Logger {
	var l zerolog.Logger
	if o.LogFormat == LogFormatJSON {
		l = zerolog.New(w)
	} else {
		l = zerolog.New(zerolog.ConsoleWriter{Out: w, NoColor: true, TimeFormat: time.RFC3339Nano})
	}
	return l.Level(levelFor(o.Verbosity)).With().Timestamp().Logger()
}

// levelFor is an if chain: gremlins cannot see a tagless switch's cases
// as covered (go-gremlins/gremlins#298).
func levelFor(v int) zerolog.Level {
	if v >= 6 {
		return zerolog.TraceLevel
	}
	if v >= 4 {
		return zerolog.DebugLevel
	}
	return zerolog.InfoLevel
}
