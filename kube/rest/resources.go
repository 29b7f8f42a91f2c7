package rest

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/api/protowire"
	"github.com/kcmlab/kcm/kube/internal/jsonx"
)

// Resources is a client for one resource, optionally scoped to a namespace:
// typed (Resources[*Pod]) or generic (Resources[*RawObject]).
//
//	pods := rest.NewResources(c, rest.Pods, decode.Typed[api.Pod]()).InNamespace("default")
//	p, err := pods.Get(ctx, "web-0")
type Resources[T api.Object] struct {
	c     *Client
	res   Resource
	ns    string
	codec decode.Codec[T]
	// proto is codec's protobuf decoder (decode.AsProto); nil when it reads
	// only JSON.
	proto     decode.ProtoDecoder[T]
	metaOnly  bool
	transport WatchTransport
}

// NewResources returns a client for res decoding with codec, across all
// namespaces (use InNamespace to scope it).
func NewResources[T api.Object](c *Client, res Resource, codec decode.Codec[T]) *Resources[T] {
	pd, _ := decode.AsProto(codec)
	return &Resources[T]{c: c, res: res, codec: codec, proto: pd}
}

// InNamespace returns a copy scoped to namespace ns ("" = all namespaces).
func (r *Resources[T]) InNamespace(ns string) *Resources[T] {
	n := *r
	n.ns = ns
	return &n
}

// MetadataOnly returns a copy that asks the server for
// PartialObjectMetadata: objects carry only apiVersion, kind and metadata.
// Use it with the Raw codec, or with Wire to read it as protobuf on a
// protobuf client (every resource's metadata has a protobuf form).
func (r *Resources[T]) MetadataOnly() *Resources[T] {
	n := *r
	n.metaOnly = true
	return &n
}

// Resource returns the resource this client is for.
func (r *Resources[T]) Resource() Resource { return r.res }

// Namespace returns the namespace this client is scoped to.
func (r *Resources[T]) Namespace() string { return r.ns }

// Client returns the underlying client.
func (r *Resources[T]) Client() *Client { return r.c }

// accept is the Accept header of a read (negotiate).
func (r *Resources[T]) accept(list bool) string {
	return negotiate(r.c.proto, r.res, r.metaOnly, r.proto != nil, list)
}

// nsFor returns the namespace to put in the path of a request for obj.
func (r *Resources[T]) nsFor(obj T) string {
	if ns := obj.GetObjectMeta().Namespace; ns != "" {
		return ns
	}
	return r.ns
}

func (r *Resources[T]) decode(data []byte) (T, error) { return r.codec.Decode(data) }

// Get reads one object.
func (r *Resources[T]) Get(ctx context.Context, name string) (T, error) {
	var zero T
	if name == "" {
		return zero, fmt.Errorf("rest: get %s: empty name", r.res)
	}
	data, ct, err := r.c.doBody(ctx, &request{verb: http.MethodGet, path: r.res.Path(r.ns, name), accept: r.accept(false), idempotent: true})
	if err != nil {
		return zero, err
	}
	return r.decodeBody(data, ct)
}

// Create creates obj and returns it as the server stored it.
func (r *Resources[T]) Create(ctx context.Context, obj T) (T, error) {
	ns := r.nsFor(obj)
	rep := r.c.startWrite(http.MethodPost, ns, requestName(obj.GetObjectMeta()))
	return r.write(ctx, http.MethodPost, r.res.Path(ns, ""), obj, false, rep)
}

// CreateSubresource POSTs obj to a subresource of the named object: a
// TokenRequest to serviceaccounts/<name>/token, an Eviction to
// pods/<name>/eviction. It returns the server's answer, decoded as T.
func (r *Resources[T]) CreateSubresource(ctx context.Context, name, sub string, obj T) (T, error) {
	rep := r.c.startWrite(http.MethodPost+" "+sub, r.ns, name)
	return r.write(ctx, http.MethodPost, r.res.Path(r.ns, name, sub), obj, false, rep)
}

// Update replaces obj (PUT). The write carries obj's resourceVersion, so a
// stale object fails with a Conflict. Fields kcm's types do not model are
// kept: a typed object read from the server is merged onto the JSON it was
// read from (see api.DeepCopy and merge.go).
func (r *Resources[T]) Update(ctx context.Context, obj T) (T, error) {
	ns, name := r.nsFor(obj), obj.GetObjectMeta().Name
	return r.write(ctx, http.MethodPut, r.res.Path(ns, name), obj, true, r.c.startWrite(http.MethodPut, ns, name))
}

// UpdateStatus replaces obj's status through the /status subresource.
func (r *Resources[T]) UpdateStatus(ctx context.Context, obj T) (T, error) {
	return r.UpdateSubresource(ctx, obj, "status")
}

