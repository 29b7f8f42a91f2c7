package rest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/api/protowire"
)

// Protobuf bodies as kube-apiserver writes them, built field by field
// (meta/v1 ObjectMeta: name 1, namespace 3, resourceVersion 6,
// annotations 12 as map entries {key 1, value 2}; a pod's spec is field
// 2; field 99 stands for what kcm does not model).

func pbMeta(name, ns, rv string, ann map[string]string) []byte {
	var m []byte
	if name != "" {
		m = protowire.AppendString(m, 1, name)
	}
	if ns != "" {
		m = protowire.AppendString(m, 3, ns)
	}
	m = protowire.AppendString(m, 6, rv)
	for k, v := range ann {
		m = protowire.AppendBytes(m, 12, protowire.AppendString(protowire.AppendString(nil, 1, k), 2, v))
	}
	return m
}

// pbPod is a pod's message: metadata, a spec, an unmodelled field.
func pbPod(name, rv string) []byte {
	b := protowire.AppendBytes(nil, 1, pbMeta(name, "ns1", rv, nil))
	b = protowire.AppendBytes(b, 2, []byte("\x0a\x03spec"))
	return protowire.AppendString(b, 99, "unmodelled")
}

func pbList(rv, cont string, items ...[]byte) []byte {
	lm := protowire.AppendString(nil, 2, rv)
	if cont != "" {
		lm = protowire.AppendString(lm, 3, cont)
	}
	l := protowire.AppendBytes(nil, 1, lm)
	for _, it := range items {
		l = protowire.AppendBytes(l, 2, it)
	}
	return protowire.Wrap(nil, "v1", "PodList", l)
}

func pbStatusBody(code int32, reason, msg string) []byte {
	return protowire.Wrap(nil, "v1", "Status", protowire.AppendStatus(nil,
		protowire.Status{Status: "Failure", Message: msg, Reason: reason, Code: code}))
}

// pbEvent is a WatchEvent message whose object.raw is obj (enveloped).
func pbEvent(typ string, obj []byte) []byte {
	return protowire.AppendBytes(protowire.AppendString(nil, 1, typ), 2, protowire.AppendBytes(nil, 1, obj))
}

func pbPodEvent(typ, name, rv string) []byte {
	return pbEvent(typ, protowire.Wrap(nil, "v1", "Pod", pbPod(name, rv)))
}

var pbInitEnd = pbEvent("BOOKMARK", protowire.Wrap(nil, "v1", "Pod",
	protowire.AppendBytes(nil, 1, pbMeta("", "", "15", map[string]string{InitialEventsEndAnnotation: "true"}))))

var pbExpired = pbEvent("ERROR", pbStatusBody(410, "Expired", "too old resource version: 5 (10)"))

func pbFrames(events ...[]byte) []byte {
	var b []byte
	for _, e := range events {
		b = protowire.AppendFrame(b, e)
	}
	return b
}

// rcProtoServer answers like kube-apiserver: protobuf when the request's
// Accept offers it (and json is false), else JSON; it records what it saw.
type rcProtoServer struct {
	pb, js   []byte // the body in each encoding
	code     int
	ct       string // the protobuf Content-Type (default ContentTypeProtobuf)
	jsonOnly bool   // a server or proxy that never answers protobuf
	mu       sync.Mutex
	accept   []string // guarded by mu
	reqCT    []string // guarded by mu
	body     [][]byte // guarded by mu
}

