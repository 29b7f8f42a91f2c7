package fakeapi_test

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/kcmlab/kcm/internal/testing/fakeapi"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/protocodec"
	"github.com/kcmlab/kcm/kube/api/protowire"
)

// acceptProto is the Accept header kcm's client (and client-go's) sends
// for protobuf.
const acceptProto = "application/vnd.kubernetes.protobuf, application/json"

// fetch GETs url with the Accept header and returns the status, the
// Content-Type and the body.
func fetch(t *testing.T, url, accept string) (int, string, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), body
}

// podOf decodes an item's protobuf message.
func podOf(t *testing.T, msg []byte) *api.Pod {
	t.Helper()
	var p api.Pod
	if err := protocodec.Unmarshal(msg, &p); err != nil {
		t.Fatalf("pod message: %v", err)
	}
	return &p
}

// TestProtobufListPages: a LIST that asks for protobuf is a PodList in the
// k8s envelope, paged like the JSON one, each item the message of the
// stored object (protocodec.Marshal of the JSON read into api.Pod).
func TestProtobufListPages(t *testing.T) {
	s := newServer(t, fakeapi.Options{StartRV: 10})
	for i := range 5 {
		must(t)(s.Create(pods, pod("ns", fmt.Sprint(i), "0")))
	}
	var got []string
	url := s.URL() + "/api/v1/namespaces/ns/pods?limit=2"
	for page := 0; ; page++ {
		code, ct, body := fetch(t, url, acceptProto)
		if code != 200 || ct != protowire.ContentType {
			t.Fatalf("page %d: %d %q", page, code, ct)
		}
		u, err := protowire.Unwrap(body)
		if err != nil || string(u.APIVersion) != "v1" || string(u.Kind) != "PodList" {
			t.Fatalf("page %d: envelope %s/%s, %v", page, u.APIVersion, u.Kind, err)
		}
		l, err := protowire.SplitList(u.Raw)
		if err != nil || l.ResourceVersion != "15" {
			t.Fatalf("page %d: list at %q, %v; want the snapshot at 15", page, l.ResourceVersion, err)
		}
		for _, it := range l.Items {
			p := podOf(t, it)
			got = append(got, p.Name+"@"+p.ResourceVersion)
			js, err := json.Marshal(p)
			if err != nil || p.Labels["gen"] != "0" || p.UID == "" {
				t.Fatalf("item %s: %s %v", p.Name, js, err)
			}
		}
		if l.Continue == "" {
			break
		}
		if l.RemainingItemCount == nil || *l.RemainingItemCount != int64(5-2*(page+1)) {
			t.Fatalf("page %d: remainingItemCount %v", page, l.RemainingItemCount)
		}
		url = s.URL() + "/api/v1/namespaces/ns/pods?limit=2&continue=" + l.Continue
	}
	equal(t, got, "0@11", "1@12", "2@13", "3@14", "4@15")
	if st := s.Stats(); st.Protobuf != 3 {
		t.Fatalf("stats %+v: want 3 answers in protobuf", st)
	}
}

// TestProtobufNegotiation: protobuf only for a request that asks for it
// first and for the object itself (a metadata-only request, or one that
// prefers JSON, gets JSON), and only for a kind with a protobuf form; a
// failure asked for in protobuf is a protobuf Status.
func TestProtobufNegotiation(t *testing.T) {
	widgets := fakeapi.Resource{Group: "kcm.test", Version: "v1", Resource: "widgets", Kind: "Widget"}
	s := fakeapi.New(fakeapi.Options{Resources: []fakeapi.Resource{pods, widgets}, StartRV: 10, HistoryLimit: 1})
	t.Cleanup(s.Close)
	must(t)(s.Create(pods, pod("ns", "a", "0")))
	must(t)(s.Create(pods, pod("ns", "b", "0")))
	for _, tc := range []struct {
		path, accept, ct string
		code             int
	}{
		{"/api/v1/pods", acceptProto, protowire.ContentType, 200},
		{"/api/v1/pods", "application/vnd.kubernetes.protobuf", protowire.ContentType, 200},
		{"/api/v1/pods", "application/json, application/vnd.kubernetes.protobuf", "application/json", 200},
		{"/api/v1/pods", "", "application/json", 200},
		{"/api/v1/pods", "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json", "application/json", 200},
		{"/apis/kcm.test/v1/widgets", acceptProto, "application/json", 200},
		{"/api/v1/pods?resourceVersion=10&resourceVersionMatch=Exact", acceptProto, protowire.ContentType, 410},
		{"/api/v1/nothing", acceptProto, protowire.ContentType, 404},
		{"/api/v1/nothing", "application/json", "application/json", 404},
	} {
		t.Run(tc.path+" "+tc.accept, func(t *testing.T) {
			code, ct, body := fetch(t, s.URL()+tc.path, tc.accept)
			if code != tc.code || ct != tc.ct {
				t.Fatalf("%d %q, want %d %q", code, ct, tc.code, tc.ct)
			}
			if code == 200 || ct != protowire.ContentType {
				return
			}
			u, err := protowire.Unwrap(body)
			if err != nil || string(u.Kind) != protowire.StatusKind {
				t.Fatalf("failure body: %s, %v", u.Kind, err)
			}
			st, err := protowire.DecodeStatus(u.Raw)
			if err != nil || int(st.Code) != code || st.Status != "Failure" || st.Reason == "" {
				t.Fatalf("status %+v, %v", st, err)
			}
		})
	}
}

