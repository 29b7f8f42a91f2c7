package decode

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unsafe"

	"github.com/kcmlab/kcm/kube/api/internal/objsrc"
	"github.com/kcmlab/kcm/kube/internal/jsonx"
)

// The remainder's operations (see remainder.go): written while an
// object's JSON is scanned, applied to the marshalled struct to rebuild
// the JSON as read.

// sep counts one more operation, writing the comma before it.
func (r *remScan) sep(nops *int) {
	if *nops > 0 {
		r.out = append(r.out, ',')
	}
	*nops++
}

// setAt appends ["w",key,value], or ["w",idx,value] when key is nil.
func (r *remScan) setAt(nops *int, key []byte, idx int, value []byte) {
	if key != nil {
		r.set(nops, key, value)
		return
	}
	r.sep(nops)
	r.out = append(r.out, `["w",`...)
	r.out = strconv.AppendInt(r.out, int64(idx), 10)
	r.out = append(r.out, ',')
	r.out = append(r.out, value...)
	r.out = append(r.out, ']')
}

// open starts ["n",key,[ (or ["n",idx,[ when key is nil) and returns
// where it started, for close.
func (r *remScan) open(nops *int, key []byte, idx int) int {
	start := len(r.out)
	r.sep(nops)
	r.out = append(r.out, `["n",`...)
	if key != nil {
		r.out = append(r.out, key...)
	} else {
		r.out = strconv.AppendInt(r.out, int64(idx), 10)
	}
	r.out = append(r.out, ",["...)
	return start
}

// close ends what open started, with n operations inside: none removes
// it.
func (r *remScan) close(nops *int, start, n int) {
	if n == 0 {
		r.out = r.out[:start]
		*nops--
		return
	}
	r.out = append(r.out, "]]"...)
}

// del appends ["d",key].
func (r *remScan) del(nops *int, key string) {
	r.sep(nops)
	r.out = append(r.out, `["d",`...)
	r.out = strconv.AppendQuote(r.out, key)
	r.out = append(r.out, ']')
}

// set appends ["w",key,value].
func (r *remScan) set(nops *int, key, value []byte) {
	r.sep(nops)
	r.out = append(r.out, `["w",`...)
	r.out = append(r.out, key...)
	r.out = append(r.out, ',')
	r.out = append(r.out, value...)
	r.out = append(r.out, ']')
}

// remainder is the part of an object's JSON its typed struct does not
// hold (ops, the operations above; empty for none) and how to marshal the
// struct (t). Objects with identical remainders share one; it is never
// modified. The source of each of those objects names &rb (see
// newRemainder).
type remainder struct {
	ops []byte
	t   *compactType
	rb  objsrc.Rebuilder
}

// newRemainder returns the remainder of ops for objects of t, whose
// Rebuilder (&rb) their sources name: the object as decoded and the
// remainder rebuild its JSON.
func newRemainder(ops []byte, t *compactType) *remainder {
	r := &remainder{ops: ops, t: t}
	r.rb = objsrc.MakeRebuilder(rebuildRemainder, unsafe.Pointer(r))
	return r
}

// rebuildRemainder is rebuild as a Rebuilder's function: rem is the
// *remainder.
func rebuildRemainder(rem, obj unsafe.Pointer) ([]byte, error) {
	return (*remainder)(rem).rebuild(obj)
}

// rebuild returns the JSON of obj (an object of r.t's type, as decoded)
// with the remainder applied: the JSON it was decoded from.
func (r *remainder) rebuild(obj unsafe.Pointer) ([]byte, error) {
	b, err := r.t.marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("rebuilding the JSON of a %s: %w", r.t.name, err)
	}
	if len(r.ops) == 0 {
		return b, nil
	}
	var doc any
	if err := jsonx.UnmarshalNumbers(b, &doc); err != nil {
		return nil, fmt.Errorf("rebuilding the JSON of a %s: %w", r.t.name, err)
	}
	var ops []any
	if err := jsonx.UnmarshalNumbers(r.ops, &ops); err != nil {
		return nil, fmt.Errorf("rebuilding the JSON of a %s: remainder: %w", r.t.name, err)
	}
	if err := applyOps(doc, ops); err != nil {
		return nil, fmt.Errorf("rebuilding the JSON of a %s: %w", r.t.name, err)
	}
	return jsonx.Marshal(doc)
}

// errRemainder: a remainder's operations do not fit the marshalled
// object (a bug, or an object modified in place).
var errRemainder = errors.New("remainder does not fit the object")

// applyOps applies remainder operations to doc, an object or array
// decoded from JSON.
func applyOps(doc any, ops []any) error {
	for _, o := range ops {
		op, _ := o.([]any)
		if len(op) < 2 {
			return errRemainder
		}
		kind, _ := op[0].(string)
		switch target := doc.(type) {
		case map[string]any:
			key, ok := op[1].(string)
			if !ok {
				return errRemainder
			}
			switch {
			case kind == "w" && len(op) == 3:
				target[key] = op[2]
			case kind == "d":
				delete(target, key)
			case kind == "n" && len(op) == 3:
				if err := applyNested(target[key], op[2]); err != nil {
					return err
				}
			default:
				return errRemainder
			}
		case []any:
			n, ok := op[1].(json.Number)
			idx, err := n.Int64()
			if !ok || err != nil || idx < 0 || int(idx) >= len(target) || len(op) != 3 {
				return errRemainder
			}
			switch kind {
			case "w":
				target[idx] = op[2]
			case "n":
				if err := applyNested(target[idx], op[2]); err != nil {
					return err
				}
			default:
				return errRemainder
			}
		default:
			return errRemainder
		}
	}
	return nil
}

// applyNested applies the operation list ops to the container doc.
func applyNested(doc, ops any) error {
	list, ok := ops.([]any)
	if !ok {
		return errRemainder
	}
	return applyOps(doc, list)
}