func (s *rcProtoServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.accept = append(s.accept, r.Header.Get("Accept"))
	s.reqCT = append(s.reqCT, r.Header.Get("Content-Type"))
	s.body = append(s.body, body)
	s.mu.Unlock()
	code := s.code
	if code == 0 {
		code = 200
	}
	if strings.HasPrefix(r.Header.Get("Accept"), ContentTypeProtobuf) && !s.jsonOnly {
		ct := s.ct
		if ct == "" {
			ct = ContentTypeProtobuf
		}
		w.Header().Set("Content-Type", ct)
		w.WriteHeader(code)
		w.Write(s.pb)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(s.js)
}

func (s *rcProtoServer) seen() (accept, ct []string, body [][]byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slicesClone(s.accept), slicesClone(s.reqCT), append([][]byte(nil), s.body...)
}

func slicesClone(s []string) []string { return append([]string(nil), s...) }

func rcProtoClient(t *testing.T, url string) *Client {
	return rcClient(t, url, func(cfg *Config) { cfg.ContentType = ContentTypeProtobuf })
}

// TestNegotiate is the rule in one table: protobuf iff the client asks for
// it, the codec reads it and the answer has a protobuf form (a built-in
// kind, or any resource's metadata-only form); always with JSON after it.
func TestNegotiate(t *testing.T) {
	crd := Resource{Group: "widgets.example.com", Version: "v1", Resource: "widgets", Kind: "Widget", Namespaced: true}
	for _, c := range []struct {
		name                  string
		client                bool
		res                   Resource
		metaOnly, codec, list bool
		want                  string
	}{
		{"json client", false, Pods, false, true, true, acceptJSON},
		{"json client, metadata list", false, Pods, true, true, true, acceptMetaList},
		{"json client, metadata object", false, Pods, true, true, false, acceptMetaObject},
		{"built-in", true, Pods, false, true, false, "application/vnd.kubernetes.protobuf, application/json"},
		{"built-in list", true, ReplicaSets, false, true, true, "application/vnd.kubernetes.protobuf, application/json"},
		{"CRD objects have protobuf", true, CRDs, false, true, true, acceptProto},
		{"custom resource", true, crd, false, true, true, acceptJSON},
		{"codec reads only JSON", true, Pods, false, false, true, acceptJSON},
		{"codec reads only JSON, metadata", true, Pods, true, false, true, acceptMetaList},
		{"metadata list", true, Pods, true, true, true, "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"},
		{"metadata object", true, Pods, true, true, false, "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"},
		{"custom resource metadata", true, crd, true, true, true, acceptProtoMetaList},
	} {
		if got := negotiate(c.client, c.res, c.metaOnly, c.codec, c.list); got != c.want {
			t.Errorf("%s: Accept %q, want %q", c.name, got, c.want)
		}
	}
}

// TestHasProtobuf: kube-apiserver's own groups (v1.37.2) have protobuf,
// custom resources and groups it does not serve do not.
func TestHasProtobuf(t *testing.T) {
	for _, c := range []struct {
		group string
		want  bool
	}{
		{"", true}, {"apps", true}, {"batch", true}, {"coordination.k8s.io", true}, {"discovery.k8s.io", true},
		{"resource.k8s.io", true}, {"apiextensions.k8s.io", true}, {"apiregistration.k8s.io", true},
		{"storagemigration.k8s.io", true}, {"lifecycle.k8s.io", true}, {"flowcontrol.apiserver.k8s.io", true},
		{"extensions", false}, {"admission.k8s.io", false}, {"imagepolicy.k8s.io", false},
		{"widgets.example.com", false}, {"metrics.k8s.io", false},
	} {
		if got := (Resource{Group: c.group}).HasProtobuf(); got != c.want {
			t.Errorf("group %q: HasProtobuf %v, want %v", c.group, got, c.want)
		}
	}
}

// TestContentTypeValidated: Config.ContentType is "", JSON or protobuf;
// anything else fails NewClient, naming the value.
func TestContentTypeValidated(t *testing.T) {
	for ct, want := range map[string]string{"": ContentTypeJSON, ContentTypeJSON: ContentTypeJSON, ContentTypeProtobuf: ContentTypeProtobuf} {
		c, err := NewClient(&Config{Host: "https://h", ContentType: ct})
		if err != nil || c.ContentType() != want {
			t.Errorf("%q: %v, %v", ct, c, err)
		}
	}
	for _, ct := range []string{"application/yaml", "application/vnd.kubernetes.protobuf;stream=watch", "protobuf"} {
		if _, err := NewClient(&Config{Host: "https://h", ContentType: ct}); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", ct)) {
			t.Errorf("%q: %v, want an error naming it", ct, err)
		}
	}
}