// protoEvents reads n events of a chunked protobuf watch as "TYPE
// name@rv" ("ERROR code reason" for a Status).
func protoEvents(t *testing.T, url string, n int) []string {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", acceptProto)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != protowire.ContentType+";stream=watch" {
		t.Fatalf("watch Content-Type %q", ct)
	}
	fr := protowire.NewFrameReader(resp.Body, 0)
	var out []string
	for range n {
		frame, err := fr.Next()
		if err != nil {
			t.Fatalf("frame %d: %v", len(out), err)
		}
		out = append(out, describeProto(t, frame))
	}
	return out
}

// describeProto is "TYPE name@rv" for a WatchEvent message, "ERROR code
// reason" for a Status, with " end" for the bookmark ending initial events.
func describeProto(t *testing.T, frame []byte) string {
	t.Helper()
	ev, err := protowire.DecodeEvent(frame)
	if err != nil {
		t.Fatalf("event: %v", err)
	}
	u, err := protowire.Unwrap(ev.Object)
	if err != nil {
		t.Fatalf("event object: %v", err)
	}
	if ev.Type == protowire.Error {
		st, err := protowire.DecodeStatus(u.Raw)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("ERROR %d %s", st.Code, st.Reason)
	}
	if string(u.Kind) != "Pod" {
		t.Fatalf("%s event of kind %s", ev.Type, u.Kind)
	}
	p := podOf(t, u.Raw)
	s := ev.Type + " " + p.Name + "@" + p.ResourceVersion
	if p.Annotations["k8s.io/initial-events-end"] == "true" {
		s += " end"
	}
	return s
}

