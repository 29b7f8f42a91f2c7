package rest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/internal/jsonx"
)

// listBufferSize is the read buffer of the streaming list decoder.
const listBufferSize = 64 << 10

// ErrListPageTimeout ends a LIST page that took longer than its total
// deadline (DefaultListPageTimeout, WithListPageTimeout) although bytes kept
// coming: a server or proxy that trickles the body. Like ErrIdleTimeout it
// is a failure to back off from and retry, never a stop: it wraps no
// context error.
var ErrListPageTimeout = errors.New("list page deadline exceeded")

// List reads one page (or the whole collection when opts.Limit is 0).
func (r *Resources[T]) List(ctx context.Context, opts ListOptions) (*List[T], error) {
	out := &List[T]{}
	meta, err := r.ListEach(ctx, opts, func(item T) error {
		out.Items = append(out.Items, item)
		return nil
	})
	if err != nil {
		return nil, err
	}
	out.ListMeta = meta
	return out, nil
}

// ListAll follows continue tokens until the collection is exhausted and
// returns every item; the ListMeta is that of the first page (whose
// resourceVersion is the snapshot all pages come from).
func (r *Resources[T]) ListAll(ctx context.Context, opts ListOptions) (*List[T], error) {
	out := &List[T]{}
	first := true
	for {
		page, err := r.List(ctx, opts)
		if err != nil {
			return nil, err
		}
		if first {
			out.ListMeta, first = page.ListMeta, false
		}
		out.Items = append(out.Items, page.Items...)
		if page.Continue == "" {
			out.Continue = ""
			return out, nil
		}
		opts.Continue = page.Continue
		opts.ResourceVersion, opts.ResourceVersionMatch = "", ""
	}
}

// ListEach reads one list response and hands each item to fn, in order, as
// soon as it is decoded, without ever holding the decoded list: memory stays
// at the read buffer plus the few batches of items being decoded (a long
// list decodes on several cores, listpar.go), whatever the size of the
// list. An error from fn stops the read and is returned as is.
func (r *Resources[T]) ListEach(ctx context.Context, opts ListOptions, fn func(T) error) (ListMeta, error) {
	req := &request{verb: http.MethodGet, path: r.res.Path(r.ns, ""), query: opts.Values(), accept: r.accept(true), idempotent: true}
	if r.c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.c.timeout)
		defer cancel()
	}
	// A list that stops sending (headers or body) for listIdle is cut off,
	// like a silent watch: a stalled LIST must not hang an informer.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	idle := newIdleReader(r.c.clock, nil, r.c.listIdle, cancel)
	defer idle.stop()
	// And one that keeps sending, a byte before each idle timeout, is cut
	// off when the page as a whole took listPage: a timer never kicked.
	page := newIdleTimer(r.c.clock, r.c.listPage, cancel)
	defer page.stop()
	resp, err := r.c.do(ctx, req)
	if err != nil {
		if page.expired() {
			return ListMeta{}, fmt.Errorf("list %s: no response within the page deadline %v: %w", r.res, r.c.listPage, ErrListPageTimeout)
		}
		if idle.expired() {
			return ListMeta{}, fmt.Errorf("list %s: no response within %v: %w", r.res, r.c.listIdle, ErrIdleTimeout)
		}
		return ListMeta{}, err
	}
	defer resp.Body.Close()
	idle.r = resp.Body
	var fnErr error
	each := func(item T) error {
		fnErr = fn(item)
		return fnErr
	}
	var meta ListMeta
	if isProtobuf(resp.Header.Get("Content-Type")) {
		meta, err = decodeProtoList(idle, r.proto, r.itemType(), r.c.maxObject, each)
	} else {
		meta, err = decodeList(idle, r.codec, r.c.maxObject, each)
	}
	switch {
	case fnErr != nil:
		return meta, fnErr
	case err != nil && page.expired():
		return meta, fmt.Errorf("list %s: the page took longer than %v: %w", r.res, r.c.listPage, ErrListPageTimeout)
	case err != nil && idle.expired():
		return meta, fmt.Errorf("list %s: no bytes for %v: %w", r.res, r.c.listIdle, ErrIdleTimeout)
	case err != nil:
		return meta, contextError(ctx, fmt.Errorf("list %s: %w", r.res, err))
	}
	return meta, nil
}

// itemType is the type of the items of a protobuf list whose envelope
// does not name it before them.
func (r *Resources[T]) itemType() api.TypeMeta {
	if r.metaOnly {
		return metaOnlyType
	}
	return api.TypeMeta{APIVersion: r.res.GroupVersion(), Kind: r.res.Kind}
}

