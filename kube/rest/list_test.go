package rest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
)

// rcNames decodes body with DecodeList and returns the items' names.
func rcNames(body io.Reader) ([]string, ListMeta, error) {
	var names []string
	meta, err := DecodeList(body, decode.Raw(), func(o *api.RawObject) error {
		names = append(names, o.Name)
		return nil
	})
	return names, meta, err
}

// TestDecodeList: items come to fn in order, one at a time, wherever the
// list's metadata sits and whatever else the list carries.
func TestDecodeList(t *testing.T) {
	items := `[{"metadata":{"name":"a"}},{"metadata":{"name":"b"},"spec":{"x":[1,{"y":"}"}]}},{"metadata":{"name":"c"}}]`
	tests := []struct {
		name      string
		body      string
		wantNames string
		wantRV    string
	}{
		{"metadata first", `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"10","continue":"tok"},"items":` + items + `}`, "[a b c]", "10"},
		{"metadata after items", `{"items":` + items + `,"metadata":{"resourceVersion":"11"},"kind":"List"}`, "[a b c]", "11"},
		{"no metadata", `{"items":` + items + `}`, "[a b c]", ""},
		{"empty items", `{"metadata":{"resourceVersion":"12"},"items":[]}`, "[]", "12"},
		{"null items", `{"metadata":{"resourceVersion":"13"},"items":null}`, "[]", "13"},
		{"no items", `{"metadata":{"resourceVersion":"14"}}`, "[]", "14"},
		{"empty object", `{}`, "[]", ""},
		{"whitespace", "\n {\n \"items\" : [ {\"metadata\":{\"name\":\"a\"}} ,\n{\"metadata\":{\"name\":\"b\"}} ] ,\"metadata\":{\"resourceVersion\":\"15\"} }\n", "[a b]", "15"},
		{"unknown fields", `{"kind":"List","extra":{"items":[{"metadata":{"name":"fake"}}]},"items":[{"metadata":{"name":"a"}}]}`, "[a]", ""},
	}
	for _, tc := range tests {
		for _, chunked := range []bool{false, true} {
			var r io.Reader = strings.NewReader(tc.body)
			if chunked {
				r = iotest.OneByteReader(r)
			}
			names, meta, err := rcNames(r)
			if err != nil {
				t.Fatalf("%s (one byte per read: %v): %v", tc.name, chunked, err)
			}
			if fmt.Sprint(names) != tc.wantNames && !(tc.wantNames == "[]" && names == nil) || meta.ResourceVersion != tc.wantRV {
				t.Errorf("%s (one byte per read: %v): names %v rv %q, want %s %q", tc.name, chunked, names, meta.ResourceVersion, tc.wantNames, tc.wantRV)
			}
		}
	}
	// The list's own fields.
	var n int64 = 42
	_, meta, err := rcNames(strings.NewReader(`{"metadata":{"resourceVersion":"9","continue":"c1","remainingItemCount":42},"items":[]}`))
	if err != nil || meta.Continue != "c1" || meta.RemainingItemCount == nil || *meta.RemainingItemCount != n {
		t.Fatalf("meta %+v, %v", meta, err)
	}
}

// TestDecodeListKeepsItemBytes: each item keeps exactly its own bytes as its
// raw JSON, even when the item spans reads.
func TestDecodeListKeepsItemBytes(t *testing.T) {
	item := `{"metadata":{"name":"a"},"data":{"big":"` + strings.Repeat("x", 3*listBufferSize) + `"}}`
	var got []byte
	_, err := DecodeList(strings.NewReader(`{"items":[`+item+`]}`), decode.Raw(), func(o *api.RawObject) error {
		got = o.Raw()
		return nil
	})
	if err != nil || string(got) != item {
		t.Fatalf("raw of %d bytes (want %d), err %v", len(got), len(item), err)
	}
}