func TestIsProtobuf(t *testing.T) {
	for ct, want := range map[string]bool{
		"application/vnd.kubernetes.protobuf": true, "application/vnd.kubernetes.protobuf;stream=watch": true,
		"Application/Vnd.Kubernetes.Protobuf ; x=y": true, "application/json": false, "": false,
		"application/vnd.kubernetes.protobuf+json": false, "application/json;stream=watch": false,
	} {
		if isProtobuf(ct) != want {
			t.Errorf("isProtobuf(%q) = %v", ct, !want)
		}
	}
}

// TestProtoGet: a built-in kind read through Wire on a protobuf client is
// asked for and read as protobuf; with a JSON-only codec, or a server that
// answers JSON, it is JSON: the answer's Content-Type decides.
func TestProtoGet(t *testing.T) {
	rcNoLeaks(t)
	pod := pbPod("web-0", "7")
	js := []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-0","namespace":"ns1","resourceVersion":"7"}}`)
	for _, c := range []struct {
		name      string
		jsonOnly  bool
		codec     decode.Codec[*api.RawObject]
		wantProto bool
		accept    string
	}{
		{"protobuf", false, decode.Wire(), true, acceptProto},
		{"stripping protobuf", false, decode.StrippingManagedFields(decode.Wire()), true, acceptProto},
		{"JSON-only codec", false, decode.Raw(), false, acceptJSON},
		{"server answers JSON", true, decode.Wire(), false, acceptProto},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := &rcProtoServer{pb: protowire.Wrap(nil, "v1", "Pod", pod), js: js, jsonOnly: c.jsonOnly}
			cl := rcProtoClient(t, rcServer(t, s).URL)
			o, err := NewResources(cl, Pods, c.codec).InNamespace("ns1").Get(context.Background(), "web-0")
			if err != nil {
				t.Fatal(err)
			}
			if o.IsProto() != c.wantProto || o.Name != "web-0" || o.ResourceVersion != "7" || o.Kind != "Pod" || o.APIVersion != "v1" {
				t.Fatalf("got %+v proto=%v", o, o.IsProto())
			}
			if c.wantProto && !bytes.Equal(o.Proto(), pod) {
				t.Errorf("message %x, want %x", o.Proto(), pod)
			}
			if accept, _, _ := s.seen(); accept[0] != c.accept {
				t.Errorf("Accept %q, want %q", accept[0], c.accept)
			}
		})
	}
}

// TestProtoStatusErrors: a protobuf Status failure is the same
// *StatusError, with the same predicates, as the JSON one.
func TestProtoStatusErrors(t *testing.T) {
	rcNoLeaks(t)
	for _, c := range []struct {
		code   int32
		reason string
		is     func(error) bool
	}{
		{404, "NotFound", IsNotFound}, {410, "Expired", IsGone}, {409, "Conflict", IsConflict}, {403, "Forbidden", IsForbidden},
	} {
		msg := fmt.Sprintf("the %s message", c.reason)
		s := &rcProtoServer{code: int(c.code), pb: pbStatusBody(c.code, c.reason, msg),
			js: []byte(rcStatus(int(c.code), c.reason, msg))}
		srv := rcServer(t, s)
		var errs [2]*StatusError
		for i, cl := range []*Client{rcProtoClient(t, srv.URL), rcClient(t, srv.URL, nil)} {
			_, err := NewResources(cl, Pods, decode.Wire()).InNamespace("ns1").Get(context.Background(), "x")
			if !c.is(err) || !errors.As(err, &errs[i]) {
				t.Fatalf("%d: %v", c.code, err)
			}
		}
		if !reflect.DeepEqual(errs[0], errs[1]) {
			t.Errorf("%d: protobuf %+v, JSON %+v", c.code, errs[0], errs[1])
		}
	}
}

