package jsonx

import (
	"errors"
	"fmt"
)

// ErrIncomplete: the bytes end inside a value.
var ErrIncomplete = errors.New("unexpected end of JSON")

// SkipWS returns the index of the first byte at or after i that is not
// JSON whitespace.
func SkipWS(d []byte, i int) int {
	for i < len(d) && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' || d[i] == '\r') {
		i++
	}
	return i
}

// SkipString returns the index after the string starting at d[i] == '"'.
func SkipString(d []byte, i int) (int, error) {
	for i++; i < len(d); i++ {
		switch d[i] {
		case '\\':
			i++
		case '"':
			return i + 1, nil
		}
	}
	return 0, ErrIncomplete
}

// SkipValue returns the index after the JSON value starting at d[i]
// (whitespace before it is skipped). Containers are matched by depth;
// scalars end at the next delimiter. Validation is shallow on purpose:
// the decoder that reads the value later reports malformed content.
func SkipValue(d []byte, i int) (int, error) {
	i = SkipWS(d, i)
	if i >= len(d) {
		return 0, ErrIncomplete
	}
	switch d[i] {
	case '"':
		return SkipString(d, i)
	case '{', '[':
		depth := 0
		for ; i < len(d); i++ {
			switch d[i] {
			case '"':
				end, err := SkipString(d, i)
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
		return 0, ErrIncomplete
	}
	for ; i < len(d); i++ {
		switch d[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i, nil
		}
	}
	return i, nil
}

// Member is one "key": value pair of an object: the key's span (without
// quotes) and where the pair starts and ends.
type Member struct {
	KeyStart, KeyEnd int // key bytes, unquoted
	Start, End       int // from the opening quote of the key to the end of the value
	ValStart         int
}

// Members lists the members of the object starting at d[i] == '{'
// (after whitespace).
func Members(d []byte, i int) ([]Member, error) { return MembersInto(nil, d, i) }

// MembersInto is Members appending to out (which may be a reused or
// stack buffer). Keys and values are skipped with SkipStringFast and
// SkipValueFast: the same shallow rules as SkipString and SkipValue.
func MembersInto(out []Member, d []byte, i int) ([]Member, error) {
	i = SkipWS(d, i)
	if i >= len(d) || d[i] != '{' {
		return nil, errors.New("expected an object")
	}
	i++
	for {
		i = SkipWS(d, i)
		if i >= len(d) {
			return nil, ErrIncomplete
		}
		if d[i] == '}' {
			return out, nil
		}
		if d[i] == ',' {
			i++
			continue
		}
		if d[i] != '"' {
			return nil, fmt.Errorf("expected a key at byte %d", i)
		}
		m := Member{Start: i, KeyStart: i + 1}
		ke, err := SkipStringFast(d, i)
		if err != nil {
			return nil, err
		}
		m.KeyEnd = ke - 1
		i = SkipWS(d, ke)
		if i >= len(d) || d[i] != ':' {
			return nil, fmt.Errorf("expected ':' at byte %d", i)
		}
		m.ValStart = SkipWS(d, i+1)
		if m.End, err = SkipValueFast(d, m.ValStart); err != nil {
			return nil, err
		}
		out = append(out, m)
		i = m.End
	}
}

// SkipStringFast is SkipString for long strings: it jumps from quote to
// quote with quoteIndex, and a quote ends the string when an even
// number of backslashes precede it.
func SkipStringFast(d []byte, i int) (int, error) {
	for j := i + 1; ; {
		k := quoteIndex(d[j:])
		if k < 0 {
			return 0, ErrIncomplete
		}
		q := j + k
		b := q - 1
		for b > i && d[b] == '\\' {
			b--
		}
		if (q-1-b)%2 == 0 {
			return q + 1, nil
		}
		j = q + 1
	}
}

// jsonClass sorts the bytes SkipValueFast stops at.
var jsonClass = func() (t [256]byte) {
	t['"'], t['{'], t['['], t['}'], t[']'] = 1, 2, 2, 3, 3
	return t
}()

// SkipValueFast is SkipValue with SkipStringFast and a table lookup per
// byte of a container: the same shallow checks, fewer branches on the
// bytes of spec and status.
func SkipValueFast(d []byte, i int) (int, error) {
	i = SkipWS(d, i)
	if i >= len(d) || (d[i] != '{' && d[i] != '[') {
		return SkipValue(d, i)
	}
	depth := 0
	for ; i < len(d); i++ {
		switch jsonClass[d[i]] {
		case 0:
		case 1:
			end, err := SkipStringFast(d, i)
			if err != nil {
				return 0, err
			}
			i = end - 1
		case 2:
			depth++
		case 3:
			depth--
			if depth == 0 {
				return i + 1, nil
			}
		}
	}
	return 0, ErrIncomplete
}

// Unquote returns the bytes between the quotes of a JSON string (escapes
// are left as they are), or ok=false for null, "" and anything else.
func Unquote(b []byte) (string, bool) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return "", false
	}
	return string(b[1 : len(b)-1]), len(b) > 2
}
