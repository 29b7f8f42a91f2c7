package decode

import (
	"reflect"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/internal/jsonx"
)

// A schema is a Go type seen the way kcm's JSON configuration (jsonx)
// sees it: which object keys a struct models, which of its fields the
// marshaller leaves out when they are zero, and how each value is
// written. The remainder (remainder.go) is computed by walking an
// object's JSON against its type's schema.

// jsKind is how a Go type reads and writes JSON.
type jsKind uint8

const (
	jsOpaque      jsKind = iota // anything else (floats, interfaces, arrays): kept as read
	jsString                    // a string
	jsInt                       // a signed or unsigned integer
	jsBool                      // a bool
	jsBytes                     // []byte: a base64 string
	jsTime                      // Time: RFC 3339, seconds
	jsMicroTime                 // MicroTime: RFC 3339, microseconds
	jsIntOrString               // IntOrString: a number or a string
	jsStruct                    // an object with the struct's fields
	jsPtr                       // a pointer: null, or its element
	jsSlice                     // an array of elem
	jsMap                       // an object of elem values
)

// jsSchema is the schema of one Go type.
type jsSchema struct {
	kind jsKind
	elem *jsSchema // jsPtr, jsSlice, jsMap
	// The struct's fields by JSON key, and those the marshaller writes
	// even when zero (so that an object lacking them rebuilds without).
	fields  map[string]*jsField
	emitted []*jsField
	// first guesses the key an object of this struct starts with (the
	// one the last object started with): see jsField.next.
	first atomic.Pointer[jsField]

	// For the fast decoder (fastdecode.go): the type, its sharing plan,
	// and for integers their width and sign.
	typ    reflect.Type
	share  *sharePlan
	bits   int
	signed bool
	// arrays are the array types of short backing arrays of a slice
	// schema, made when first needed (see newArray).
	arrays [9]atomic.Pointer[reflect.Type]
	// id numbers the schema among all schemas: its slot in a decoder's
	// scratch arrays and values (see fastDec.takeArray).
	id int
}

// jsField is one field of a struct schema.
type jsField struct {
	key      string // the JSON key
	s        *jsSchema
	omitZero bool    // the marshaller leaves the field out when it is zero
	idx      int     // position among the struct's fields (duplicate detection)
	off      uintptr // offset in the struct (inlined fields included)
	bare     bool    // the key is written without escapes: it can be compared in place
	// next guesses the key after this one (the one that followed it
	// last): objects of a type spell their keys in the same order, so
	// one comparison usually replaces a map lookup.
	next atomic.Pointer[jsField]
	// count counts the table lookups of a string field's values: see
	// shareField.lookup.
	count useCount
}

// maxSchemaFields bounds a struct's fields (the remainder's duplicate-key
// bitmap); kcm's largest struct has a few dozen.
const maxSchemaFields = 256

var (
	schemaMu    sync.Mutex
	schemaCache = map[reflect.Type]*jsSchema{}

	timeType        = reflect.TypeFor[api.Time]()
	microTimeType   = reflect.TypeFor[api.MicroTime]()
	intOrStringType = reflect.TypeFor[api.IntOrString]()
)

// schemaOf returns the schema of t, building and caching it once.
func schemaOf(t reflect.Type) *jsSchema {
	schemaMu.Lock()
	defer schemaMu.Unlock()
	return buildSchema(t)
}

// buildSchema builds t's schema; schemaMu is held. A struct's schema is
// cached before its fields are filled, so recursive types terminate.
func buildSchema(t reflect.Type) *jsSchema {
	if s, ok := schemaCache[t]; ok {
		return s
	}
	s := &jsSchema{typ: t, share: planOf(t), id: len(schemaCache)}
	schemaCache[t] = s
	switch {
	case t == timeType:
		s.kind = jsTime
		return s
	case t == microTimeType:
		s.kind = jsMicroTime
		return s
	case t == intOrStringType:
		s.kind = jsIntOrString
		return s
	}
	switch t.Kind() {
	case reflect.String:
		s.kind = jsString
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		s.kind, s.bits, s.signed = jsInt, t.Bits(), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		s.kind, s.bits = jsInt, t.Bits()
	case reflect.Bool:
		s.kind = jsBool
	case reflect.Pointer:
		s.kind, s.elem = jsPtr, buildSchema(t.Elem())
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			s.kind = jsBytes
		} else {
			s.kind, s.elem = jsSlice, buildSchema(t.Elem())
		}
	case reflect.Map:
		if t.Key().Kind() == reflect.String {
			s.kind, s.elem = jsMap, buildSchema(t.Elem())
		}
	case reflect.Struct:
		if hasOwnJSON(t) {
			break // a type with its own (Un)marshaler kcm does not know: opaque
		}
		s.kind, s.fields = jsStruct, map[string]*jsField{}
		addFields(s, t, 0)
		if len(s.fields) > maxSchemaFields {
			*s = jsSchema{} // too many to track duplicates: opaque
			break
		}
		emitted := zeroKeys(t)
		for _, f := range s.fields {
			f.omitZero = !emitted[f.key]
			if !f.omitZero {
				s.emitted = append(s.emitted, f)
			}
		}
	}
	return s
}

// hasOwnJSON reports whether t decodes or encodes itself.
func hasOwnJSON(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return p.Implements(unmarshalerType) || t.Implements(marshalerType) || p.Implements(marshalerType)
}

var (
	unmarshalerType = reflect.TypeFor[interface{ UnmarshalJSON([]byte) error }]()
	marshalerType   = reflect.TypeFor[interface{ MarshalJSON() ([]byte, error) }]()
)

// addFields adds t's fields to s as encoding/json names them: the json
// tag's name, else the Go name; "-" skipped; unexported fields skipped;
// an embedded struct without a tag name has its fields inlined.
func addFields(s *jsSchema, t reflect.Type, base uintptr) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			addFields(s, f.Type, base+f.Offset)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, dup := s.fields[name]; dup {
			continue // the shallower field wins, as in encoding/json
		}
		s.fields[name] = &jsField{key: name, s: buildSchema(f.Type), idx: len(s.fields), off: base + f.Offset,
			bare: !strings.ContainsFunc(name, func(r rune) bool { return r == '"' || r == '\\' || r < ' ' })}
	}
}

// zeroKeys returns the keys of t's zero value marshalled by jsonx: the
// fields the marshaller writes even when they are zero. Asking the
// marshaller keeps the schema true to it (omitempty on a struct-typed
// field, for one, does not omit it).
func zeroKeys(t reflect.Type) map[string]bool {
	out := map[string]bool{}
	b, err := jsonx.Marshal(reflect.New(t).Interface())
	if err != nil {
		return out
	}
	members, err := jsonx.Members(b, 0)
	if err != nil {
		return out
	}
	for _, m := range members {
		out[string(b[m.KeyStart:m.KeyEnd])] = true
	}
	return out
}
