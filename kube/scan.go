package kube

import (
	"errors"
	"fmt"
)

// A tiny JSON scanner: just enough to find the byte span of a value, so that
// kcm can cut metadata.managedFields out of an object without decoding it.

var errIncomplete = errors.New("unexpected end of JSON")

func skipWS(d []byte, i int) int {
	for i < len(d) && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' || d[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at d[i] == '"'.
func skipString(d []byte, i int) (int, error) {
	for i++; i < len(d); i++ {
		switch d[i] {
		case '\\':
			i++
		case '"':
			return i + 1, nil
		}
	}
	return 0, errIncomplete
}

// skipValue returns the index after the JSON value starting at d[i]
// (whitespace before it is skipped). Containers are matched by depth;
// scalars end at the next delimiter. Validation is shallow on purpose:
// the decoder that reads the value later reports malformed content.
func skipValue(d []byte, i int) (int, error) {
	i = skipWS(d, i)
	if i >= len(d) {
		return 0, errIncomplete
	}
	switch d[i] {
	case '"':
		return skipString(d, i)
	case '{', '[':
		depth := 0
		for ; i < len(d); i++ {
			switch d[i] {
			case '"':
				end, err := skipString(d, i)
				if err != nil {
					return 0, err
				}
				i = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, nil
				}
			}
		}
		return 0, errIncomplete
	}
	for ; i < len(d); i++ {
		switch d[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i, nil
		}
	}
	return i, nil
}

// member is one "key": value pair of an object: the key's span (without
// quotes) and where the pair starts and ends.
type member struct {
	keyStart, keyEnd int // key bytes, unquoted
	start, end       int // from the opening quote of the key to the end of the value
	valStart         int
}

// members lists the members of the object starting at d[i] == '{'.
func members(d []byte, i int) ([]member, error) {
	i = skipWS(d, i)
	if i >= len(d) || d[i] != '{' {
		return nil, fmt.Errorf("%w: expected an object", ErrDecode)
	}
	var out []member
	i++
	for {
		i = skipWS(d, i)
		if i >= len(d) {
			return nil, errIncomplete
		}
		if d[i] == '}' {
			return out, nil
		}
		if d[i] == ',' {
			i++
			continue
		}
		if d[i] != '"' {
			return nil, fmt.Errorf("%w: expected a key at byte %d", ErrDecode, i)
		}
		m := member{start: i, keyStart: i + 1}
		ke, err := skipString(d, i)
		if err != nil {
			return nil, err
		}
		m.keyEnd = ke - 1
		i = skipWS(d, ke)
		if i >= len(d) || d[i] != ':' {
			return nil, fmt.Errorf("%w: expected ':' at byte %d", ErrDecode, i)
		}
		m.valStart = skipWS(d, i+1)
		if m.end, err = skipValue(d, m.valStart); err != nil {
			return nil, err
		}
		out = append(out, m)
		i = m.end
	}
}

// StripManagedFields returns the object's JSON without
// metadata.managedFields. The input is not modified; when there is nothing
// to cut it is returned as is.
func StripManagedFields(obj []byte) ([]byte, error) {
	top, err := members(obj, 0)
	if err != nil {
		return nil, fmt.Errorf("%w: object: %w", ErrDecode, err)
	}
	for _, t := range top {
		if string(obj[t.keyStart:t.keyEnd]) != "metadata" || obj[t.valStart] != '{' {
			continue
		}
		meta, err := members(obj, t.valStart)
		if err != nil {
			return nil, fmt.Errorf("%w: metadata: %w", ErrDecode, err)
		}
		_, raw, err := cutManagedFields(obj, t.valStart, t.end, meta, true)
		return raw, err
	}
	return obj, nil
}