// TestProtoList: a protobuf list, paged, streams its items and ListMeta;
// a failure mid-list, or an item over the object limit, is ErrDecode.
func TestProtoList(t *testing.T) {
	rcNoLeaks(t)
	s := &rcProtoServer{pb: pbList("42", "tok", pbPod("a", "1"), pbPod("b", "2"), pbPod("c", "3"))}
	cl := rcProtoClient(t, rcServer(t, s).URL)
	l, err := NewResources(cl, Pods, decode.Wire()).List(context.Background(), ListOptions{Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range l.Items {
		if !o.IsProto() || o.Kind != "Pod" || o.APIVersion != "v1" {
			t.Fatalf("item %+v", o)
		}
		names = append(names, o.Name+"@"+o.ResourceVersion)
	}
	if fmt.Sprint(names) != "[a@1 b@2 c@3]" || l.ResourceVersion != "42" || l.Continue != "tok" {
		t.Fatalf("items %v, meta %+v", names, l.ListMeta)
	}
	if accept, _, _ := s.seen(); accept[0] != acceptProto {
		t.Errorf("Accept %q", accept[0])
	}
	// One item over the limit: ErrDecode naming the size, no item after it.
	big := rcClient(t, rcServer(t, s).URL, func(cfg *Config) { cfg.ContentType = ContentTypeProtobuf }, WithMaxObjectBytes(len(pbPod("a", "1"))-1))
	_, err = NewResources(big, Pods, decode.Wire()).List(context.Background(), ListOptions{})
	if !errors.Is(err, api.ErrDecode) || !errors.Is(err, protowire.ErrItemSize) {
		t.Fatalf("over the limit: %v", err)
	}
	// Metadata-only reads of a custom resource are protobuf too.
	crd := Resource{Group: "widgets.example.com", Version: "v1", Resource: "widgets", Kind: "Widget", Namespaced: true}
	ms := &rcProtoServer{pb: protowire.Wrap(nil, "meta.k8s.io/v1", "PartialObjectMetadataList",
		protowire.AppendBytes(protowire.AppendBytes(nil, 1, nil), 2, protowire.AppendBytes(nil, 1, pbMeta("w", "ns1", "5", nil))))}
	ml, err := NewResources(rcProtoClient(t, rcServer(t, ms).URL), crd, decode.Wire()).MetadataOnly().List(context.Background(), ListOptions{})
	if err != nil || len(ml.Items) != 1 || ml.Items[0].Kind != "PartialObjectMetadata" || ml.Items[0].Name != "w" || !ml.Items[0].IsProto() {
		t.Fatalf("metadata list %+v, %v", ml, err)
	}
	if accept, _, _ := ms.seen(); accept[0] != acceptProtoMetaList {
		t.Errorf("metadata Accept %q", accept[0])
	}
}

// TestProtoListBroken: every cut of a protobuf list is an error wrapping
// ErrDecode, never a panic — except a cut before the list's raw field,
// which is an envelope without a list: no items.
func TestProtoListBroken(t *testing.T) {
	body := pbList("42", "", pbPod("a", "1"), pbPod("b", "2"))
	pd, _ := decode.AsProto(decode.Wire())
	for n := range len(body) {
		var seen int
		_, err := decodeProtoList(bytes.NewReader(body[:n]), pd, api.TypeMeta{APIVersion: "v1", Kind: "Pod"}, 0,
			func(*api.RawObject) error { seen++; return nil })
		if !errors.Is(err, api.ErrDecode) && (err != nil || seen != 0) {
			t.Fatalf("cut at %d: %v after %d items, want ErrDecode", n, err, seen)
		}
	}
}

// TestProtoWatchChunked: a protobuf watch over chunked HTTP, one byte per
// chunk: events, the WatchList end bookmark, and a 410 ERROR event.
func TestProtoWatchChunked(t *testing.T) {
	rcNoLeaks(t)
	body := pbFrames(pbPodEvent("ADDED", "a", "11"), pbPodEvent("MODIFIED", "a", "12"), pbInitEnd, pbPodEvent("DELETED", "a", "13"), pbExpired)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.Header.Get("Accept"), ContentTypeProtobuf) {
			t.Errorf("watch Accept %q", r.Header.Get("Accept"))
		}
		rcProtoStream(w, body, true)
	})
	cl := rcProtoClient(t, rcServer(t, h).URL)
	w, err := NewResources(cl, Pods, decode.StrippingManagedFields(decode.Wire())).Watch(context.Background(), WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	got, err := rcDrainRaw(w)
	if want := "[ADDED a@11 MODIFIED a@12 BOOKMARK @15 end DELETED a@13 ERROR 410 Expired]"; fmt.Sprint(got) != want || err != io.EOF {
		t.Fatalf("events %v then %v, want %s then io.EOF", got, err, want)
	}
}

