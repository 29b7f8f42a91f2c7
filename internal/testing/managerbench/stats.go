package managerbench

import (
	"fmt"
	"slices"
)

// Summary describes repeated measurements of one quantity: how many, the
// median (the mean of the two middle values for an even count), and the
// range.
type Summary struct {
	N                int
	Median, Min, Max float64
}

// Summarize returns the Summary of xs; the zero Summary for none.
func Summarize(xs []float64) Summary {
	if len(xs) == 0 {
		return Summary{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	med := s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return Summary{N: n, Median: med, Min: s[0], Max: s[n-1]}
}

// Format prints the median and, for more than one value, the range:
// "24.1 (23.8-25.0)", each number with the given number of decimals; "-"
// when there is nothing.
func (s Summary) Format(decimals int) string {
	if s.N == 0 {
		return "-"
	}
	if s.N == 1 {
		return fmt.Sprintf("%.*f", decimals, s.Median)
	}
	return fmt.Sprintf("%.*f (%.*f-%.*f)", decimals, s.Median, decimals, s.Min, decimals, s.Max)
}

// Ratio is a/b printed with two decimals and an "x", or "-" when b is 0.
func Ratio(a, b float64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", a/b)
}
