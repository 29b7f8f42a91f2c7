package main

import (
	"io"
	"testing"

	"github.com/kcmlab/kcm/reflector"
)

// `kcm trace` with no --watch-list uses the reflector's default, the one
// every informer.Factory uses (WatchList on, from reflector.Options{});
// --watch-list=false asks for LIST+WATCH.
func TestTraceWatchListDefaultIsTheReflectors(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		disable bool
	}{
		{nil, reflector.Options{}.DisableWatchList},
		{[]string{"--watch-list=false"}, true},
		{[]string{"--watch-list=true"}, false},
	} {
		fs, f := traceFlagSet(io.Discard)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		if got := f.reflectorOptions().DisableWatchList; got != tc.disable {
			t.Errorf("%q: DisableWatchList %v, want %v", tc.args, got, tc.disable)
		}
	}
	if (reflector.Options{}).DisableWatchList {
		t.Error("the reflector's zero Options disable WatchList; the documented default is on")
	}
}