// rcProtoStream writes a protobuf watch body, one byte per flushed chunk
// when bytewise.
func rcProtoStream(w http.ResponseWriter, body []byte, bytewise bool) {
	w.Header().Set("Content-Type", ContentTypeProtobuf+";stream=watch")
	w.WriteHeader(200)
	f := w.(http.Flusher)
	if !bytewise {
		w.Write(body)
		f.Flush()
		return
	}
	for i := range body {
		if _, err := w.Write(body[i : i+1]); err != nil {
			return
		}
		f.Flush()
	}
}

// rcDrainRaw reads a RawObject watch to its end.
func rcDrainRaw(w *Watcher[*api.RawObject]) ([]string, error) {
	var out []string
	for {
		ev, err := w.Next()
		if err != nil {
			return out, err
		}
		switch {
		case ev.Err != nil:
			out = append(out, fmt.Sprintf("%s %d %s", ev.Type, ev.Err.Status.Code, ev.Err.Status.Reason))
		case ev.IsInitialEventsEnd():
			out = append(out, fmt.Sprintf("%s %s@%s end", ev.Type, ev.Object.Name, ev.Object.ResourceVersion))
		default:
			if !ev.Object.IsProto() {
				return out, fmt.Errorf("event %s not protobuf", ev.Type)
			}
			out = append(out, fmt.Sprintf("%s %s@%s", ev.Type, ev.Object.Name, ev.Object.ResourceVersion))
		}
	}
}

// TestProtoWatchBroken: a frame over the object limit, and bytes that are
// not a WatchEvent, end the watch with ErrDecode; a stream cut inside a
// frame ends with io.ErrUnexpectedEOF.
func TestProtoWatchBroken(t *testing.T) {
	rcNoLeaks(t)
	ev := pbPodEvent("ADDED", "a", "11")
	for _, c := range []struct {
		name  string
		body  []byte
		limit int
		want  error
	}{
		{"frame over the limit", pbFrames(ev), len(ev) - 1, api.ErrDecode},
		{"not a WatchEvent", pbFrames([]byte{0x0a, 0x05, 'A'}), 0, api.ErrDecode},
		{"unknown type", pbFrames(pbEvent("SOMETHING", protowire.Wrap(nil, "v1", "Pod", pbPod("a", "1")))), 0, api.ErrDecode},
		{"object without envelope", pbFrames(pbEvent("ADDED", pbPod("a", "1"))), 0, api.ErrDecode},
		{"cut inside a frame", pbFrames(ev)[:len(ev)], 0, io.ErrUnexpectedEOF},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				rcProtoStream(w, c.body, false)
			})
			cl := rcClient(t, rcServer(t, h).URL, func(cfg *Config) { cfg.ContentType = ContentTypeProtobuf }, WithMaxObjectBytes(c.limit))
			w, err := NewResources(cl, Pods, decode.Wire()).Watch(context.Background(), WatchOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			_, err = w.Next()
			if !errors.Is(err, c.want) {
				t.Fatalf("%v, want %v", err, c.want)
			}
		})
	}
}

// TestProtoWatchWebSocket: over WebSocket each binary message is one
// WatchEvent; the handshake's Content-Type may say protobuf, or — as
// kube-apiserver's does — say nothing, and then each message tells.
func TestProtoWatchWebSocket(t *testing.T) {
	for _, header := range []http.Header{{"Content-Type": {ContentTypeProtobuf + ";stream=watch"}}, nil} {
		rcProtoWatchWebSocket(t, header)
	}
}

