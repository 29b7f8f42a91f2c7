package resource_test

import (
	"strings"
	"testing"

	"github.com/kcmlab/kcm/kube/api/resource"
)

// FuzzParse: Parse never panics; whatever it accepts prints a String that
// parses back to an equal quantity, and the canonical form is stable. Two
// kinds of input are outside the round-trip property because apimachinery
// itself does not round-trip them, and kcm prints what it prints: a
// decimal-SI quantity whose canonical exponent has no suffix (past "E", or
// below "n" — 1000E prints "1") and exponents beyond ±10^6, which
// apimachinery keeps in an int32.
func FuzzParse(f *testing.F) {
	for _, v := range parseVectors {
		f.Add(v.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := resource.Parse(s)
		if err != nil {
			return
		}
		if hugeExponent(s) {
			return
		}
		c := q.Add(resource.Quantity{}).String() // canonical
		if q.Format() == resource.DecimalSI && q.Cmp(resource.MustParse("1000E")) >= 0 ||
			q.Format() == resource.DecimalSI && q.Cmp(resource.MustParse("-1000E")) <= 0 {
			return
		}
		for _, str := range []string{q.String(), c} {
			back, err := resource.Parse(str)
			if err != nil {
				t.Fatalf("Parse(%q) = %q, which does not parse: %v", s, str, err)
			}
			if back.Cmp(q) != 0 {
				t.Fatalf("Parse(%q) = %q, which parses to %q", s, str, back.Add(resource.Quantity{}))
			}
		}
		if again := resource.MustParse(c).Add(resource.Quantity{}).String(); again != c {
			t.Fatalf("canonical %q of %q re-canonicalises to %q", c, s, again)
		}
	})
}

// hugeExponent reports whether s has an exponent suffix of more than six
// digits.
func hugeExponent(s string) bool {
	i := strings.IndexAny(s, "eE")
	if i < 0 {
		return false
	}
	return len(strings.TrimLeft(s[i+1:], "+-0")) > 6
}
