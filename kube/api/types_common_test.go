package api_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	jsoniter "github.com/json-iterator/go"
	"github.com/kcmlab/kcm/kube/api"
)

// apiCodec is one JSON implementation the typed structs must work with.
type apiCodec struct {
	name      string
	marshal   func(any) ([]byte, error)
	unmarshal func([]byte, any) error
}

// apiCodecs: encoding/json, and json-iterator in the configuration kcm's
// codec uses.
var apiCodecs = []apiCodec{
	{"encoding/json", json.Marshal, json.Unmarshal},
	{"jsoniter", jsoniter.ConfigCompatibleWithStandardLibrary.Marshal, jsoniter.ConfigCompatibleWithStandardLibrary.Unmarshal},
}

// apiRoundTrip decodes input into a fresh T with c, encodes it, decodes the
// encoding again and fails unless both decodings are deeply equal. It
// returns the first decoding and the encoding.
func apiRoundTrip[T any](t *testing.T, c apiCodec, input string) (*T, []byte) {
	t.Helper()
	first := new(T)
	if err := c.unmarshal([]byte(input), first); err != nil {
		t.Fatalf("%s: decode input: %v", c.name, err)
	}
	out, err := c.marshal(first)
	if err != nil {
		t.Fatalf("%s: encode: %v", c.name, err)
	}
	second := new(T)
	if err := c.unmarshal(out, second); err != nil {
		t.Fatalf("%s: decode own output: %v\n%s", c.name, err, out)
	}
	if !reflect.DeepEqual(first, second) {
		t.Fatalf("%s: round trip changed the object\nfirst:  %+v\nsecond: %+v", c.name, first, second)
	}
	return first, out
}

// apiDiffPaths compares the generic JSON trees of the input and of what the
// typed struct wrote back. It returns the paths the output has that differ
// from the input (must be none: kcm writes nothing the server did not say,
// except JSON nulls and empty objects for struct-valued fields, which
// upstream's types write too) and the paths of the input the output lacks
// (the unmodelled fields).
func apiDiffPaths(t *testing.T, input string, output []byte) (wrong, dropped []string) {
	t.Helper()
	var in, out any
	if err := json.Unmarshal([]byte(input), &in); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(output, &out); err != nil {
		t.Fatal(err)
	}
	apiDiff("", in, out, &wrong, &dropped)
	sort.Strings(wrong)
	sort.Strings(dropped)
	return wrong, dropped
}

func apiDiff(path string, in, out any, wrong, dropped *[]string) {
	switch o := out.(type) {
	case map[string]any:
		i, ok := in.(map[string]any)
		if !ok {
			*wrong = append(*wrong, path)
			return
		}
		for k, ov := range o {
			iv, present := i[k]
			if !present {
				if !apiIsBlank(ov) {
					*wrong = append(*wrong, path+"."+k)
				}
				continue
			}
			apiDiff(path+"."+k, iv, ov, wrong, dropped)
		}
		for k := range i {
			if _, present := o[k]; !present {
				*dropped = append(*dropped, path+"."+k)
			}
		}
	case []any:
		i, ok := in.([]any)
		if !ok || len(i) != len(o) {
			*wrong = append(*wrong, path)
			return
		}
		for n := range o {
			apiDiff(fmt.Sprintf("%s[%d]", path, n), i[n], o[n], wrong, dropped)
		}
	default:
		if !reflect.DeepEqual(in, out) {
			*wrong = append(*wrong, path)
		}
	}
}

// apiIsBlank: null, or an object holding only blanks.
func apiIsBlank(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case map[string]any:
		for _, e := range x {
			if !apiIsBlank(e) {
				return false
			}
		}
		return true
	}
	return false
}

// apiMustEqualPaths fails unless got equals want (both sorted).
func apiMustEqualPaths(t *testing.T, what string, got, want []string) {
	t.Helper()
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s paths:\ngot:  %q\nwant: %q", what, got, want)
	}
}

func TestIntOrStringJSON(t *testing.T) {
	tests := []struct {
		in      string
		want    api.IntOrString
		wantOut string
	}{
		{`3`, api.IntOrStringFromInt(3), `3`},
		{`-1`, api.IntOrStringFromInt(-1), `-1`},
		{`"25%"`, api.IntOrStringFromString("25%"), `"25%"`},
		{`"http"`, api.IntOrStringFromString("http"), `"http"`},
		{`"3"`, api.IntOrStringFromString("3"), `"3"`}, // a string stays a string
		{`"a\"b"`, api.IntOrStringFromString(`a"b`), `"a\"b"`},
		{`""`, api.IntOrStringFromString(""), `""`},
		{`null`, api.IntOrString{}, `0`}, // as upstream: null is the integer 0
	}
	for _, c := range apiCodecs {
		for _, tt := range tests {
			var got api.IntOrString
			if err := c.unmarshal([]byte(tt.in), &got); err != nil {
				t.Errorf("%s: decode %s: %v", c.name, tt.in, err)
				continue
			}
			if got != tt.want {
				t.Errorf("%s: decode %s = %#v, want %#v", c.name, tt.in, got, tt.want)
			}
			out, err := c.marshal(got)
			if err != nil || string(out) != tt.wantOut {
				t.Errorf("%s: encode %#v = %s, %v; want %s", c.name, got, out, err, tt.wantOut)
			}
		}
		for _, bad := range []string{`1.5`, `4294967296`, `true`, `{}`, `[1]`} {
			var v api.IntOrString
			err := c.unmarshal([]byte(bad), &v)
			if err == nil {
				t.Errorf("%s: decode %s: want an error, got %#v", c.name, bad, v)
			}
		}
	}
}

