package protocodec

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/kcmlab/kcm/kube/api"
)

// A Go struct of package api as its protobuf message: the fields its `pb`
// tags name, compiled once per type and cached.

// ErrNoProtobuf is wrapped by the errors for a type that has no protobuf
// form: not a struct, or a field whose Go type has no wire encoding here.
var ErrNoProtobuf = errors.New("protocodec: no protobuf form")

// kind is how one value (a field, or an element of a repeated field or a
// map) is encoded.
type kind uint8

const (
	kString      kind = iota // string: bytes
	kBool                    // varint
	kInt32                   // varint, sign-extended to 64 bits when negative
	kInt64                   // varint
	kBytes                   // []byte: bytes
	kQuantity                // a string holding a resource.Quantity: message {1: string}
	kTime                    // api.Time: message Timestamp {1: seconds, 2: nanos}
	kMicroTime               // api.MicroTime: the same, nanos kept
	kIntOrString             // api.IntOrString: message {1: type, 2: intVal, 3: strVal}
	kRawExt                  // api.RawExtension: message {1: raw bytes}
	kMessage                 // a struct with pb tags (or a virtual message)
)

// wireOf is the wire type of one encoded value of kind k.
func (k kind) wireOf() int {
	switch k {
	case kBool, kInt32, kInt64:
		return wireVarint
	}
	return wireBytes
}

// card is a field's cardinality, from its Go type.
type card uint8

const (
	cOne   card = iota // a value: always written, as k8s.io/api's generated code does
	cPtr               // a pointer: written when not nil
	cSlice             // repeated: each element written (scalars unpacked, proto2's default)
	cMap               // a map[string]V: entries {1: key, 2: value}, in key order
)

// field is one field of a message.
type field struct {
	num  int32
	name string // Go name, for errors
	idx  int    // index of the Go field; -1 for a virtual message (the struct itself)
	card card
	kind kind     // of the value, the element or the map value
	msg  *message // kind kMessage
	// The Go types the decoder makes: the pointee (cPtr), the slice or map type.
	typ reflect.Type
	pos int // index in its message's fields
	// Where Unmarshal writes: the Go field's offset in its struct, and the
	// size of an element of a slice.
	off, elemSize uintptr
}

// message is the compiled form of a struct type, or of a virtual message:
// the members of an inline-embedded upstream message that kcm's struct
// flattens (pb:"1.1": field 1 of the message in field 1).
type message struct {
	typ    reflect.Type
	fields []*field // ascending field numbers
	byNum  []*field // indexed by field number, for the numbers up to maxDirect
	big    map[int32]*field
	slices []*field // the repeated fields, whose lengths Unmarshal counts first
	maps   []*field // the maps, whose sizes it counts too
}

const maxDirect = 128

// lookup returns the field numbered num, or nil.
func (m *message) lookup(num int32) *field {
	if num < maxDirect {
		if int(num) < len(m.byNum) {
			return m.byNum[num]
		}
		return nil
	}
	return m.big[num]
}

// externalTags are the field numbers of the structs package api declares
// outside its types_*.go files (meta.go), by Go field name. They are
// checked against k8s.io/apimachinery like the tags.
var externalTags = map[reflect.Type]map[string]string{
	reflect.TypeFor[api.ObjectMeta](): {
		"Name": "1", "GenerateName": "2", "Namespace": "3", "UID": "5", "ResourceVersion": "6",
		"Generation": "7", "CreationTimestamp": "8", "DeletionTimestamp": "9",
		"DeletionGracePeriodSeconds": "10", "Labels": "11", "Annotations": "12",
		"OwnerReferences": "13", "Finalizers": "14",
	},
	reflect.TypeFor[api.OwnerReference](): {
		"Kind": "1", "Name": "3", "UID": "4", "APIVersion": "5", "Controller": "6", "BlockOwnerDeletion": "7",
	},
}

// tagOf returns the pb tag of the i-th field of struct t ("" for none).
func tagOf(t reflect.Type, i int) string {
	f := t.Field(i)
	if tag, ok := f.Tag.Lookup("pb"); ok {
		return tag
	}
	return externalTags[t][f.Name]
}

var (
	typeTime        = reflect.TypeFor[api.Time]()
	typeMicroTime   = reflect.TypeFor[api.MicroTime]()
	typeIntOrString = reflect.TypeFor[api.IntOrString]()
	typeRawExt      = reflect.TypeFor[api.RawExtension]()
	typeResList     = reflect.TypeFor[api.ResourceList]()
)

var (
	cacheMu sync.Mutex
	cache   sync.Map // reflect.Type → *message
)

// messageOf returns the compiled message of struct type t.
func messageOf(t reflect.Type) (*message, error) {
	if m, ok := cache.Load(t); ok {
		return m.(*message), nil
	}
	cacheMu.Lock()
	defer cacheMu.Unlock()
	return compile(t, map[reflect.Type]*message{})
}

