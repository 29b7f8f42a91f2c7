package manager

import (
	"strings"
	"testing"
)

// --profiling (kube-controller-manager's flag; off by default in kcm, whose
// port authenticates nobody) serves the pprof index and named profiles
// under /debug/pprof/ on the secure port, as kube-controller-manager does;
// cmdline is not served (neither does kube-controller-manager), and
// without --profiling nothing is served there.
func TestProfiling(t *testing.T) {
	url, stop := runIdle(t, func(o *Options) { o.Profiling = true }, nil)
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
	url, stop = runIdle(t, func(*Options) {}, nil) // the default
	if resp, _ := tlsGet(t, url+"/debug/pprof/"); resp.StatusCode != 404 {
		t.Errorf("GET /debug/pprof/ by default: %d, want 404", resp.StatusCode)
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
		{nil, false}, {[]string{"--profiling=false"}, false}, {[]string{"--profiling"}, true},
	} {
		o, err := parse(t, tc.args...)
		if err != nil || o.Profiling != tc.want {
			t.Errorf("%v: Profiling %v, %v; want %v", tc.args, o.Profiling, err, tc.want)
		}
	}
}
