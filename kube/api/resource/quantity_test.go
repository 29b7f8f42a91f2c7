package resource_test

import (
	"errors"
	"math"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/resource"
)

// TestParseMatchesApimachinery: every input of the vectors parses (or is
// refused) as apimachinery's ParseQuantity, and the result prints, marshals,
// reports its format and its values as apimachinery's does; the canonical
// form (String after an arithmetic operation) too.
func TestParseMatchesApimachinery(t *testing.T) {
	var checkedValue, checkedMilli int
	for _, v := range parseVectors {
		q, err := resource.Parse(v.in)
		if !v.ok {
			if err == nil || !errors.Is(err, resource.ErrInvalidQuantity) {
				t.Errorf("Parse(%q) = %v, %v; want an error wrapping ErrInvalidQuantity", v.in, q, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%q): %v", v.in, err)
			continue
		}
		if got := q.String(); got != v.str {
			t.Errorf("Parse(%q).String() = %q, want %q", v.in, got, v.str)
		}
		if got := string(q.Format()); got != v.format {
			t.Errorf("Parse(%q).Format() = %q, want %q", v.in, got, v.format)
		}
		if js, _ := q.MarshalJSON(); string(js) != v.json {
			t.Errorf("Parse(%q).MarshalJSON() = %s, want %s", v.in, js, v.json)
		}
		if got := q.Add(resource.Quantity{}).String(); got != v.added {
			t.Errorf("Parse(%q).Add(zero).String() = %q, want %q", v.in, got, v.added)
		}
		if v.valueRule {
			checkedValue++
			if got := q.Value(); got != v.value {
				t.Errorf("Parse(%q).Value() = %d, want %d", v.in, got, v.value)
			}
		}
		if v.milliRule {
			checkedMilli++
			if got := q.MilliValue(); got != v.milli {
				t.Errorf("Parse(%q).MilliValue() = %d, want %d", v.in, got, v.milli)
			}
		}
	}
	if checkedValue < 300 || checkedMilli < 300 {
		t.Errorf("only %d Value and %d MilliValue vectors checked", checkedValue, checkedMilli)
	}
}

// TestAddSubCmpMatchApimachinery: sums, differences and comparisons of
// pairs of quantities, and the format rule of (*Quantity).Add and Sub (a
// zero receiver takes the operand's format), as apimachinery computes them.
func TestAddSubCmpMatchApimachinery(t *testing.T) {
	for _, v := range sumVectors {
		a, b := resource.MustParse(v.a), resource.MustParse(v.b)
		if s := a.Add(b); s.String() != v.sum || string(s.Format()) != v.sumFormat {
			t.Errorf("%s + %s = %s (%s), want %s (%s)", v.a, v.b, s, s.Format(), v.sum, v.sumFormat)
		}
		if d := a.Sub(b); d.String() != v.diff || string(d.Format()) != v.diffFormat {
			t.Errorf("%s - %s = %s (%s), want %s (%s)", v.a, v.b, d, d.Format(), v.diff, v.diffFormat)
		}
		if c := a.Cmp(b); c != v.cmp {
			t.Errorf("%s Cmp %s = %d, want %d", v.a, v.b, c, v.cmp)
		}
		if got := (resource.Quantity{}).Add(a).String(); got != v.zeroAdd {
			t.Errorf("0 + %s = %s, want %s", v.a, got, v.zeroAdd)
		}
		if got := (resource.Quantity{}).Sub(a).String(); got != v.zeroSub {
			t.Errorf("0 - %s = %s, want %s", v.a, got, v.zeroSub)
		}
	}
}

// TestNewQuantityMatchesApimachinery: NewQuantity and NewMilliQuantity
// print as apimachinery's do in every format.
func TestNewQuantityMatchesApimachinery(t *testing.T) {
	for _, v := range newVectors {
		f := resource.Format(v.format)
		if got := resource.NewQuantity(v.v, f).String(); got != v.str {
			t.Errorf("NewQuantity(%d, %s) = %s, want %s", v.v, f, got, v.str)
		}
		if got := resource.NewMilliQuantity(v.v, f).String(); got != v.milli {
			t.Errorf("NewMilliQuantity(%d, %s) = %s, want %s", v.v, f, got, v.milli)
		}
	}
}

// TestUnmarshalJSONMatchesApimachinery: JSON strings and numbers, spaces
// inside the quotes, null.
func TestUnmarshalJSONMatchesApimachinery(t *testing.T) {
	for _, v := range jsonVectors {
		var q resource.Quantity
		err := q.UnmarshalJSON([]byte(v.json))
		if (err == nil) != v.ok {
			t.Errorf("UnmarshalJSON(%s) error %v, want ok=%v", v.json, err, v.ok)
		}
		if err != nil && !errors.Is(err, resource.ErrInvalidQuantity) {
			t.Errorf("UnmarshalJSON(%s) error %v does not wrap ErrInvalidQuantity", v.json, err)
		}
		if q.String() != v.str {
			t.Errorf("UnmarshalJSON(%s) = %s, want %s", v.json, q, v.str)
		}
	}
}

// TestZeroValue: the zero Quantity is 0 in DecimalSI and marshals as "0".
func TestZeroValue(t *testing.T) {
	var q resource.Quantity
	js, err := q.MarshalJSON()
	if q.String() != "0" || q.Format() != resource.DecimalSI || !q.IsZero() || q.Sign() != 0 ||
		q.Value() != 0 || q.MilliValue() != 0 || string(js) != `"0"` || err != nil {
		t.Errorf("zero Quantity: %q %s %v %d %d %d %s %v", q.String(), q.Format(), q.IsZero(), q.Sign(), q.Value(), q.MilliValue(), js, err)
	}
}

// TestValueClamps: beyond int64, Value and MilliValue clamp (apimachinery
// leaves overflow undefined; kcm's rule is documented in doc.go).
func TestValueClamps(t *testing.T) {
	for _, c := range []struct {
		in           string
		value, milli int64
	}{
		{"1E", 1e18, math.MaxInt64},
		{"-1E", -1e18, math.MinInt64},
		{"1e30", math.MaxInt64, math.MaxInt64},
		{"-1e30", math.MinInt64, math.MinInt64},
		{"9223372036854775808", math.MaxInt64, math.MaxInt64},
		{"-1.5n", -1, -1},
		{"1e-9", 1, 1},
	} {
		q := resource.MustParse(c.in)
		if q.Value() != c.value || q.MilliValue() != c.milli {
			t.Errorf("%s: Value %d MilliValue %d, want %d %d", c.in, q.Value(), q.MilliValue(), c.value, c.milli)
		}
	}
}

// TestCmpFarApart: quantities of very different exponents compare without
// expanding them (a 10^2000000000 is never materialised).
func TestCmpFarApart(t *testing.T) {
	huge, tiny := resource.MustParse("1e2000000000"), resource.MustParse("1n")
	if huge.Cmp(tiny) != 1 || tiny.Cmp(huge) != -1 || huge.Cmp(huge) != 0 {
		t.Errorf("Cmp: %d %d %d", huge.Cmp(tiny), tiny.Cmp(huge), huge.Cmp(huge))
	}
	neg := resource.MustParse("-1e2000000000")
	if neg.Cmp(tiny.Sub(resource.MustParse("1"))) != -1 {
		t.Errorf("-1e2000000000 is not below -999999999n")
	}
}

// TestMustParsePanics: MustParse panics on what Parse refuses.
func TestMustParsePanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil {
			t.Error("MustParse(\"1kk\") did not panic")
		}
	}()
	resource.MustParse("1kk")
}

