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
