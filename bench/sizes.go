package bench

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Environment variables that shape a run.
const (
	// EnvSizes overrides the pod counts of the sync and heap benchmarks,
	// e.g. "1000,10000".
	EnvSizes = "KCM_BENCH_SIZES"
	// EnvLarge set to a true value adds 100k pods to the default sizes.
	EnvLarge = "KCM_BENCH_100K"
)

// DefaultSizes are the pod counts of the sync and heap benchmarks.
var DefaultSizes = []int{1000, 10000, 50000}

// Sizes returns the pod counts to run: EnvSizes if set, else DefaultSizes
// plus 100k when EnvLarge is true.
func Sizes() ([]int, error) {
	if s := os.Getenv(EnvSizes); s != "" {
		return ParseSizes(s)
	}
	out := append([]int(nil), DefaultSizes...)
	if on, _ := strconv.ParseBool(os.Getenv(EnvLarge)); on {
		out = append(out, 100000)
	}
	return out, nil
}

// ParseSizes reads a comma-separated list of positive counts; "k" is a
// thousand ("50k").
func ParseSizes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		mult := 1
		if v, ok := strings.CutSuffix(f, "k"); ok {
			f, mult = v, 1000
		}
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%s: %q is not a positive count", EnvSizes, f)
		}
		out = append(out, n*mult)
	}
	return out, nil
}
