package jsonx

import (
	"encoding/json"
	"errors"
	"testing"
)

// TestSkipValue: the end of each kind of JSON value (RFC 8259 §3), found
// without decoding it; strings end at the first unescaped quote (§7).
func TestSkipValue(t *testing.T) {
	tests := []struct {
		name, in string
		from     int
		end      int // -1: ErrIncomplete
	}{
		{"string", `"abc",`, 0, 5},
		{"escaped quote", `"a\"b"]`, 0, 6},
		{"escaped backslash before the quote", `"a\\"x`, 0, 5},
		{"object with brackets in strings", `{"a":"}]","b":[1,{"c":"{"}]} `, 0, 28},
		{"array", `[1, [2, 3], {}]x`, 0, 15},
		{"number ends at a delimiter", `12.5e3,`, 0, 6},
		{"literal at the end of the bytes", `true`, 0, 4},
		{"whitespace before the value", " \t\r\n null}", 0, 9},
		{"from an offset", `{"k": [1]}`, 5, 9},
		{"empty strings", `{"":"","b":[""]}`, 0, 16},
		{"unterminated string", `"abc`, 0, -1},
		{"unterminated object", `{"a":[1,2]`, 0, -1},
		{"nothing", "   ", 0, -1},
	}
	for _, tc := range tests {
		for name, skip := range map[string]func([]byte, int) (int, error){"SkipValue": SkipValue, "SkipValueFast": SkipValueFast} {
			end, err := skip([]byte(tc.in), tc.from)
			if tc.end < 0 {
				if !errors.Is(err, ErrIncomplete) {
					t.Errorf("%s: %s(%q) = %d, %v; want ErrIncomplete", tc.name, name, tc.in, end, err)
				}
				continue
			}
			if err != nil || end != tc.end {
				t.Errorf("%s: %s(%q) = %d, %v; want %d", tc.name, name, tc.in, end, err, tc.end)
			}
		}
	}
}

// TestMembers: every member of an object, keys unquoted, values as
// spans; what is not an object is refused.
func TestMembers(t *testing.T) {
	in := []byte(` { "a" : 1 , "b\"c":{"d":[]}, "e":"f"} `)
	ms, err := Members(in, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]string{{"a", "1"}, {`b\"c`, `{"d":[]}`}, {"e", `"f"`}}
	if len(ms) != len(want) {
		t.Fatalf("%d members, want %d", len(ms), len(want))
	}
	for i, m := range ms {
		if k, v := string(in[m.KeyStart:m.KeyEnd]), string(in[m.ValStart:m.End]); k != want[i][0] || v != want[i][1] {
			t.Errorf("member %d = %s: %s, want %s: %s", i, k, v, want[i][0], want[i][1])
		}
		if in[m.Start] != '"' {
			t.Errorf("member %d starts at %q, want its key's quote", i, in[m.Start])
		}
	}
	for _, bad := range []string{`[1]`, `{"a" 1}`, `{1:2}`, `{"a":1`, `{"a"`, `{"a" `, ``} {
		if _, err := Members([]byte(bad), 0); err == nil {
			t.Errorf("Members(%q) accepted", bad)
		}
	}
}

// TestUnquote: only a non-empty JSON string yields its contents.
func TestUnquote(t *testing.T) {
	for in, want := range map[string]struct {
		s  string
		ok bool
	}{`"abc"`: {"abc", true}, `""`: {"", false}, `null`: {"", false}, `"a`: {"", false}, `1`: {"", false}} {
		if s, ok := Unquote([]byte(in)); s != want.s || ok != want.ok {
			t.Errorf("Unquote(%s) = %q, %v; want %q, %v", in, s, ok, want.s, want.ok)
		}
	}
}

// FuzzSkipValueFast: on valid JSON, the fast scanner ends every value
// where the plain one does, and a value is all of a valid document.
func FuzzSkipValueFast(f *testing.F) {
	for _, s := range []string{`{"a":"\\\"}"}`, `[[],{},"\\"]`, `"\u0022"`, `{"k":[1,2,{"x":null}]}`, `  7 `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		slow, err1 := SkipValue(data, 0)
		fast, err2 := SkipValueFast(data, 0)
		if err1 != nil || err2 != nil || slow != fast {
			t.Fatalf("SkipValue = %d, %v; SkipValueFast = %d, %v", slow, err1, fast, err2)
		}
		if SkipWS(data, slow) != len(data) {
			t.Fatalf("value of %q ends at %d", data, slow)
		}
	})
}

// TestUnmarshalIsCaseSensitive: keys match struct fields exactly, as in
// kube-apiserver; UnmarshalNumbers keeps big integers exact.
func TestUnmarshalIsCaseSensitive(t *testing.T) {
	var v struct {
		Name string `json:"name"`
	}
	if err := Unmarshal([]byte(`{"Name":"x"}`), &v); err != nil || v.Name != "" {
		t.Fatalf("Name matched name: %+v, %v", v, err)
	}
	var m map[string]any
	if err := UnmarshalNumbers([]byte(`{"n":9007199254740993}`), &m); err != nil {
		t.Fatal(err)
	}
	if b, err := Marshal(m); err != nil || string(b) != `{"n":9007199254740993}` {
		t.Fatalf("round trip = %s, %v", b, err)
	}
}
