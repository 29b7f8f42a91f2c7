package fakeapi

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/protocodec"
	"github.com/kcmlab/kcm/kube/api/protowire"
)

// Protobuf, as kube-apiserver serves it (application/vnd.kubernetes.protobuf).
//
// A request whose Accept header names protobuf first, for the object
// itself (no "as=" parameter: a metadata-only request is answered with
// JSON, which its client reads by the Content-Type), gets protobuf for
// a resource whose kind package api models with a protobuf form
// (protoTypes); other kinds are answered with JSON, as kube-apiserver
// answers for custom resources. The Status of a failure is protobuf
// whenever protobuf is asked for first.
//
// The forms, as kube-apiserver's protobuf serializer writes them
// (package protowire has the reader of each):
//
//   - An object or a list: the envelope (magic "k8s\x00", then a
//     runtime.Unknown naming apiVersion and kind) around the message.
//   - A list: {1: ListMeta{1: selfLink, 2: resourceVersion, 3: continue,
//     4: remainingItemCount}, 2: item...}, the items without envelopes.
//   - A watch over chunked HTTP (Content-Type ...;stream=watch): frames of
//     a 4-byte big-endian length and a metav1.WatchEvent {1: type,
//     2: RawExtension{1: enveloped object}}; over WebSocket the same
//     WatchEvent as one binary message, without the length.
//
// The store keeps every object as JSON (what tests write) and, for a
// kind with a protobuf form, as the message protocodec.Marshal gives for
// the typed struct the JSON decodes into: fields the struct does not
// model are not in the protobuf form.

// protoTypes are the kinds served as protobuf: package api's typed
// structs that have a protobuf form.
var protoTypes = func() map[string]reflect.Type {
	m := map[string]reflect.Type{}
	for _, t := range []reflect.Type{
		reflect.TypeFor[api.Pod](), reflect.TypeFor[api.Namespace](), reflect.TypeFor[api.ServiceAccount](),
		reflect.TypeFor[api.ConfigMap](), reflect.TypeFor[api.Node](), reflect.TypeFor[api.Service](),
		reflect.TypeFor[api.Endpoints](), reflect.TypeFor[api.EndpointSlice](), reflect.TypeFor[api.ReplicaSet](),
		reflect.TypeFor[api.Deployment](), reflect.TypeFor[api.StatefulSet](), reflect.TypeFor[api.ControllerRevision](),
		reflect.TypeFor[api.PersistentVolumeClaim](), reflect.TypeFor[api.Lease](), reflect.TypeFor[api.ResourceQuota](),
	} {
		if protocodec.HasProtobuf(t) {
			m[t.Name()] = t
		}
	}
	return m
}()

// watchContentType is the Content-Type of a protobuf watch.
const watchContentType = protowire.ContentType + ";stream=watch"

// acceptsProto reports whether the request's Accept header names
// protobuf first; object: for the object itself, not a metadata-only
// form (as=...).
func acceptsProto(r *http.Request, object bool) bool {
	first, _, _ := strings.Cut(r.Header.Get("Accept"), ",")
	mt, params, err := mime.ParseMediaType(strings.TrimSpace(first))
	if err != nil || !strings.EqualFold(mt, protowire.ContentType) {
		return false
	}
	return !object || params["as"] == ""
}

// servesProto reports whether r is answered with protobuf: it asks for it
// and res's kind has a protobuf form. The first such request turns the
// store's protobuf forms on (enableProto).
func (s *Server) servesProto(r *http.Request, res int) bool {
	_, ok := protoTypes[s.o.Resources[res].Kind]
	if !ok || !acceptsProto(r, true) {
		return false
	}
	s.protoOnce.Do(s.enableProto)
	return true
}

// enableProto makes the store keep every object's protobuf form: those
// stored so far (current and in the history) now, those written later as
// they are written. Until a client asks for protobuf the store keeps
// JSON alone, so that JSON-only tests pay nothing for the other form. An
// object stored earlier whose JSON has no protobuf form (a write after
// this would be refused with ErrInvalidObject) is served as an empty
// message.
func (s *Server) enableProto() {
	d := s.db
	d.mu.Lock()
	defer d.mu.Unlock()
	enc := func(res int, e *entry) {
		if e.pb == nil {
			e.pb, _ = s.encodeStored(res, e.obj)
		}
	}
	for res, objs := range d.objects {
		for k, e := range objs {
			enc(res, &e)
			objs[k] = e
		}
	}
	for i := range d.history {
		c := &d.history[i]
		if c.pb == nil {
			c.pb, _ = s.encodeStored(c.res, c.obj)
		}
		if c.prev != nil {
			enc(c.res, c.prev)
		}
	}
	d.encode = s.encodeStored
}

