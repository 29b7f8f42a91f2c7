package fakeapi

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/kcmlab/kcm/kube/api/protowire"
)

// Bad protobuf: the counterparts, on a protobuf answer, of the faults of
// JSON bodies (a truncated or malformed body or frame, bytes of the wrong
// shape, an object of the wrong type, an object over the size cap), and
// what only a length-prefixed binary stream can get wrong. Each strikes
// only where the answer is protobuf:
//
//   - ProtoLyingLength: the frame goes out behind a length prefix that
//     lies: a few bytes longer or shorter than the frame, or close to
//     4 GiB (a client that allocates what a prefix announces runs out of
//     memory). Over WebSocket, whose messages carry no prefix, the frame
//     is sent as one message with the prefix inside it.
//   - ProtoTruncatedVarint: in place of the event, a frame, framed
//     correctly, whose message ends inside a varint: the event cut inside
//     its object's length, a tag, or a field of the envelope's typeMeta.
//   - ProtoWrongKind: in place of the event, an ADDED event whose object
//     is of another kind: a Status, or a ghost (an object named
//     ghost-<n>, encoded as the watch's own type, in an envelope that
//     names another kind: a client that decodes by the watch's type
//     without comparing kinds caches an object the server never had).
//   - ProtoUnknownFields: the event itself, with fields no reader knows
//     (a varint, bytes, a fixed32 and a group) added to the WatchEvent,
//     its RawExtension, the envelope, its typeMeta and the object's
//     message: a reader must skip them and read the event.
//   - ProtoOversize: the event itself, padded with an unknown field past
//     Options.MaxObject, the client's bound on one event.
//   - ProtoJSON: the event as a JSON line: bytes that are valid JSON on a
//     protobuf stream (read as a length prefix, "{\"ty" announces
//     2 GB). Over WebSocket it is a text message.
//   - ProtoListUnknownFields: a LIST answer with unknown fields in the
//     envelope, its typeMeta, the list message, the ListMeta and every
//     item: the same list to a correct reader.
//   - ProtoListOversize: the LIST's first item padded past
//     Options.MaxObject.
//
// The Garbage and ListGarbage faults of a protobuf answer write
// protoGarbage, framed correctly: messages that break the wire format or
// the WatchEvent's rules. Like Garbage, a fault that comes first leaves
// the real event to follow; one in its place loses it for the client,
// which must notice that the stream is broken and resume from its last
// resourceVersion: a client that skipped the bad frame and read on would
// miss the event for good.

// Unknown field numbers: above any that Kubernetes' messages use.
const (
	unknownVarint  = 9001
	unknownBytes   = 9002
	unknownFixed32 = 9003
	unknownGroup   = 9004
	unknownPadding = 9005
)

// withUnknown appends one unknown field of each wire type to m.
func withUnknown(m []byte) []byte {
	m = protowire.AppendUint(m, unknownVarint, 42)
	m = protowire.AppendString(m, unknownBytes, "fakeapi: unknown")
	m = append(protowire.AppendTag(m, unknownFixed32, protowire.Fixed32), 1, 2, 3, 4)
	m = protowire.AppendTag(m, unknownGroup, protowire.StartGroup)
	m = protowire.AppendUint(m, 1, 7)
	m = protowire.AppendString(m, 2, "in a group")
	return protowire.AppendTag(m, unknownGroup, protowire.EndGroup)
}

// unknownFirst is withUnknown with the unknown fields before m's own.
func unknownFirst(m []byte) []byte { return append(withUnknown(nil), m...) }

// wrapUnknown is the envelope of an object with unknown fields in the
// runtime.Unknown and its typeMeta, and its empty contentEncoding and
// contentType written out, as upstream's generated code writes them.
func wrapUnknown(apiVersion, kind string, raw []byte) []byte {
	tm := unknownFirst(protowire.AppendString(protowire.AppendString(nil, 1, apiVersion), 2, kind))
	u := protowire.AppendBytes(withUnknown(nil), 1, tm)
	u = protowire.AppendBytes(u, 2, raw)
	u = protowire.AppendString(u, 3, "")
	u = protowire.AppendString(protowire.AppendString(u, 4, ""), unknownBytes, "after")
	return append(protowire.Magic[:len(protowire.Magic):len(protowire.Magic)], u...)
}

// protoFrameFault writes what the fault f puts in place of frame; false
// when the watch is over.
func (s *Server) protoFrameFault(fw frameWriter, wr watchRequest, f Fault, frame []byte) bool {
	switch f {
	case ProtoLyingLength:
		n := uint32(len(frame))
		switch s.faults.intN(3) {
		case 0:
			n += 1 + uint32(s.faults.intN(8))
		case 1:
			n -= uint32(1 + s.faults.intN(min(8, len(frame)-1)))
		default:
			n = 0xfffffff0 - uint32(s.faults.intN(1<<20))
		}
		return fw.garbage(append(prefix(n), frame...)) == nil
	case ProtoTruncatedVarint:
		return fw.write(s.truncatedVarint(frame)) == nil
	case ProtoWrongKind:
		res := s.o.Resources[wr.res]
		if s.faults.intN(2) == 0 {
			st := protoStatus(500, "InternalError", "fakeapi: injected: a Status where a "+res.Kind+" belongs", 0)
			return fw.write(protoEvent(added, st)) == nil
		}
		return fw.write(protoEvent(added, s.ghostOfAnotherKind(wr, res))) == nil
	}
	return fw.write(frame) == nil
}

