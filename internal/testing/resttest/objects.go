package resttest

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/store"
)

// The objects a test gives the server and reads back from it, and the
// listers a controller under test reads its cache through.

// Add stores objs as the apiserver holds them, replacing any object of the
// same name, without recording an action. Their uid and resourceVersion
// are kept (filled in when missing: the next resourceVersion), their
// creationTimestamp as given, apiVersion and kind set from res when
// missing. A typed object decoded from JSON keeps the
// fields kcm does not model, as an Update of it would. Nil entries are
// skipped.
func Add[T api.Object](s *Server, res rest.Resource, objs ...T) {
	if s.t != nil {
		s.t.Helper()
	}
	codec := codecFor[T]()
	for _, obj := range objs {
		if reflect.ValueOf(obj).IsNil() {
			continue
		}
		b, err := rest.EncodeForUpdate(codec, obj)
		if err != nil {
			s.fatal(fmt.Errorf("resttest: add %s: %w", res, err))
			return
		}
		o, err := decodeObject(b)
		if err != nil {
			s.fatal(fmt.Errorf("resttest: add %s: %w", res, err))
			return
		}
		if v, _ := o["apiVersion"].(string); v == "" {
			o["apiVersion"] = res.GroupVersion()
		}
		if k, _ := o["kind"].(string); k == "" && res.Kind != "" {
			o["kind"] = res.Kind
		}
		s.mu.Lock()
		s.tr.put(refOf(res), o)
		s.mu.Unlock()
	}
}

// Replace makes objs the server's only objects of res: Add, after
// removing the others.
func Replace[T api.Object](s *Server, res rest.Resource, objs ...T) {
	if s.t != nil {
		s.t.Helper()
	}
	s.mu.Lock()
	for k := range s.tr.objects {
		if k.ref == refOf(res) {
			delete(s.tr.objects, k)
		}
	}
	s.mu.Unlock()
	Add(s, res, objs...)
}

// Get returns the stored object of res named name in namespace ("" for a
// cluster-scoped one), decoded as T, and whether there is one.
func Get[T api.Object](s *Server, res rest.Resource, namespace, name string) (T, bool) {
	s.mu.Lock()
	o, ok := s.tr.objects[key{refOf(res), namespace, name}]
	var b []byte
	if ok {
		b = encode(o)
	}
	s.mu.Unlock()
	var zero T
	if !ok {
		return zero, false
	}
	return decodeAs[T](s, res, b), true
}

// List returns the stored objects of res in namespace ("" = all), ordered
// by namespace and name, decoded as T.
func List[T api.Object](s *Server, res rest.Resource, namespace string) []T {
	s.mu.Lock()
	objs, err := s.tr.list(refOf(res), namespace, "", "")
	raw := make([][]byte, len(objs))
	for i, o := range objs {
		raw[i] = encode(o)
	}
	s.mu.Unlock()
	if err != nil {
		s.fatal(err)
	}
	out := make([]T, len(raw))
	for i, b := range raw {
		out[i] = decodeAs[T](s, res, b)
	}
	return out
}

// Remove deletes the stored object at once, as if whatever held it had
// let go, without recording an action. It reports whether there was one.
func (s *Server) Remove(res rest.Resource, namespace, name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := key{refOf(res), namespace, name}
	_, ok := s.tr.objects[k]
	delete(s.tr.objects, k)
	return ok
}

func refOf(res rest.Resource) ref { return ref{res.Group, res.Resource} }

func decodeAs[T api.Object](s *Server, res rest.Resource, b []byte) T {
	out, err := codecFor[T]().Decode(b)
	if err != nil {
		s.fatal(fmt.Errorf("resttest: decode %s: %w", res, err))
	}
	return out
}

// codecFor is the codec of T: decode.Raw for RawObjects, else one that
// decodes into a new T and remembers the JSON (as decode.Typed does).
func codecFor[T api.Object]() decode.Codec[T] {
	var zero T
	if c, ok := any(decode.Raw()).(decode.Codec[T]); ok {
		return c
	}
	return typedCodec[T]{elem: reflect.TypeOf(zero).Elem()}
}

type typedCodec[T api.Object] struct{ elem reflect.Type }

func (c typedCodec[T]) Decode(data []byte) (T, error) {
	p := reflect.New(c.elem).Interface().(T)
	if err := json.Unmarshal(data, p); err != nil {
		var zero T
		return zero, fmt.Errorf("%w: %T: %v", api.ErrDecode, p, err)
	}
	p.GetObjectMeta().SetRaw(data)
	return p, nil
}

// Lister returns a lister over objs, as an informer's cache holds them
// once it has listed them: a store with the informers' indexes
// (namespace, label, owner), loaded without a watch. resource names the
// objects in its errors ("pods").
func Lister[T api.Object](resource string, objs ...T) informer.Lister[T] {
	st := store.New(store.Options[T]{Indexers: store.BuiltinIndexers[T]()})
	st.Replace(objs)
	return informer.NewLister(st.View(), resource)
}

// ListerFrom returns a lister over the server's objects of res as they
// are now: the cache of an informer that has caught up with every write
// so far.
func ListerFrom[T api.Object](s *Server, res rest.Resource) informer.Lister[T] {
	return Lister(res.Resource, List[T](s, res, "")...)
}