func rcProtoWatchWebSocket(t *testing.T, header http.Header) {
	rcNoLeaks(t)
	events := [][]byte{pbPodEvent("ADDED", "a", "11"), pbInitEnd, pbExpired}
	var accept string
	var mu sync.Mutex
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		accept = r.Header.Get("Accept")
		mu.Unlock()
		up := websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}
		conn, err := up.Upgrade(w, r, header)
		if err != nil {
			return
		}
		defer conn.Close()
		for _, e := range events {
			if conn.WriteMessage(websocket.BinaryMessage, e) != nil {
				return
			}
		}
		conn.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""))
		for {
			if _, _, err := conn.ReadMessage(); err != nil {
				return
			}
		}
	})
	cl := rcProtoClient(t, rcServer(t, h).URL)
	w, err := NewResources(cl, Pods, decode.Wire()).MetadataOnly().Watch(context.Background(), WatchOptions{Transport: WebSocket})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	got, err := rcDrainRaw(w)
	if want := "[ADDED a@11 BOOKMARK @15 end ERROR 410 Expired]"; fmt.Sprint(got) != want || err != io.EOF {
		t.Fatalf("events %v then %v, want %s then io.EOF", got, err, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if accept != acceptProtoMetaObject {
		t.Errorf("Accept %q, want %q", accept, acceptProtoMetaObject)
	}
}

// TestProtoRawObjectWrite: a RawObject read as protobuf is written back
// as its message, enveloped, with Content-Type protobuf, and the answer is
// read by its Content-Type.
func TestProtoRawObjectWrite(t *testing.T) {
	rcNoLeaks(t)
	pod := pbPod("web-0", "7")
	s := &rcProtoServer{pb: protowire.Wrap(nil, "v1", "Pod", pbPod("web-0", "8"))}
	cl := rcProtoClient(t, rcServer(t, s).URL)
	o, err := decode.Wire().(decode.ProtoDecoder[*api.RawObject]).DecodeProto(api.TypeMeta{APIVersion: "v1", Kind: "Pod"}, pod)
	if err != nil {
		t.Fatal(err)
	}
	r := NewResources(cl, Pods, decode.Wire())
	for _, write := range []func() (*api.RawObject, error){
		func() (*api.RawObject, error) { return r.Update(context.Background(), o) },
		func() (*api.RawObject, error) { return r.UpdateStatus(context.Background(), o) },
		func() (*api.RawObject, error) { return r.Create(context.Background(), o) },
	} {
		out, err := write()
		if err != nil || !out.IsProto() || out.ResourceVersion != "8" {
			t.Fatalf("answer %+v, %v", out, err)
		}
	}
	accept, ct, body := s.seen()
	for i := range body {
		if ct[i] != ContentTypeProtobuf || accept[i] != acceptProto || !bytes.Equal(body[i], protowire.Wrap(nil, "v1", "Pod", pod)) {
			t.Errorf("write %d: Content-Type %q, Accept %q, body %x", i, ct[i], accept[i], body[i])
		}
	}
	if _, err := o.MarshalJSON(); !errors.Is(err, api.ErrProtobuf) {
		t.Errorf("MarshalJSON of a protobuf RawObject: %v, want ErrProtobuf", err)
	}
}

// TestProtoDeltaMemberWrite: a cached RawObject kept as a delta against
// its family's base (StrippingManagedFields(WireFamilies())) is written as its
// rebuilt message: the pod without managedFields, every other byte.
func TestProtoDeltaMemberWrite(t *testing.T) {
	rcNoLeaks(t)
	pl, err := os.ReadFile(filepath.Join("..", "api", "protowire", "testdata", "podlist.pb"))
	if err != nil {
		t.Fatal(err)
	}
	u, _ := protowire.Unwrap(pl)
	l, err := protowire.SplitList(u.Raw)
	if err != nil {
		t.Fatal(err)
	}
	cache, _ := decode.AsProto(decode.StrippingManagedFields(decode.WireFamilies()))
	tm := api.TypeMeta{APIVersion: "v1", Kind: "Pod"}
	var objs []*api.RawObject
	for _, it := range l.Items {
		o, err := cache.DecodeProto(tm, it)
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, o)
	}
	last := objs[len(objs)-1]
	if a, b := last.Proto(), last.Proto(); &a[0] == &b[0] {
		t.Fatalf("the last sibling is not kept as a delta")
	}
	s := &rcProtoServer{pb: protowire.Wrap(nil, "v1", "Pod", pbPod("x", "9"))}
	if _, err := NewResources(rcProtoClient(t, rcServer(t, s).URL), Pods, decode.Wire()).Update(context.Background(), last); err != nil {
		t.Fatal(err)
	}
	want, _ := protowire.StripManagedFields(l.Items[len(l.Items)-1])
	if _, _, body := s.seen(); !bytes.Equal(body[0], protowire.Wrap(nil, "v1", "Pod", want)) {
		t.Errorf("body %x\nwant %x", body[0], protowire.Wrap(nil, "v1", "Pod", want))
	}
}

