package main

import (
	"io"
	"testing"

	"github.com/kcmlab/kcm/reflector"
)

// `kcm trace` with no --watch-list reads the initial state as the
// reflector's default does, the one every informer.Factory uses (a LIST
// from the watch cache, from reflector.Options{}); --watch-list=true
// streams it (WatchList), --watch-list=false lists.
func TestTraceWatchListDefaultIsTheReflectors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want reflector.InitialList
	}{
		{nil, reflector.Options{}.Initial()},
		{[]string{"--watch-list=false"}, reflector.ListFromCache},
		{[]string{"--watch-list=true"}, reflector.ListStream},
	} {
		fs, f := traceFlagSet(io.Discard)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		if got := f.reflectorOptions().Initial(); got != tc.want {
			t.Errorf("%q: initial list %v, want %v", tc.args, got, tc.want)
		}
	}
	if got := (reflector.Options{}).Initial(); got != reflector.ListFromCache {
		t.Errorf("the reflector's zero Options read the initial state with %v; the documented default is from-cache", got)
	}
}