// TestDecodeListErrors: malformed bodies fail with ErrDecode; a body cut
// short fails with an error that wraps both ErrDecode and
// io.ErrUnexpectedEOF (the list never ended, so what was delivered may be
// incomplete).
func TestDecodeListErrors(t *testing.T) {
	tests := []struct {
		name      string
		body      string
		truncated bool
		wantItems int // items delivered before the failure
	}{
		{"empty body", "", true, 0},
		{"whitespace only", "  \n", true, 0},
		{"cut in metadata", `{"metadata":{"resourceVer`, true, 0},
		{"cut between items", `{"items":[{"metadata":{"name":"a"}},`, true, 1},
		{"cut inside an item", `{"items":[{"metadata":{"name":"a"}},{"metadata":{"na`, true, 1},
		{"cut before the closing brace", `{"items":[{"metadata":{"name":"a"}}]`, true, 1},
		{"garbage", `<html>502 Bad Gateway</html>`, false, 0},
		{"array", `[1,2]`, false, 0},
		{"null", `null`, false, 0},
		{"string", `"list"`, false, 0},
		{"items not an array", `{"items":{"a":1}}`, false, 0},
		{"item not an object", `{"items":[{"metadata":{"name":"a"}},7]}`, false, 1},
		{"item with wrong types", `{"items":[{"metadata":{"name":5}}]}`, false, 0},
		{"bad token in items", `{"items":[{"metadata":{"name":"a"}},x]}`, false, 1},
		{"metadata wrong type", `{"metadata":{"resourceVersion":5},"items":[]}`, false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, chunked := range []bool{false, true} {
				var r io.Reader = strings.NewReader(tc.body)
				if chunked {
					r = iotest.OneByteReader(r)
				}
				names, _, err := rcNames(r)
				if !errors.Is(err, api.ErrDecode) {
					t.Fatalf("err = %v, want ErrDecode", err)
				}
				if got := errors.Is(err, io.ErrUnexpectedEOF); got != tc.truncated {
					t.Fatalf("err = %v: wraps io.ErrUnexpectedEOF %v, want %v", err, got, tc.truncated)
				}
				if len(names) != tc.wantItems {
					t.Fatalf("%d items delivered before the failure, want %d", len(names), tc.wantItems)
				}
			}
		})
	}
}

// TestDecodeListReadError: a transport failure mid-body is reported as it
// is, not as ErrDecode.
func TestDecodeListReadError(t *testing.T) {
	broken := io.MultiReader(strings.NewReader(`{"items":[{"metadata":{"name":"a"}},`), iotest.ErrReader(context.DeadlineExceeded))
	_, _, err := rcNames(broken)
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, api.ErrDecode) {
		t.Fatalf("err = %v, want DeadlineExceeded and not ErrDecode", err)
	}
}

// TestDecodeListStopsOnFnError: an error from fn stops the read and comes
// back as is, not wrapped.
func TestDecodeListStopsOnFnError(t *testing.T) {
	stop := errors.New("enough")
	calls := 0
	_, err := DecodeList(strings.NewReader(`{"items":[{},{},{}]}`), decode.Raw(), func(*api.RawObject) error {
		calls++
		if calls == 2 {
			return stop
		}
		return nil
	})
	if err != stop || calls != 2 {
		t.Fatalf("err = %v after %d calls, want %v after 2", err, calls, stop)
	}
}

// TestListEach: the streaming list through the client. An error from fn
// comes back as is; a server failure as a StatusError.
func TestListEach(t *testing.T) {
	rcNoLeaks(t)
	sc := &rcScript{replies: []rcReply{
		{code: 200, body: `{"metadata":{"resourceVersion":"5"},"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]}`},
		{code: 200, body: `{"metadata":{"resourceVersion":"5"},"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]}`},
		{code: 200, body: `{"metadata":{"resourceVersion":"5"},"items":[{"metadata":{"name":"a"}},{"metad`},
		{code: 403, body: rcStatus(403, "Forbidden", `configmaps is forbidden: User "x" cannot list resource "configmaps"`)},
	}}
	c := rcClient(t, rcServer(t, sc).URL, nil)
	r := rcConfigMaps(c)
	ctx := context.Background()
	var names []string
	meta, err := r.ListEach(ctx, ListOptions{LabelSelector: "app=web"}, func(cm *api.ConfigMap) error {
		names = append(names, cm.Name)
		return nil
	})
	if err != nil || meta.ResourceVersion != "5" || fmt.Sprint(names) != "[a b]" {
		t.Fatalf("ListEach = %v, %+v, %v", names, meta, err)
	}
	stop := errors.New("stop")
	if _, err := r.ListEach(ctx, ListOptions{}, func(*api.ConfigMap) error { return stop }); err != stop {
		t.Fatalf("fn error came back as %v, want it as is", err)
	}
	if _, err := r.List(ctx, ListOptions{}); !errors.Is(err, io.ErrUnexpectedEOF) || !errors.Is(err, api.ErrDecode) {
		t.Fatalf("truncated list: %v", err)
	}
	if _, err := r.List(ctx, ListOptions{}); !IsForbidden(err) {
		t.Fatalf("forbidden list: %v", err)
	}
	if q := sc.seen()[0].Query; q != "labelSelector=app%3Dweb" {
		t.Fatalf("query %q", q)
	}
}