// TestProtoIdleTimeouts: a protobuf LIST that stalls mid-body and a
// protobuf watch that goes silent end with ErrIdleTimeout, as JSON ones.
func TestProtoIdleTimeouts(t *testing.T) {
	t.Run("list", func(t *testing.T) {
		rcNoLeaks(t)
		stop := make(chan struct{})
		body := pbList("5", "", pbPod("a", "1"), pbPod("b", "2"))
		cut := len(body) - len(protowire.AppendBytes(nil, 2, pbPod("b", "2"))) // after item a
		srv := rcServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ContentTypeProtobuf)
			w.Write(body[:cut])
			w.(http.Flusher).Flush()
			<-stop
		}))
		defer close(stop)
		clk := clock.NewFake(rcT0)
		c := rcClient(t, srv.URL, func(cfg *Config) { cfg.ContentType = ContentTypeProtobuf }, WithListIdleTimeout(time.Minute),
			WithListPageTimeout(0), WithRetryPolicy(RetryPolicy{MaxAttempts: 1}), WithClock(clk))
		items := make(chan string, 2)
		done := make(chan error, 1)
		go func() {
			_, err := NewResources(c, Pods, decode.Wire()).ListEach(context.Background(), ListOptions{},
				func(o *api.RawObject) error { items <- o.Name; return nil })
			done <- err
		}()
		if name := <-items; name != "a" {
			t.Fatalf("first item %q", name)
		}
		rcStepTo(t, clk, time.Minute, done)
		if err := <-done; !errors.Is(err, ErrIdleTimeout) {
			t.Fatalf("stalled protobuf list: %v, want ErrIdleTimeout", err)
		}
	})
	t.Run("watch", func(t *testing.T) {
		rcNoLeaks(t)
		srv := rcServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rcProtoStream(w, pbFrames(pbPodEvent("ADDED", "a", "11")), false)
			<-r.Context().Done()
		}))
		clk := clock.NewFake(rcT0)
		c := rcClient(t, srv.URL, func(cfg *Config) { cfg.ContentType = ContentTypeProtobuf }, WithClock(clk))
		w, err := NewResources(c, Pods, decode.Wire()).Watch(context.Background(), WatchOptions{IdleTimeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		if ev, err := w.Next(); err != nil || ev.Type != Added || !ev.Object.IsProto() {
			t.Fatalf("first event: %+v %v", ev, err)
		}
		done := make(chan error, 1)
		go func() { _, err := w.Next(); done <- err }()
		rcStepTo(t, clk, time.Minute, done)
		if err := <-done; !errors.Is(err, ErrIdleTimeout) {
			t.Fatalf("silent protobuf watch: %v, want ErrIdleTimeout", err)
		}
	})
}

// TestSniffProto: how a WebSocket message of a watch that asked for
// protobuf is told apart: JSON opens with '{', after optional whitespace.
func TestSniffProto(t *testing.T) {
	for _, c := range []struct {
		msg  []byte
		want bool
	}{
		{[]byte(`{"type":"ADDED"}`), false}, {[]byte(" \r\n\t{}"), false}, {nil, false}, {[]byte("\n"), false},
		{pbPodEvent("ADDED", "a", "1"), true}, {pbPodEvent("MODIFIED", "a", "1"), true}, {pbExpired, true}, {pbInitEnd, true},
		{[]byte{0x12, 0x00}, true},
	} {
		if got := sniffProto(c.msg); got != c.want {
			t.Errorf("sniffProto(%q) = %v, want %v", c.msg, got, c.want)
		}
	}
}
