package jsonx

import jsoniter "github.com/json-iterator/go"

// strict is the one JSON configuration kcm decodes and encodes objects
// with: json-iterator, behaving like encoding/json (tags, Marshaler
// methods, escaping, sorted map keys), but without reflection costs on the
// hot paths, and matching object keys to struct fields the way
// kube-apiserver does:
//
//   - CaseSensitive: "Metadata" is not "metadata" (Kubernetes decodes
//     case-sensitively; encoding/json would fold case). It also spares a
//     strings.ToLower per unmatched key.
//   - ObjectFieldMustBeSimpleString: struct field names are looked up in
//     the read buffer instead of being copied into a new string first —
//     one allocation less per key of every struct with more than ten
//     fields (ObjectMeta, PodSpec, Container, ...). Kubernetes field names
//     never contain escapes.
var strict = jsoniter.Config{EscapeHTML: true, SortMapKeys: true, ValidateJsonRawMessage: true,
	CaseSensitive: true, ObjectFieldMustBeSimpleString: true}.Froze()

// numbers decodes numbers into json.Number, so that merging documents
// never rounds an int64 through float64.
var numbers = jsoniter.Config{EscapeHTML: true, SortMapKeys: true, ValidateJsonRawMessage: true, UseNumber: true}.Froze()

// Marshal encodes v like encoding/json.Marshal.
func Marshal(v any) ([]byte, error) { return strict.Marshal(v) }

// Unmarshal decodes data into v, matching keys to struct fields
// case-sensitively, as kube-apiserver does.
func Unmarshal(data []byte, v any) error { return strict.Unmarshal(data, v) }

// UnmarshalNumbers decodes data into v with numbers as json.Number, so
// that an int64 beyond 2^53 survives a decode and re-encode.
func UnmarshalNumbers(data []byte, v any) error { return numbers.Unmarshal(data, v) }