// TestProtobufWatch: a watch that asks for protobuf gets length-prefixed
// WatchEvents over chunked HTTP, WatchList's initial events and bookmark
// included, and a protobuf ERROR 410 when it starts below the compacted
// floor; over WebSocket, one WatchEvent per binary message.
func TestProtobufWatch(t *testing.T) {
	s := newServer(t, fakeapi.Options{StartRV: 10, HistoryLimit: 2, BookmarkInterval: 5 * time.Millisecond})
	must(t)(s.Create(pods, pod("ns", "a", "0")))
	must(t)(s.Create(pods, pod("ns", "b", "0")))
	must(t)(s.Update(pods, pod("ns", "a", "1")))
	equal(t, protoEvents(t, s.URL()+"/api/v1/pods?watch=true&resourceVersion=11", 2), "ADDED b@12", "MODIFIED a@13")
	equal(t, protoEvents(t, s.URL()+"/api/v1/pods?watch=true&resourceVersion=10", 1), "ERROR 410 Expired")
	equal(t, protoEvents(t, s.URL()+"/api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true", 3),
		"ADDED a@13", "ADDED b@12", "BOOKMARK @13 end")

	url := "ws" + strings.TrimPrefix(s.URL(), "http") + "/api/v1/pods?watch=true&resourceVersion=12"
	conn, _, err := websocket.DefaultDialer.Dial(url, http.Header{"Origin": {s.URL()}, "Accept": {acceptProto}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	must(t)(s.Delete(pods, "ns", "b"))
	var got []string
	for range 2 {
		typ, msg, err := conn.ReadMessage()
		if err != nil || typ != websocket.BinaryMessage {
			t.Fatalf("message %d %q %v, want a binary message", typ, msg, err)
		}
		got = append(got, describeProto(t, msg))
	}
	equal(t, got, "MODIFIED a@13", "DELETED b@14")
}

var reflectPod = reflect.TypeFor[api.Pod]()

// wsMessage reads the first message of a protobuf WebSocket watch under
// fault f at rate 1, after the server stored a pod.
func wsMessage(t *testing.T, f fakeapi.Fault) (int, []byte, *fakeapi.Server) {
	t.Helper()
	inj := fakeapi.NewInjector(7, fakeapi.Rates{f: 1}, 0)
	s := newServer(t, fakeapi.Options{StartRV: 10, Faults: inj, MaxObject: 4 << 10})
	url := "ws" + strings.TrimPrefix(s.URL(), "http") + "/api/v1/pods?watch=true&resourceVersion=10"
	conn, _, err := websocket.DefaultDialer.Dial(url, http.Header{"Origin": {s.URL()}, "Accept": {acceptProto}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	must(t)(s.Create(pods, pod("ns", "a", "0")))
	typ, msg, err := conn.ReadMessage()
	if err != nil {
		t.Fatal(err)
	}
	if inj.Counts()[f] == 0 {
		t.Fatalf("%v never struck", f)
	}
	return typ, msg, s
}

// TestProtobufFaultBytes: each fault of a protobuf watch sends what it
// says (protofaults.go), seen as WebSocket messages, where each one is
// whole: the event behind a lying length prefix; a message cut inside a
// varint; a Status where a pod belongs; the event with unknown fields,
// which decodes to the same pod; the event padded past MaxObject; the
// event as JSON.
func TestProtobufFaultBytes(t *testing.T) {
	for _, tc := range []struct {
		fault fakeapi.Fault
		check func(typ int, msg []byte) error
	}{
		{fakeapi.ProtoLyingLength, func(_ int, msg []byte) error {
			if n := binary.BigEndian.Uint32(msg); int(n) == len(msg)-4 {
				return errors.New("the prefix tells the truth")
			}
			_, err := protowire.DecodeEvent(msg[4:])
			return err
		}},
		{fakeapi.ProtoTruncatedVarint, func(_ int, msg []byte) error {
			if _, err := protowire.DecodeEvent(msg); !errors.Is(err, protowire.ErrTruncated) {
				return fmt.Errorf("DecodeEvent: %v, want ErrTruncated", err)
			}
			return nil
		}},
		{fakeapi.ProtoWrongKind, func(_ int, msg []byte) error {
			ev, err := protowire.DecodeEvent(msg)
			if err != nil {
				return err
			}
			u, err := protowire.Unwrap(ev.Object)
			if err != nil || ev.Type != "ADDED" || string(u.Kind) != "Status" && string(u.Kind) != "ConfigMap" {
				return fmt.Errorf("%s of %s, %v; want ADDED of a Status or a ConfigMap", ev.Type, u.Kind, err)
			}
			return nil
		}},
		{fakeapi.ProtoUnknownFields, func(_ int, msg []byte) error {
			ev, err := protowire.DecodeEvent(msg)
			if err != nil {
				return err
			}
			u, err := protowire.Unwrap(ev.Object)
			if err != nil || u.Protobuf() != nil {
				return fmt.Errorf("envelope: %v", err)
			}
			rem, err := protocodec.Remainder(u.Raw, reflectPod)
			if err != nil || len(rem) == 0 {
				return fmt.Errorf("no unknown fields in the pod: %v", err)
			}
			var p api.Pod
			if err := protocodec.Unmarshal(u.Raw, &p); err != nil || p.Name != "a" || p.ResourceVersion != "11" {
				return fmt.Errorf("pod %s@%s, %v", p.Name, p.ResourceVersion, err)
			}
			return nil
		}},
		{fakeapi.ProtoOversize, func(_ int, msg []byte) error {
			if len(msg) <= 4<<10 {
				return fmt.Errorf("%d bytes, not over MaxObject", len(msg))
			}
			_, err := protowire.DecodeEvent(msg)
			return err
		}},
		{fakeapi.ProtoJSON, func(typ int, msg []byte) error {
			var ev struct{ Type string }
			if typ != websocket.TextMessage || json.Unmarshal(msg, &ev) != nil || ev.Type != "ADDED" {
				return fmt.Errorf("message %d %q, want a JSON event in a text message", typ, msg)
			}
			return nil
		}},
	} {
		t.Run(tc.fault.String(), func(t *testing.T) {
			typ, msg, _ := wsMessage(t, tc.fault)
			if err := tc.check(typ, msg); err != nil {
				t.Fatalf("%v: %v (message %q)", tc.fault, err, msg)
			}
		})
	}
}

// TestGetOneObject: a GET of one object answers its JSON, or its message
// in the envelope when protobuf is asked for; a missing one is 404 in the
// request's encoding.
func TestGetOneObject(t *testing.T) {
	s := newServer(t, fakeapi.Options{StartRV: 10})
	must(t)(s.Create(pods, pod("ns", "a", "0")))
	code, ct, body := fetch(t, s.URL()+"/api/v1/namespaces/ns/pods/a", acceptProto)
	u, err := protowire.Unwrap(body)
	if code != 200 || ct != protowire.ContentType || err != nil || string(u.Kind) != "Pod" {
		t.Fatalf("protobuf GET: %d %q %s %v", code, ct, u.Kind, err)
	}
	if p := podOf(t, u.Raw); p.Name != "a" || p.Namespace != "ns" || p.ResourceVersion != "11" {
		t.Fatalf("protobuf GET: %s/%s@%s", p.Namespace, p.Name, p.ResourceVersion)
	}
	code, ct, body = fetch(t, s.URL()+"/api/v1/namespaces/ns/pods/a", "application/json")
	var o object
	if code != 200 || ct != "application/json" || json.Unmarshal(body, &o) != nil || o.Metadata.Name != "a" {
		t.Fatalf("JSON GET: %d %q %s", code, ct, body)
	}
	code, ct, body = fetch(t, s.URL()+"/api/v1/namespaces/ns/pods/b", acceptProto)
	u, err = protowire.Unwrap(body)
	if code != 404 || ct != protowire.ContentType || err != nil || string(u.Kind) != protowire.StatusKind {
		t.Fatalf("missing object: %d %q %s %v", code, ct, u.Kind, err)
	}
}
