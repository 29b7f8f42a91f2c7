package manager

import (
	"strings"
	"testing"
)

// --profiling (kube-controller-manager's flag, on by default as there)
// serves the pprof index and named profiles under /debug/pprof/ on the
// secure port, as kube-controller-manager does, to whoever is authorized
// (here system:masters; anonymous gets 403); cmdline is not served
// (neither does kube-controller-manager), and with --profiling=false
// nothing is served there.
func TestProfiling(t *testing.T) {
	url, stop := runIdle(t, func(*Options) {}, nil) // the default
	if resp, _ := anonymousGet(t, url+"/debug/pprof/heap?debug=1"); resp.StatusCode != 403 {
		t.Errorf("anonymous GET /debug/pprof/heap: %d, want 403", resp.StatusCode)
	}
	for _, tc := range []struct {
		path, want string
		code       int
	}{
		{"/debug/pprof/", "heap", 200},
		{"/debug/pprof/heap?debug=1", "heap profile", 200},
		{"/debug/pprof/goroutine?debug=1", "goroutine profile", 200},
		{"/debug/pprof/cmdline", "", 404},
	} {
		resp, body := tlsGet(t, url+tc.path)
		if resp.StatusCode != tc.code || !strings.Contains(body, tc.want) {
			t.Errorf("GET %s: %d %.80q; want %d with %q", tc.path, resp.StatusCode, body, tc.code, tc.want)
		}
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	url, stop = runIdle(t, func(o *Options) { o.Profiling = false }, nil)
	if resp, _ := tlsGet(t, url+"/debug/pprof/"); resp.StatusCode != 404 {
		t.Errorf("GET /debug/pprof/ with --profiling=false: %d, want 404", resp.StatusCode)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}

// The flag parses under kube-controller-manager's name and spellings.
func TestProfilingFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{nil, true}, {[]string{"--profiling=false"}, false}, {[]string{"--profiling"}, true},
	} {
		o, err := parse(t, tc.args...)
		if err != nil || o.Profiling != tc.want {
			t.Errorf("%v: Profiling %v, %v; want %v", tc.args, o.Profiling, err, tc.want)
		}
	}
}
