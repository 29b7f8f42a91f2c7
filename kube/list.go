package kube

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	jsoniter "github.com/json-iterator/go"
)

// listBufferSize is the read buffer of the streaming list decoder.
const listBufferSize = 64 << 10

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

// ListEach reads one list response and hands each item to fn as soon as it
// is decoded, without ever holding the decoded list: memory stays at one
// item plus the read buffer, whatever the size of the list. An error from fn
// stops the read and is returned as is.
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
	idle := newIdleReader(nil, r.c.listIdle, cancel)
	defer idle.stop()
	resp, err := r.c.do(ctx, req)
	if err != nil {
		if idle.expired() {
			return ListMeta{}, fmt.Errorf("list %s: no response within %v: %w", r.res, r.c.listIdle, ErrIdleTimeout)
		}
		return ListMeta{}, err
	}
	defer resp.Body.Close()
	idle.r = resp.Body
	var fnErr error
	meta, err := DecodeList(idle, r.codec, func(item T) error {
		fnErr = fn(item)
		return fnErr
	})
	switch {
	case fnErr != nil:
		return meta, fnErr
	case err != nil && idle.expired():
		return meta, fmt.Errorf("list %s: no bytes for %v: %w", r.res, r.c.listIdle, ErrIdleTimeout)
	case err != nil:
		return meta, contextError(ctx, fmt.Errorf("list %s: %w", r.res, err))
	}
	return meta, nil
}

// DecodeList streams a list response (`{"kind":..,"metadata":{..},"items":[..]}`)
// from body, calling fn for each item in order. Errors from decoding wrap
// ErrDecode; errors from fn are returned unwrapped.
func DecodeList[T Object](body io.Reader, codec Codec[T], fn func(T) error) (meta ListMeta, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: list: %v", ErrDecode, p)
		}
	}()
	it, er := parseStream(body, listBufferSize)
	if it.WhatIsNext() != jsoniter.ObjectValue && it.Error == nil {
		return meta, fmt.Errorf("%w: list: not a JSON object", ErrDecode)
	}
	var fnErr error
	it.ReadObjectCB(func(it *jsoniter.Iterator, key string) bool {
		switch key {
		case "metadata":
			it.ReadVal(&meta)
		case "items":
			it.ReadArrayCB(func(it *jsoniter.Iterator) bool {
				raw := it.SkipAndReturnBytes()
				if it.Error != nil {
					return false
				}
				item, err := codec.Decode(raw)
				if err != nil {
					fnErr = err
					return false
				}
				if err := fn(item); err != nil {
					fnErr = err
					return false
				}
				return true
			})
		default:
			it.Skip()
		}
		return it.Error == nil
	})
	if fnErr != nil {
		return meta, fnErr
	}
	if it.Error != nil && !errors.Is(it.Error, io.EOF) && !er.eof {
		return meta, decodeErr("list", it.Error)
	}
	if it.Error != nil {
		return meta, fmt.Errorf("%w: list: %w", ErrDecode, io.ErrUnexpectedEOF)
	}
	return meta, nil
}

// decodeErr wraps a decoder failure: transport errors stay recognisable
// (errors.Is works on them), malformed bytes wrap ErrDecode.
func decodeErr(what string, err error) error {
	var ne interface{ Timeout() bool }
	if errors.As(err, &ne) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, ErrIdleTimeout) {
		return fmt.Errorf("%s: %w", what, err)
	}
	return fmt.Errorf("%w: %s: %v", ErrDecode, what, err)
}

// eofReader remembers that its reader reached the end of the body before
// the iterator reading it found anything wrong. json-iterator replaces
// io.EOF with an error of its own wording when it meets the end in the
// middle of a value, so its error alone cannot tell a body cut short from
// malformed bytes.
type eofReader struct {
	r  io.Reader
	it *jsoniter.Iterator
	// eof: a Read returned io.EOF with no data while it had no error.
	// Once it has an error nothing more is read, so that how far past a
	// malformed byte the iterator reads cannot decide this.
	eof bool
}

// parseStream returns an iterator over r and the eofReader under it.
func parseStream(r io.Reader, bufSize int) (*jsoniter.Iterator, *eofReader) {
	er := &eofReader{r: r}
	er.it = jsoniter.Parse(jsonx, er, bufSize)
	return er.it, er
}

func (e *eofReader) Read(p []byte) (int, error) {
	if e.it.Error != nil {
		return 0, e.it.Error
	}
	n, err := e.r.Read(p)
	if n == 0 && errors.Is(err, io.EOF) {
		e.eof = true
	}
	return n, err
}