// TestListAll: ListAll follows continue tokens. Continued pages carry the
// token and no resourceVersion (API concepts, "Retrieving large results
// sets in chunks": the token already pins the snapshot, and the server
// rejects a resourceVersion with it).
func TestListAll(t *testing.T) {
	rcNoLeaks(t)
	sc := &rcScript{replies: []rcReply{
		{code: 200, body: `{"metadata":{"resourceVersion":"100","continue":"c1","remainingItemCount":3},"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]}`},
		{code: 200, body: `{"metadata":{"resourceVersion":"100","continue":"c2","remainingItemCount":1},"items":[{"metadata":{"name":"c"}},{"metadata":{"name":"d"}}]}`},
		{code: 200, body: `{"metadata":{"resourceVersion":"100"},"items":[{"metadata":{"name":"e"}}]}`},
	}}
	c := rcClient(t, rcServer(t, sc).URL, nil)
	all, err := rcConfigMaps(c).ListAll(context.Background(), ListOptions{Limit: 2, ResourceVersion: "90", ResourceVersionMatch: "NotOlderThan", LabelSelector: "a=b"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, it := range all.Items {
		names = append(names, it.Name)
	}
	if fmt.Sprint(names) != "[a b c d e]" || all.ResourceVersion != "100" || all.Continue != "" {
		t.Fatalf("ListAll = %v, meta %+v", names, all.ListMeta)
	}
	want := []url.Values{
		{"limit": {"2"}, "resourceVersion": {"90"}, "resourceVersionMatch": {"NotOlderThan"}, "labelSelector": {"a=b"}},
		{"limit": {"2"}, "continue": {"c1"}, "labelSelector": {"a=b"}},
		{"limit": {"2"}, "continue": {"c2"}, "labelSelector": {"a=b"}},
	}
	seen := sc.seen()
	if len(seen) != len(want) {
		t.Fatalf("%d requests, want %d", len(seen), len(want))
	}
	for i, w := range want {
		if seen[i].Query != w.Encode() {
			t.Errorf("page %d query %q, want %q", i, seen[i].Query, w.Encode())
		}
	}
}

// TestListAllExpiredContinue: a continue token older than the server's
// compaction window answers 410 Expired; ListAll returns it so the caller
// can restart the list.
func TestListAllExpiredContinue(t *testing.T) {
	rcNoLeaks(t)
	sc := &rcScript{replies: []rcReply{
		{code: 200, body: `{"metadata":{"resourceVersion":"100","continue":"c1"},"items":[{"metadata":{"name":"a"}}]}`},
		{code: 410, body: rcStatus(410, "Expired", "The provided continue parameter is too old to display a consistent list result.")},
	}}
	c := rcClient(t, rcServer(t, sc).URL, nil)
	if _, err := rcConfigMaps(c).ListAll(context.Background(), ListOptions{Limit: 1}); !IsGone(err) {
		t.Fatalf("err = %v, want Gone", err)
	}
}

// TestListOptionsValues: each option's query parameter, omitted when unset.
func TestListOptionsValues(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		opts ListOptions
		want string
	}{
		{ListOptions{}, ""},
		{ListOptions{LabelSelector: "app in (a,b)", FieldSelector: "spec.nodeName=n1"}, "fieldSelector=spec.nodeName%3Dn1&labelSelector=app+in+%28a%2Cb%29"},
		{ListOptions{ResourceVersion: "0", Limit: 500}, "limit=500&resourceVersion=0"},
		{ListOptions{Continue: "abc==", Limit: -1}, "continue=abc%3D%3D"},
		{ListOptions{TimeoutSeconds: 300, AllowWatchBookmarks: true, SendInitialEvents: &yes}, "allowWatchBookmarks=true&sendInitialEvents=true&timeoutSeconds=300"},
		{ListOptions{SendInitialEvents: &no, ResourceVersionMatch: "Exact"}, "resourceVersionMatch=Exact&sendInitialEvents=false"},
	}
	for _, tc := range tests {
		if got := tc.opts.Values().Encode(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.opts, got, tc.want)
		}
	}
}