// DecodeList streams a list response (`{"kind":..,"metadata":{..},"items":[..]}`)
// from body, calling fn for each item in order. Errors from decoding wrap
// ErrDecode; errors from fn are returned unwrapped. No item may be longer
// than DefaultMaxObjectBytes.
func DecodeList[T api.Object](body io.Reader, codec decode.Codec[T], fn func(T) error) (meta ListMeta, err error) {
	return decodeList(body, codec, DefaultMaxObjectBytes, fn)
}

// decodeList is DecodeList with items of at most limit bytes.
func decodeList[T api.Object](body io.Reader, codec decode.Codec[T], limit int, fn func(T) error) (ListMeta, error) {
	return decodeListWith(body, limit, newItemDecoder(codec, fn, listDecoders()))
}

// decodeListWith is decodeList with the items handed to d (listpar.go),
// which decodes them and calls fn.
func decodeListWith[T api.Object](body io.Reader, limit int, d *itemDecoder[T]) (meta ListMeta, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = decodePanic(p)
		}
	}()
	fr := newFrameReader(body, listBufferSize).withLimit(limit)
	defer d.stop()
	err = d.finish(walkList(fr, &meta, d.item))
	switch {
	case d.fnErr != nil:
		return meta, d.fnErr
	case errors.Is(err, ErrConnectionLost):
		return meta, fmt.Errorf("list: %w", err)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return meta, fmt.Errorf("%w: list: %w", api.ErrDecode, io.ErrUnexpectedEOF)
	case err != nil:
		return meta, decodeErr("list", err)
	}
	return meta, nil
}

// walkList reads a list object member by member: metadata is decoded,
// each element of items is handed to item as it becomes complete, other
// members are skipped.
func walkList(fr *frameReader, meta *ListMeta, item func([]byte) error) error {
	c, err := fr.peek(false)
	if err != nil {
		return err
	}
	if c != '{' {
		return fmt.Errorf("%w: list: not a JSON object", api.ErrDecode)
	}
	fr.off++
	for first := true; ; first = false {
		c, err := fr.peek(false)
		if err != nil {
			return err
		}
		if c == '}' {
			fr.off++
			return nil
		}
		if !first {
			if err := fr.expect(','); err != nil {
				return err
			}
		}
		k, err := fr.value(false)
		if err != nil {
			return err
		}
		if k[0] != '"' {
			return fmt.Errorf("%w: list: expected a member name", api.ErrDecode)
		}
		key := string(k) // k is a slice of the buffer, which the next read reuses
		if err := fr.expect(':'); err != nil {
			return err
		}
		switch key {
		case `"items"`:
			err = walkArray(fr, item)
		case `"metadata"`:
			var v []byte
			if v, err = fr.value(false); err == nil {
				if e := jsonx.Unmarshal(v, meta); e != nil {
					err = fmt.Errorf("%w: list metadata: %v", api.ErrDecode, e)
				}
			}
		default:
			_, err = fr.value(false)
		}
		if err != nil {
			return err
		}
	}
}

// walkArray hands each element of the array at fr to item.
func walkArray(fr *frameReader, item func([]byte) error) error {
	c, err := fr.peek(false)
	if err != nil {
		return err
	}
	if c == 'n' { // "items": null
		v, err := fr.value(false)
		if err == nil && string(v) != "null" {
			err = fmt.Errorf("%w: list items: unexpected %.20q", api.ErrDecode, v)
		}
		return err
	}
	if err := fr.expect('['); err != nil {
		return err
	}
	for first := true; ; first = false {
		c, err := fr.peek(false)
		if err != nil {
			return err
		}
		if c == ']' {
			fr.off++
			return nil
		}
		if !first {
			if err := fr.expect(','); err != nil {
				return err
			}
		}
		v, err := fr.value(false)
		if err != nil {
			return err
		}
		if v[0] != '{' {
			return fmt.Errorf("%w: list item is not an object", api.ErrDecode)
		}
		if err := item(v); err != nil {
			return err
		}
	}
}

// decodePanic is the error of a list whose decoder panicked: the bytes,
// whatever they were, are not a list kcm can read.
func decodePanic(p any) error { return fmt.Errorf("%w: list: %v", api.ErrDecode, p) }

// decodeErr wraps a decoder failure: transport errors stay recognisable
// (errors.Is works on them), malformed bytes wrap ErrDecode.
func decodeErr(what string, err error) error {
	var ne interface{ Timeout() bool }
	if errors.As(err, &ne) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, ErrIdleTimeout) || errors.Is(err, ErrConnectionLost) {
		return fmt.Errorf("%s: %w", what, err)
	}
	return fmt.Errorf("%w: %s: %v", api.ErrDecode, what, err)
}
