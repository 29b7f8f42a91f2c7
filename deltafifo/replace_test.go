package deltafifo

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/rs/zerolog"
)

// Finish logs one debug line per replace with how many items it listed and
// how many tombstones it inferred (client-go's DeltaFIFO.Replace computes
// the same split between listed keys and DeletedFinalStateUnknown ones).
func TestFinishLogsItemsAndTombstones(t *testing.T) {
	var buf bytes.Buffer
	s := newStore(mk("ns/gone1", "1"), mk("ns/gone2", "1"), mk("ns/kept", "1"))
	f := New(Options[*obj]{Known: s, Logger: zerolog.New(&buf).Level(zerolog.DebugLevel)})
	r := f.StartReplace("7")
	for _, k := range []string{"ns/kept", "ns/new1", "ns/new2"} {
		if err := r.Add(mk(k, "7")); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Finish(); err != nil {
		t.Fatal(err)
	}
	var line struct {
		Level      string `json:"level"`
		RV         string `json:"rv"`
		Items      int    `json:"items"`
		Tombstones int    `json:"tombstones"`
		Initial    bool   `json:"initial"`
		Message    string `json:"message"`
	}
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
		t.Fatalf("log %q: %v", buf.String(), err)
	}
	if line.Level != "debug" || line.RV != "7" || line.Items != 3 || line.Tombstones != 2 || !line.Initial ||
		line.Message != "deltafifo: replace finished" {
		t.Fatalf("log line %+v, want debug rv=7 items=3 tombstones=2 initial", line)
	}
}