// compile builds t's message; building holds the messages being built,
// so that a recursive type refers to itself. Called with cacheMu held.
func compile(t reflect.Type, building map[reflect.Type]*message) (*message, error) {
	if m, ok := cache.Load(t); ok {
		return m.(*message), nil
	}
	if m, ok := building[t]; ok {
		return m, nil
	}
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("%w: %v is not a struct", ErrNoProtobuf, t)
	}
	m := &message{typ: t}
	building[t] = m
	// Fields by the first number of their path; deeper paths make
	// virtual messages.
	type pathed struct {
		path []int32
		f    *field
	}
	var all []pathed
	for i := 0; i < t.NumField(); i++ {
		tag := tagOf(t, i)
		if tag == "" || tag == "-" {
			continue
		}
		sf := t.Field(i)
		numbers, opts, _ := strings.Cut(tag, ",")
		var path []int32
		for _, s := range strings.Split(numbers, ".") {
			n, err := strconv.ParseInt(s, 10, 32)
			if err != nil || n < 1 || n > 1<<29-1 {
				return nil, fmt.Errorf("%w: %v.%s: bad pb tag %q", ErrNoProtobuf, t, sf.Name, tag)
			}
			path = append(path, int32(n))
		}
		f, err := compileField(sf, i, opts == "quantity", building)
		if err != nil {
			return nil, fmt.Errorf("%v.%s: %w", t, sf.Name, err)
		}
		all = append(all, pathed{path, f})
	}
	// Group by path prefix into m and its virtual messages.
	var place func(m *message, p pathed, depth int) error
	place = func(m *message, p pathed, depth int) error {
		num := p.path[depth]
		if depth == len(p.path)-1 {
			p.f.num = num
			for _, g := range m.fields {
				if g.num == num {
					return fmt.Errorf("%w: %v: field %d used twice", ErrNoProtobuf, t, num)
				}
			}
			m.fields = append(m.fields, p.f)
			return nil
		}
		var v *field
		for _, g := range m.fields {
			if g.num == num {
				v = g
			}
		}
		if v == nil {
			v = &field{num: num, name: fmt.Sprintf("(%d)", num), idx: -1, card: cOne, kind: kMessage, msg: &message{typ: t}}
			m.fields = append(m.fields, v)
		} else if v.idx != -1 {
			return fmt.Errorf("%w: %v: field %d used twice", ErrNoProtobuf, t, num)
		}
		return place(v.msg, p, depth+1)
	}
	for _, p := range all {
		if err := place(m, p, 0); err != nil {
			return nil, err
		}
	}
	index(m)
	cache.Store(t, m)
	return m, nil
}

// index sorts m's fields (and its virtual messages') and builds lookup.
func index(m *message) {
	sort.Slice(m.fields, func(i, j int) bool { return m.fields[i].num < m.fields[j].num })
	for i, f := range m.fields {
		f.pos = i
		switch f.card {
		case cSlice:
			m.slices = append(m.slices, f)
		case cMap:
			m.maps = append(m.maps, f)
		}
		if f.num < maxDirect {
			for int(f.num) >= len(m.byNum) {
				m.byNum = append(m.byNum, nil)
			}
			m.byNum[f.num] = f
		} else {
			if m.big == nil {
				m.big = map[int32]*field{}
			}
			m.big[f.num] = f
		}
		if f.idx == -1 {
			index(f.msg)
		}
	}
}

// compileField works out a Go field's cardinality and kind.
func compileField(sf reflect.StructField, i int, quantity bool, building map[reflect.Type]*message) (*field, error) {
	f := &field{name: sf.Name, idx: i, typ: sf.Type, off: sf.Offset}
	t := sf.Type
	switch {
	case t.Kind() == reflect.Pointer:
		f.card, f.typ, t = cPtr, t.Elem(), t.Elem()
	case t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8:
		f.card, t, f.elemSize = cSlice, t.Elem(), t.Elem().Size()
	case t.Kind() == reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, fmt.Errorf("%w: map key %v", ErrNoProtobuf, t.Key())
		}
		f.card, t = cMap, t.Elem()
		quantity = quantity || sf.Type == typeResList
	}
	k, err := kindOf(t, quantity)
	if err != nil {
		return nil, err
	}
	// Maps are read and written as map[string]string or map[string][]byte,
	// which any map[K]V of string kind K and string or []byte V is in memory.
	if f.card == cMap && k != kString && k != kBytes && k != kQuantity {
		return nil, fmt.Errorf("%w: map value %v", ErrNoProtobuf, t)
	}
	f.kind = k
	if k == kMessage {
		if f.msg, err = compile(t, building); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// kindOf is the kind of a value of Go type t.
func kindOf(t reflect.Type, quantity bool) (kind, error) {
	switch t {
	case typeTime:
		return kTime, nil
	case typeMicroTime:
		return kMicroTime, nil
	case typeIntOrString:
		return kIntOrString, nil
	case typeRawExt:
		return kRawExt, nil
	}
	if quantity && t.Kind() != reflect.String {
		return 0, fmt.Errorf("%w: quantity in a %v", ErrNoProtobuf, t)
	}
	switch t.Kind() {
	case reflect.String:
		if quantity {
			return kQuantity, nil
		}
		return kString, nil
	case reflect.Bool:
		return kBool, nil
	case reflect.Int32:
		return kInt32, nil
	case reflect.Int64:
		return kInt64, nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return kBytes, nil
		}
	case reflect.Struct:
		return kMessage, nil
	}
	return 0, fmt.Errorf("%w: %v", ErrNoProtobuf, t)
}
