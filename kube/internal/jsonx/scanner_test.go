package jsonx

import (
	"errors"
	"testing"
)

// TestScannerAgreesWithSkipValue: fed a value in pieces of every size, the
// Scanner finds the end SkipValue finds on the whole value.
func TestScannerAgreesWithSkipValue(t *testing.T) {
	for _, in := range []string{
		`{"a":1}`, `{"b":"}"}`, `{"s":"a\"}b"}`, `{"s":"a\\"}`, `{"s":"a\\\"}"}`, `[1,[2,{"x":[]}],"]"]`,
		`"str\"ing"`, `"\\"`, `42,`, `true}`, `null `, `{"k":"\\\\\\"}"}`, `[]`, `{}`,
		`{"a":{"b":{"c":"d"}},"e":["f","g\"h"]}`,
		// Strings long enough for the word-at-a-time search, with
		// quotes and escapes at and across word boundaries.
		`{"key":"0123456789abcdef0123456789abcdef0123456789","k2":"x"}`,
		`{"a":"0123456\"9abcdef","b":"01234567\"abcdef}"}`,
		`{"a":"012345678901234567890123456789\"}]","b":[1]}`,
		`["0123456\\","01234567\\\"}","0123456789abcdef0123456789abcdef\\"]`,
		`{"a":"\"\"\"\"\"\"\"\"\"","b":"}"}`,
	} {
		want, wantErr := SkipValue([]byte(in), 0)
		for piece := 1; piece <= len(in); piece++ {
			var s Scanner
			var end int
			var err error
			for n := piece; ; n = min(n+piece, len(in)) {
				end, err = s.Scan([]byte(in[:n]))
				if !errors.Is(err, ErrIncomplete) || n == len(in) {
					break
				}
			}
			if s.Scalar() && errors.Is(err, ErrIncomplete) {
				end, err = len(in), nil // the end of the input completes a scalar
			}
			if end != want || (err == nil) != (wantErr == nil) {
				t.Errorf("%s in pieces of %d: %d, %v; SkipValue: %d, %v", in, piece, end, err, want, wantErr)
			}
			if s.Scanned() > len(in) {
				t.Errorf("%s in pieces of %d: examined %d bytes of %d", in, piece, s.Scanned(), len(in))
			}
		}
	}
}

// TestScannerIncomplete: a value cut short is incomplete, whatever state
// the cut leaves the scanner in.
func TestScannerIncomplete(t *testing.T) {
	for _, in := range []string{`{"a":`, `{"a":"x`, `"ab\"`, `[[]`, `12`, ``} {
		var s Scanner
		if _, err := s.Scan([]byte(in)); !errors.Is(err, ErrIncomplete) {
			t.Errorf("%q: %v, want ErrIncomplete", in, err)
		}
	}
	var s Scanner
	if end, err := s.Scan([]byte(`}`)); err != nil || end != 0 {
		t.Errorf("a delimiter is no value: %d, %v", end, err)
	}
	s.Reset()
	if s.Scanned() != 0 || s.Scalar() {
		t.Error("Reset must forget the last value")
	}
}

// TestScannerLastChild: once a value is complete, LastChild spans the
// last object or array directly inside it, however the value was cut
// into pieces; a value with no container directly inside has none.
func TestScannerLastChild(t *testing.T) {
	tests := []struct {
		value, child string // child "": none
	}{
		{`{"type":"ADDED","object":{"a":{"b":[1,"}"]}}}`, `{"a":{"b":[1,"}"]}}`},
		{`{"a":{"b":1},"c":[2,{}],"d":3}`, `[2,{}]`},
		{`[{"x":"]"},[]]`, `[]`},
		{`{"a":1,"b":"{}"}`, ""},
		{`"{[]}"`, ""},
	}
	for _, tc := range tests {
		for cut := 1; cut <= len(tc.value); cut++ {
			var s Scanner
			end, err := s.Scan([]byte(tc.value[:cut]))
			if err != nil {
				end, err = s.Scan([]byte(tc.value))
			}
			if err != nil || end != len(tc.value) {
				t.Fatalf("%s cut at %d: end %d, %v", tc.value, cut, end, err)
			}
			start, stop, ok := s.LastChild()
			switch {
			case tc.child == "" && ok:
				t.Fatalf("%s: a last child %q where there is none", tc.value, tc.value[start:stop])
			case tc.child != "" && (!ok || tc.value[start:stop] != tc.child):
				t.Fatalf("%s cut at %d: last child [%d:%d] ok=%v, want %s", tc.value, cut, start, stop, ok, tc.child)
			}
		}
	}
}

// FuzzScannerAgreesWithSkipValue: whatever the bytes, the Scanner fed
// them in pieces ends the value where SkipValue ends it (or neither
// does).
func FuzzScannerAgreesWithSkipValue(f *testing.F) {
	f.Add([]byte(`{"a":"0123456\\"9abcdef","b":"x"}`), uint8(3))
	f.Add([]byte(`["0123456789abcdef0123456789abcdef\\\\","]"]`), uint8(7))
	f.Fuzz(func(t *testing.T, in []byte, piece uint8) {
		if len(in) == 0 || (in[0] != '{' && in[0] != '[' && in[0] != '"') {
			return // scalars end at the input's end, which SkipValue does not know
		}
		want, wantErr := SkipValue(in, 0)
		step := 1 + int(piece)%16
		var s Scanner
		var end int
		var err error
		for n := min(step, len(in)); ; n = min(n+step, len(in)) {
			end, err = s.Scan(in[:n])
			if !errors.Is(err, ErrIncomplete) || n == len(in) {
				break
			}
		}
		if (err == nil) != (wantErr == nil) || (err == nil && end != want) {
			t.Fatalf("%q in pieces of %d: %d, %v; SkipValue: %d, %v", in, step, end, err, want, wantErr)
		}
	})
}
