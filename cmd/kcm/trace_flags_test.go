package main

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/kcmlab/kcm/kube/rest"
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

// `kcm trace --kube-api-content-type` is the manager's flag: protobuf by
// default, as kube-controller-manager's; JSON on request; anything else
// is a usage error (exit 2) naming the value, before any connection.
func TestTraceContentTypeFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, rest.ContentTypeProtobuf},
		{[]string{"--kube-api-content-type=application/json"}, rest.ContentTypeJSON},
		{[]string{"--kube-api-content-type", rest.ContentTypeProtobuf}, rest.ContentTypeProtobuf},
	} {
		fs, f := traceFlagSet(io.Discard)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		if f.contentType != tc.want {
			t.Errorf("%q: content type %q, want %q", tc.args, f.contentType, tc.want)
		}
		if err := checkContentType(f.contentType); err != nil {
			t.Errorf("%q: %v", tc.args, err)
		}
	}
	var stdout, stderr strings.Builder
	code := runTraceContext(context.Background(), []string{"pods", "--kube-api-content-type=application/yaml",
		"--kubeconfig=/nonexistent"}, &stdout, &stderr)
	want := `kcm trace: --kube-api-content-type "application/yaml": want application/json or application/vnd.kubernetes.protobuf` + "\n"
	if code != 2 || stderr.String() != want || stdout.Len() != 0 {
		t.Errorf("invalid content type: exit %d, stderr %q, stdout %q; want 2 and %q", code, stderr.String(), stdout.String(), want)
	}
}

// The header says what the reads ask for: protobuf only for a built-in
// kind on a protobuf client; a custom resource, or a JSON client, JSON.
func TestTraceEncodingName(t *testing.T) {
	widgets := rest.Resource{Group: "example.com", Version: "v1", Resource: "widgets", Namespaced: true}
	for _, tc := range []struct {
		ct   string
		res  rest.Resource
		want string
	}{
		{rest.ContentTypeProtobuf, rest.Pods, "protobuf"},
		{rest.ContentTypeProtobuf, widgets, "JSON"},
		{rest.ContentTypeJSON, rest.Pods, "JSON"},
		{"", rest.Pods, "JSON"},
	} {
		c, err := rest.NewClient(&rest.Config{Host: "https://127.0.0.1:1", ContentType: tc.ct})
		if err != nil {
			t.Fatal(err)
		}
		if got := encodingName(c, tc.res); got != tc.want {
			t.Errorf("%q, %s: %q, want %q", tc.ct, tc.res.Resource, got, tc.want)
		}
		p := newPrinter(printerOptions{})
		line := p.lines(traceStart{Resource: tc.res, Server: "s", Transport: "chunked", Encoding: tc.want})[1]
		if !strings.Contains(line, "reflector (chunked watch, asks for "+tc.want+")") {
			t.Errorf("header line %q does not name the encoding %s", line, tc.want)
		}
	}
}