// TestList: ParseList parses a ResourceList, names the bad resource, and
// Strings writes the canonical strings back.
func TestList(t *testing.T) {
	l, err := resource.ParseList(api.ResourceList{"cpu": "1.5", "memory": "1024Mi", "pods": "10"})
	if err != nil {
		t.Fatal(err)
	}
	got := l.Strings()
	want := api.ResourceList{"cpu": "1500m", "memory": "1Gi", "pods": "10"}
	if len(got) != len(want) {
		t.Fatalf("Strings() = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("Strings()[%s] = %q, want %q", k, got[k], v)
		}
	}
	_, err = resource.ParseList(api.ResourceList{"cpu": "1", "memory": "lots"})
	if !errors.Is(err, resource.ErrInvalidQuantity) || err.Error() != `resource "memory": invalid quantity "lots": unexpected "lots" at offset 0` {
		t.Errorf("ParseList(bad) error = %v", err)
	}
	if l, err := resource.ParseList(nil); l != nil || err != nil || resource.List(nil).Strings() != nil {
		t.Errorf("nil lists: %v %v", l, err)
	}
}

// TestRoundUpMatchesApimachinery: RoundUp to integers and to thousandths,
// the exactness answer and the string afterwards (a quantity that needed
// no rounding keeps its parsed string), as apimachinery's (*Quantity).RoundUp.
func TestRoundUpMatchesApimachinery(t *testing.T) {
	for _, v := range roundVectors {
		q, exact := resource.MustParse(v.in).RoundUp(v.scale)
		if q.String() != v.str || exact != v.exact {
			t.Errorf("MustParse(%q).RoundUp(%d) = %s, %v; want %s, %v", v.in, v.scale, q, exact, v.str, v.exact)
		}
	}
}