// encodeStored is the db's encoder: the protobuf message of a stored
// object of resource res, nil for a kind without one.
func (s *Server) encodeStored(res int, obj []byte) ([]byte, error) {
	t, ok := protoTypes[s.o.Resources[res].Kind]
	if !ok {
		return nil, nil
	}
	return protoOf(t, obj)
}

// protoOf is the protobuf message of the object whose JSON is obj, read
// into the typed struct t.
func protoOf(t reflect.Type, obj []byte) ([]byte, error) {
	v := reflect.New(t)
	if err := json.Unmarshal(obj, v.Interface()); err != nil {
		return nil, fmt.Errorf("%w: no %s protobuf form: %w", ErrInvalidObject, t.Name(), err)
	}
	msg, err := protocodec.Marshal(v.Interface())
	if err != nil {
		return nil, fmt.Errorf("%w: no %s protobuf form: %w", ErrInvalidObject, t.Name(), err)
	}
	return msg, nil
}

// mustProto is protoOf for the objects the server makes up itself
// (bookmarks, ghosts), whose JSON always fits.
func (s *Server) mustProto(res Resource, obj []byte) []byte {
	msg, err := protoOf(protoTypes[res.Kind], obj)
	if err != nil {
		panic(err)
	}
	return msg
}

// wrapObject is the enveloped form of an object of res.
func wrapObject(res Resource, msg []byte) []byte {
	return protowire.Wrap(nil, res.APIVersion(), res.Kind, msg)
}

// encodeProtoList is a LIST answer in protobuf, the items' messages
// verbatim.
func (s *Server) encodeProtoList(res Resource, p *listPage) []byte {
	var lm []byte
	lm = protowire.AppendString(lm, 1, "")
	lm = protowire.AppendString(lm, 2, strconv.FormatInt(p.rv, 10))
	lm = protowire.AppendString(lm, 3, p.cont)
	if p.cont != "" {
		lm = protowire.AppendUint(lm, 4, uint64(p.remaining))
	}
	msg := protowire.AppendBytes(nil, 1, lm)
	for _, it := range p.items {
		msg = protowire.AppendBytes(msg, 2, it.pb)
	}
	return protowire.Wrap(nil, res.APIVersion(), res.Kind+"List", msg)
}

// protoStatus is an enveloped metav1.Status failure.
func protoStatus(code int, reason, msg string, retryAfter int32, causes ...string) []byte {
	st := protowire.Status{Status: "Failure", Message: msg, Reason: reason, Code: int32(code)}
	if len(causes) > 0 || retryAfter > 0 {
		st.Details = &protowire.StatusDetails{RetryAfterSeconds: retryAfter}
		for _, c := range causes {
			st.Details.Causes = append(st.Details.Causes, protowire.StatusCause{Reason: c, Message: msg})
		}
	}
	return protowire.Wrap(nil, "v1", protowire.StatusKind, protowire.AppendStatus(nil, st))
}

// protoEvent is a metav1.WatchEvent of typ holding obj, an enveloped
// object.
func protoEvent(typ string, obj []byte) []byte {
	b := protowire.AppendString(make([]byte, 0, len(obj)+24), 1, typ)
	ext := protowire.AppendBytes(make([]byte, 0, len(obj)+8), 1, obj)
	return protowire.AppendBytes(b, 2, ext)
}

// lengthPrefixed is msg behind its 4-byte big-endian length: one frame
// of a chunked protobuf watch.
func lengthPrefixed(msg []byte) []byte {
	return protowire.AppendFrame(make([]byte, 0, 4+len(msg)), msg)
}

// prefix is a 4-byte length prefix announcing n bytes.
func prefix(n uint32) []byte { return binary.BigEndian.AppendUint32(nil, n) }

// The frames of a watch, in its encoding (JSON events, or protobuf
// WatchEvents without the length prefix, which the chunked writer adds).

// eventFrame is the frame of an event of typ about an object stored as
// js (JSON) and pb (its protobuf message).
func (s *Server) eventFrame(wr watchRequest, typ string, js, pb []byte) []byte {
	if !wr.proto {
		return frameOf(typ, js)
	}
	return protoEvent(typ, wrapObject(s.o.Resources[wr.res], pb))
}

// madeUpFrame is eventFrame for an object the server makes up (a
// bookmark, a ghost): JSON, encoded to protobuf when the watch is.
func (s *Server) madeUpFrame(wr watchRequest, typ string, js []byte) []byte {
	if !wr.proto {
		return frameOf(typ, js)
	}
	res := s.o.Resources[wr.res]
	return protoEvent(typ, wrapObject(res, s.mustProto(res, js)))
}

// statusFrame is an ERROR event holding a Status.
func statusFrame(proto bool, code int, reason, msg string, causes ...string) []byte {
	if proto {
		return protoEvent("ERROR", protoStatus(code, reason, msg, 0, causes...))
	}
	return frameOf("ERROR", newStatus(code, reason, msg, causes...))
}
