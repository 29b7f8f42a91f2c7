package bench_test

import (
	"bytes"
	"testing"

	"github.com/kcmlab/kcm/bench"
	"github.com/kcmlab/kcm/internal/testing/podgen"
)

// TestFloorCounts: the floor's scanners count what they were given and fail
// on a stream cut short, so a floor figure always covers every object.
func TestFloorCounts(t *testing.T) {
	list := podgen.List(40, "9")
	events := podgen.WatchEvents(40, 25, 9)
	tests := []struct {
		name    string
		run     func() error
		wantErr bool
	}{
		{"whole list", func() error {
			n, err := bench.ScanList(bytes.NewReader(list))
			if err == nil && n != 40 {
				t.Errorf("scanned %d items, want 40", n)
			}
			return err
		}, false},
		{"truncated list", func() error { _, err := bench.ScanList(bytes.NewReader(list[:len(list)/2])); return err }, true},
		{"all events", func() error { return bench.ScanEvents(bytes.NewReader(events), 25, nil) }, false},
		{"events cut short", func() error { return bench.ScanEvents(bytes.NewReader(events[:len(events)/2]), 25, nil) }, true},
		{"read all events", func() error { return bench.ReadEvents(bytes.NewReader(events), 25) }, false},
		{"read events cut short", func() error { return bench.ReadEvents(bytes.NewReader(events[:len(events)/2]), 25) }, true},
	}
	for _, tc := range tests {
		if err := tc.run(); (err != nil) != tc.wantErr {
			t.Errorf("%s: err = %v, want error %v", tc.name, err, tc.wantErr)
		}
	}
}
