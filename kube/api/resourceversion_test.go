package api

import (
	"errors"
	"testing"
)

// The cases of apimachinery's TestCompareResourceVersion, and lengths past
// what an int64 holds (the comparison never parses a number).
func TestCompareResourceVersion(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
		bad  bool
	}{
		{a: "100", b: "200", want: -1},
		{a: "200", b: "100", want: 1},
		{a: "100", b: "100", want: 0},
		{a: "99", b: "100", want: -1},
		{a: "1000", b: "999", want: 1},
		{a: "123456789012345678901234567890", b: "123456789012345678901234567891", want: -1},
		{a: "99999999999999999999", b: "100000000000000000000", want: -1},
		{a: "0", b: "1", bad: true},
		{a: "1", b: "0", bad: true},
		{a: "0", b: "0", bad: true},
		{a: "", b: "1", bad: true},
		{a: "1", b: "", bad: true},
		{a: "010", b: "10", bad: true},
		{a: "1a", b: "10", bad: true},
		{a: "10", b: "-1", bad: true},
		{a: "10", b: "1.5", bad: true},
	} {
		got, err := CompareResourceVersion(c.a, c.b)
		if c.bad {
			if !errors.Is(err, ErrInvalidResourceVersion) {
				t.Errorf("Compare(%q, %q) = %d, %v; want ErrInvalidResourceVersion", c.a, c.b, got, err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Compare(%q, %q) = %d, %v; want %d", c.a, c.b, got, err, c.want)
		}
	}
}
