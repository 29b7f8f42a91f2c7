package decode

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// TestCanonicalTimeIsTimeParse: the fast path's parse of a canonical time
// is time.Parse's followed by Local, to the bit (==, so location and
// encoding too), over dates from year 0 to 9999, leap days and the
// fields' edges; and it leaves every out-of-range field to time.Parse.
func TestCanonicalTimeIsTimeParse(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var inputs []string
	for range 20000 {
		inputs = append(inputs, fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02d", r.IntN(10000), 1+r.IntN(12), 1+r.IntN(31), r.IntN(24), r.IntN(60), r.IntN(60)))
	}
	inputs = append(inputs, "1970-01-01T00:00:00", "0001-01-01T00:00:01", "0000-01-01T00:00:00", "9999-12-31T23:59:59",
		"2024-02-29T12:00:00", "2023-02-29T12:00:00", "1900-02-29T00:00:00", "2000-02-29T00:00:00", "2100-02-29T00:00:00",
		"2024-04-31T00:00:00", "2024-13-01T00:00:00", "2024-00-10T00:00:00", "2024-01-00T00:00:00", "2024-01-01T24:00:00",
		"2024-01-01T23:60:00", "2024-01-01T23:59:60", "2024-12-31T23:59:59", "1969-12-31T23:59:59", "2038-01-19T03:14:08")
	for _, in := range inputs {
		for _, micro := range []bool{false, true} {
			s, layout := in+"Z", time.RFC3339
			if micro {
				s, layout = fmt.Sprintf("%s.%06dZ", in, r.IntN(1000000)), time.RFC3339Nano
			}
			v := []byte(`"` + s + `"`)
			if !timeForm(v, micro) {
				t.Fatalf("%s is not in the canonical form", v)
			}
			want, err := time.Parse(layout, s)
			got, ok := canonicalTime(v, micro)
			switch {
			case err != nil && ok:
				t.Fatalf("%s: time.Parse refuses it (%v), canonicalTime gives %v", s, err, got)
			case err == nil && !ok:
				t.Fatalf("%s: time.Parse gives %v, canonicalTime leaves it", s, want)
			case err == nil && got != want.Local():
				t.Fatalf("%s: canonicalTime %#v, time.Parse+Local %#v", s, got, want.Local())
			}
		}
	}
}
