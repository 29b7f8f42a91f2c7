package resttest

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Objects as decoded JSON: reading and writing them, comparing them, and
// reaching into their metadata.

func decodeObject(b []byte) (object, error) {
	var o object
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&o); err != nil {
		return nil, err
	}
	if o == nil {
		return nil, fmt.Errorf("not a JSON object: %.40s", b)
	}
	return o, nil
}

func encode(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // maps of decoded JSON always encode
	}
	return b
}

func deepCopy(o object) object {
	c, err := decodeObject(encode(o))
	if err != nil {
		panic(err)
	}
	return c
}

// normal is v as a comparable value: nil for null and for empty maps and
// lists, which JSON writers drop or keep at will.
func normal(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			return nil
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			if n := normal(e); n != nil {
				out[k] = n
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case []any:
		if len(x) == 0 {
			return nil
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normal(e)
		}
		return out
	}
	return v
}

// meta returns o's metadata, adding an empty one if it has none.
func meta(o object) map[string]any {
	m, ok := o["metadata"].(map[string]any)
	if !ok {
		m = map[string]any{}
		o["metadata"] = m
	}
	return m
}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

func num(v any) int64 {
	switch n := v.(type) {
	case json.Number:
		i, _ := n.Int64()
		return i
	case float64:
		return int64(n)
	}
	return 0
}

func strMap(v any) map[string]string {
	m, _ := v.(map[string]any)
	out := make(map[string]string, len(m))
	for k, e := range m {
		out[k], _ = e.(string)
	}
	return out
}

func strList(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, e := range l {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func toAny(l []string) []any {
	out := make([]any, len(l))
	for i, s := range l {
		out[i] = s
	}
	return out
}

// copyField sets dst[f] to src[f], or removes it when src has none.
func copyField(dst, src map[string]any, f string) {
	if v, ok := src[f]; ok {
		dst[f] = v
	} else {
		delete(dst, f)
	}
}