func TestIntOrStringInStruct(t *testing.T) {
	// RollingUpdate bounds are optional pointers: absent stays nil, present
	// keeps its type.
	in := `{"maxSurge":"25%","maxUnavailable":0}`
	for _, c := range apiCodecs {
		ru, out := apiRoundTrip[api.RollingUpdateDeployment](t, c, in)
		if ru.MaxSurge == nil || !ru.MaxSurge.IsString() || ru.MaxSurge.StrValue() != "25%" {
			t.Errorf("%s: maxSurge = %v", c.name, ru.MaxSurge)
		}
		if ru.MaxUnavailable == nil || ru.MaxUnavailable.IsString() || ru.MaxUnavailable.IntValue() != 0 {
			t.Errorf("%s: maxUnavailable = %v", c.name, ru.MaxUnavailable)
		}
		if string(out) != `{"maxUnavailable":0,"maxSurge":"25%"}` {
			t.Errorf("%s: encoded %s", c.name, out)
		}
		var empty api.RollingUpdateDeployment
		if err := c.unmarshal([]byte(`{}`), &empty); err != nil || empty.MaxSurge != nil || empty.MaxUnavailable != nil {
			t.Errorf("%s: empty object decoded to %+v, %v", c.name, empty, err)
		}
	}
}

func TestIntOrStringScaledValue(t *testing.T) {
	// Kubernetes resolves maxSurge rounding up and maxUnavailable rounding
	// down (deployment util ResolveFenceposts): the default 25%/25% on 10
	// replicas gives surge 3, unavailable 2.
	tests := []struct {
		v       api.IntOrString
		total   int
		roundUp bool
		want    int
	}{
		{api.IntOrStringFromString("25%"), 10, true, 3},
		{api.IntOrStringFromString("25%"), 10, false, 2},
		{api.IntOrStringFromString("25%"), 4, true, 1},
		{api.IntOrStringFromString("25%"), 4, false, 1},
		{api.IntOrStringFromString("25%"), 1, true, 1},
		{api.IntOrStringFromString("25%"), 1, false, 0},
		{api.IntOrStringFromString("0%"), 7, true, 0},
		{api.IntOrStringFromString("100%"), 7, false, 7},
		{api.IntOrStringFromString("150%"), 3, true, 5},
		{api.IntOrStringFromString("33%"), 3, true, 1},
		{api.IntOrStringFromString("33%"), 3, false, 0},
		{api.IntOrStringFromString("-25%"), 10, true, -2}, // ceil(-2.5)
		{api.IntOrStringFromString("-25%"), 10, false, -3},
		{api.IntOrStringFromInt(5), 100, true, 5}, // integers ignore total
		{api.IntOrStringFromInt(0), 100, false, 0},
	}
	for _, tt := range tests {
		got, err := tt.v.ScaledValue(tt.total, tt.roundUp)
		if err != nil || got != tt.want {
			t.Errorf("%v.ScaledValue(%d, %v) = %d, %v; want %d", tt.v, tt.total, tt.roundUp, got, err, tt.want)
		}
		v := tt.v
		if got2, err := api.GetScaledValueFromIntOrPercent(&v, tt.total, tt.roundUp); got2 != got || err != nil {
			t.Errorf("GetScaledValueFromIntOrPercent(%v) = %d, %v; want %d", tt.v, got2, err, got)
		}
	}
	for _, bad := range []string{"25", "abc%", "%", "2.5%", "http"} {
		_, err := api.IntOrStringFromString(bad).ScaledValue(10, true)
		if !errors.Is(err, api.ErrInvalidIntOrString) {
			t.Errorf("ScaledValue(%q): err = %v, want ErrInvalidIntOrString", bad, err)
		}
	}
	if _, err := api.GetScaledValueFromIntOrPercent(nil, 10, true); !errors.Is(err, api.ErrInvalidIntOrString) {
		t.Errorf("nil: err = %v", err)
	}
}

func TestIntOrStringAccessors(t *testing.T) {
	i, s := api.IntOrStringFromInt(8080), api.IntOrStringFromString("9090")
	if i.IsString() || i.IntValue() != 8080 || i.String() != "8080" || i.StrValue() != "" {
		t.Errorf("int accessors: %v %v %q %q", i.IsString(), i.IntValue(), i.String(), i.StrValue())
	}
	if !s.IsString() || s.IntValue() != 9090 || s.String() != "9090" || s.StrValue() != "9090" {
		t.Errorf("string accessors: %v %v %q %q", s.IsString(), s.IntValue(), s.String(), s.StrValue())
	}
	if api.IntOrStringFromString("http").IntValue() != 0 {
		t.Error("a non-numeric string should have IntValue 0")
	}
	if (api.IntOrString{}) != api.IntOrStringFromInt(0) {
		t.Error("the zero value should be the integer 0")
	}
}

func TestLabelSelectorJSON(t *testing.T) {
	in := `{"matchLabels":{"app":"web"},"matchExpressions":[{"key":"tier","operator":"In","values":["a","b"]},{"key":"canary","operator":"DoesNotExist"}]}`
	for _, c := range apiCodecs {
		ls, out := apiRoundTrip[api.LabelSelector](t, c, in)
		if string(out) != in {
			t.Errorf("%s: re-encoded as %s", c.name, out)
		}
		if ls.MatchExpressions[1].Values != nil {
			t.Errorf("%s: DoesNotExist values = %#v, want nil", c.name, ls.MatchExpressions[1].Values)
		}
		// An empty selector encodes as {} (it means "everything"), which
		// is distinct from an absent one (nil: "nothing").
		out, err := c.marshal(&api.LabelSelector{})
		if err != nil || string(out) != `{}` {
			t.Errorf("%s: empty selector = %s, %v", c.name, out, err)
		}
	}
}