// ghostOfAnotherKind is an enveloped object that names a kind other than
// res's (ConfigMap, or Secret on a ConfigMap watch) but whose message is
// one of res's type: metadata only, named ghost-<n>, in the watch's
// namespace (or "ghost" for a watch of all namespaces).
func (s *Server) ghostOfAnotherKind(wr watchRequest, res Resource) []byte {
	kind := "ConfigMap"
	if res.Kind == kind {
		kind = "Secret"
	}
	ns := wr.ns
	if ns == "" {
		ns = "ghost"
	}
	js, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"name": fmt.Sprintf("ghost-%d", s.faults.intN(1<<20)), "namespace": ns, "resourceVersion": "1"}})
	if err != nil {
		panic(err)
	}
	return protowire.Wrap(nil, "v1", kind, s.mustProto(res, js))
}

// truncatedVarint is a WatchEvent that ends inside a varint, made of
// frame, the event it replaces.
func (s *Server) truncatedVarint(frame []byte) []byte {
	switch s.faults.intN(3) {
	case 0: // the event cut after the first byte of its object's length (2 bytes or more: the object is longer than 127)
		if f, err := protowire.DecodeEvent(frame); err == nil && len(f.Object) > 127 {
			ev := protowire.AppendString(nil, 1, f.Type)
			return append(protowire.AppendTag(ev, 2, protowire.Bytes), protowire.AppendVarint(nil, uint64(len(f.Object)+2))[0])
		}
		fallthrough
	case 1: // a tag cut short
		return append(protowire.AppendString(nil, 1, added), 0x80)
	}
	// the envelope's typeMeta: its kind's tag, then a varint cut short
	tm := append(protowire.AppendString(nil, 1, "v1"), 0x10, 0xff)
	env := protowire.AppendBytes(append([]byte(nil), protowire.Magic[:]...), 1, tm)
	return protoEvent(added, env)
}

// protoContentFault is the frame the fault f puts in place of change c's.
func (s *Server) protoContentFault(wr watchRequest, f Fault, c change) []byte {
	res := s.o.Resources[wr.res]
	obj := append([]byte(nil), c.pb...)
	if f == ProtoOversize {
		pad := max(s.o.MaxObject-len(obj), 0) + 1 + s.faults.intN(1024)
		obj = protowire.AppendBytes(obj, unknownPadding, make([]byte, pad))
		return protoEvent(c.typ, wrapObject(res, obj))
	}
	ext := protowire.AppendBytes(nil, 1, wrapUnknown(res.APIVersion(), res.Kind, withUnknown(obj)))
	ev := protowire.AppendString(unknownFirst(nil), 1, c.typ)
	return withUnknown(protowire.AppendBytes(ev, 2, withUnknown(ext)))
}

// protoListFault is the LIST answer the fault f makes of page p.
func (s *Server) protoListFault(f Fault, res Resource, p *listPage) []byte {
	if f == ProtoListOversize {
		items := append([]item(nil), p.items...)
		if len(items) > 0 {
			pad := max(s.o.MaxObject-len(items[0].pb), 0) + 1 + s.faults.intN(1024)
			items[0].pb = protowire.AppendBytes(append([]byte(nil), items[0].pb...), unknownPadding, make([]byte, pad))
		}
		q := *p
		q.items = items
		return s.encodeProtoList(res, &q)
	}
	var lm []byte
	lm = protowire.AppendString(unknownFirst(lm), 1, "")
	lm = protowire.AppendString(lm, 2, strconv.FormatInt(p.rv, 10))
	lm = protowire.AppendString(lm, 3, p.cont)
	if p.cont != "" {
		lm = protowire.AppendUint(lm, 4, uint64(p.remaining))
	}
	msg := protowire.AppendBytes(unknownFirst(nil), 1, withUnknown(lm))
	for _, it := range p.items {
		msg = protowire.AppendBytes(msg, 2, unknownFirst(it.pb))
	}
	return wrapUnknown(res.APIVersion(), res.Kind+"List", withUnknown(msg))
}

// protoGarbage returns a protobuf message that no client may take for a
// watch event or list: the wire format broken, or the WatchEvent's rules.
func (in *Injector) protoGarbage() []byte {
	return protoGarbageFrames[in.intN(len(protoGarbageFrames))]
}

var protoGarbageFrames = func() [][]byte {
	pod := protowire.Wrap(nil, "v1", "Pod", protowire.AppendBytes(nil, 1, protowire.AppendString(nil, 1, "garbage")))
	ext := protowire.AppendBytes(nil, 1, pod)
	withType := func(typ string, ext []byte) []byte {
		return protowire.AppendBytes(protowire.AppendString(nil, 1, typ), 2, ext)
	}
	gzip := append(protowire.Wrap(nil, "v1", "Pod", nil), protowire.AppendString(nil, 3, "gzip")...)
	badName := protowire.Wrap(nil, "v1", "Pod", protowire.AppendBytes(nil, 1, protowire.AppendUint(nil, 1, 7)))
	return [][]byte{
		{0x07, 0xff, 0xff, 0xff},           // wire type 7
		{0x0c, 0x0a, 0x00},                 // an end group with no start
		protowire.AppendBytes(nil, 2, ext), // an event without a type
		withType("NOT-A-TYPE", ext),        // a type no client knows
		withType(modified, protowire.AppendString(nil, 1, "no envelope")),
		withType(added, protowire.AppendBytes(nil, 1, gzip)),            // a content encoding
		withType(modified, protowire.AppendBytes(nil, 1, badName)),      // metadata.name a varint
		append(protowire.AppendTag(nil, 1, protowire.Bytes), 0x40, 'A'), // a length past the end
	}
}()