// UpdateSubresource PUTs obj to a subresource such as "status", or
// "finalize" for namespaces.
func (r *Resources[T]) UpdateSubresource(ctx context.Context, obj T, sub string) (T, error) {
	ns, name := r.nsFor(obj), obj.GetObjectMeta().Name
	rep := r.c.startWrite(http.MethodPut+" "+sub, ns, name)
	return r.write(ctx, http.MethodPut, r.res.Path(ns, name, sub), obj, true, rep)
}

// write sends obj as the body of a POST or PUT and decodes the answer. Only
// conditions under which the server did not act are retried (see
// shouldRetry): a PUT carries a resourceVersion, yet kcm still treats writes
// as non-idempotent, because a retried PUT after a lost answer would report
// a Conflict for a write that in fact succeeded.
// rep reports the write to the pipeline view.
func (r *Resources[T]) write(ctx context.Context, verb, path string, obj T, merge bool, rep writeReport) (T, error) {
	var zero T
	if msg, ok, err := protoMessage(obj); ok {
		// A RawObject read as protobuf goes back as it was read: its
		// message, enveloped, every field kept. A typed object read as
		// protobuf goes back merged onto the message it was read from
		// (protoBody): the caller's changes, every other field kept.
		if err != nil {
			return zero, fmt.Errorf("rest: %s %s: the object's protobuf message: %w", verb, path, err)
		}
		tm := protoTypeMeta(obj, r.res)
		body := protowire.Wrap(nil, tm.APIVersion, tm.Kind, msg)
		data, ct, err := r.c.doBody(ctx, &request{verb: verb, path: path, body: body, contentType: ContentTypeProtobuf,
			accept: negotiate(true, r.res, false, r.proto != nil, false)})
		return r.answered(ctx, data, ct, err, rep)
	}
	var body []byte
	var err error
	if merge {
		body, err = encodeForWrite(r.codec, obj)
	} else {
		body, err = jsonx.Marshal(obj)
	}
	if err != nil {
		return zero, err
	}
	data, ct, err := r.c.doBody(ctx, &request{verb: verb, path: path, body: body, contentType: contentTypeJSON, accept: acceptJSON})
	return r.answered(ctx, data, ct, err, rep)
}

// answered decodes a write's answer, by its Content-Type, and reports it
// to the view.
func (r *Resources[T]) answered(ctx context.Context, data []byte, contentType string, err error, rep writeReport) (T, error) {
	var zero T
	if err != nil {
		rep.finish(ctx, r.c, r.res, nil, err)
		return zero, err
	}
	out, err := r.decodeBody(data, contentType)
	if err != nil {
		rep.finish(ctx, r.c, r.res, nil, err)
		return zero, err
	}
	rep.finish(ctx, r.c, r.res, out.GetObjectMeta(), nil)
	return out, nil
}

// Patch applies a patch of type pt to the named object (or to a
// subresource of it, e.g. "status").
func (r *Resources[T]) Patch(ctx context.Context, name string, pt PatchType, patch []byte, opts PatchOptions, subresource ...string) (T, error) {
	q := url.Values{}
	setNonEmpty(q, "fieldManager", opts.FieldManager)
	if opts.Force {
		q.Set("force", "true")
	}
	op := http.MethodPatch
	for _, sub := range subresource {
		op += " " + sub
	}
	rep := r.c.startWrite(op, r.ns, name)
	data, ct, err := r.c.doBody(ctx, &request{verb: http.MethodPatch, path: r.res.Path(r.ns, name, subresource...),
		query: q, body: patch, contentType: string(pt), accept: acceptJSON})
	return r.answered(ctx, data, ct, err, rep)
}

// Delete deletes the named object. Deletes are retried like reads: deleting
// twice is harmless (the second answers NotFound, which callers usually
// ignore) unless preconditions say otherwise.
func (r *Resources[T]) Delete(ctx context.Context, name string, opts DeleteOptions) error {
	opts.TypeMeta = api.TypeMeta{APIVersion: "v1", Kind: "DeleteOptions"}
	body, err := jsonx.Marshal(&opts)
	if err != nil {
		return err
	}
	rep := r.c.startWrite(http.MethodDelete, r.ns, name)
	_, err = r.c.doBytes(ctx, &request{verb: http.MethodDelete, path: r.res.Path(r.ns, name), body: body,
		contentType: contentTypeJSON, accept: acceptJSON, idempotent: opts.Preconditions == nil})
	rep.finish(ctx, r.c, r.res, nil, err)
	return err
}

// DeleteCollection deletes every object matching opts' selectors.
func (r *Resources[T]) DeleteCollection(ctx context.Context, del DeleteOptions, list ListOptions) error {
	del.TypeMeta = api.TypeMeta{APIVersion: "v1", Kind: "DeleteOptions"}
	body, err := jsonx.Marshal(&del)
	if err != nil {
		return err
	}
	_, err = r.c.doBytes(ctx, &request{verb: http.MethodDelete, path: r.res.Path(r.ns, ""), query: list.Values(),
		body: body, contentType: contentTypeJSON, accept: acceptJSON, idempotent: true, discard: true})
	return err
}
