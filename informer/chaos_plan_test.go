package informer_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// chaosPlan returns the first seed and the number of seeds: flags, or the
// environment (which `make test` and `make chaos` set). A count that is not
// a positive integer fails the test: a chaos run that runs no seed must not
// pass.
func chaosPlan(t *testing.T) (uint64, int) {
	first, n, err := parseChaosPlan(*chaosFirst, *chaosSeeds, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	return first, n
}

// parseChaosPlan applies the environment's KCM_CHAOS_SEED and
// KCM_CHAOS_SEEDS over the flags' values and checks the result.
func parseChaosPlan(first uint64, n int, getenv func(string) string) (uint64, int, error) {
	if s := getenv("KCM_CHAOS_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("KCM_CHAOS_SEED=%q: the first seed must be a non-negative integer: %w", s, err)
		}
		first = v
	}
	src := "-chaos.seeds"
	if s := getenv("KCM_CHAOS_SEEDS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil {
			return 0, 0, fmt.Errorf("KCM_CHAOS_SEEDS=%q: the number of seeds must be a positive integer: %w", s, err)
		}
		n, src = v, "KCM_CHAOS_SEEDS"
	}
	if n <= 0 {
		return 0, 0, fmt.Errorf("%s=%d: the number of seeds must be at least 1 (a chaos run of no seed tests nothing)", src, n)
	}
	if first+uint64(n) < first {
		return 0, 0, fmt.Errorf("seeds %d..%d+%d overflow uint64", first, first, n)
	}
	return first, n, nil
}

// TestChaosPlan: the chaos suite's seed plan refuses counts that would run
// no seed (a chaos run that tests nothing must not pass), names the
// variable at fault, and lets the environment override the flags.
func TestChaosPlan(t *testing.T) {
	for _, tc := range []struct {
		name      string
		flagFirst uint64
		flagN     int
		env       map[string]string
		first     uint64
		n         int
		err       string // substring of the error; "" = no error
	}{
		{name: "flags", flagFirst: 1, flagN: 5, first: 1, n: 5},
		{name: "env overrides", flagFirst: 1, flagN: 5, env: map[string]string{"KCM_CHAOS_SEED": "977", "KCM_CHAOS_SEEDS": "1000"}, first: 977, n: 1000},
		{name: "zero seeds from env", flagN: 5, env: map[string]string{"KCM_CHAOS_SEEDS": "0"}, err: "KCM_CHAOS_SEEDS=0: the number of seeds must be at least 1"},
		{name: "negative seeds from env", flagN: 5, env: map[string]string{"KCM_CHAOS_SEEDS": "-3"}, err: "KCM_CHAOS_SEEDS=-3: the number of seeds must be at least 1"},
		{name: "unparsable seeds", flagN: 5, env: map[string]string{"KCM_CHAOS_SEEDS": "lots"}, err: `KCM_CHAOS_SEEDS="lots": the number of seeds must be a positive integer`},
		{name: "zero seeds from the flag", flagN: 0, err: "-chaos.seeds=0"},
		{name: "unparsable first seed", flagN: 5, env: map[string]string{"KCM_CHAOS_SEED": "x1"}, err: `KCM_CHAOS_SEED="x1"`},
		{name: "overflow", flagFirst: ^uint64(0), flagN: 2, err: "overflow"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			first, n, err := parseChaosPlan(tc.flagFirst, tc.flagN, func(k string) string { return tc.env[k] })
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil || first != tc.first || n != tc.n {
				t.Fatalf("= %d, %d, %v; want %d, %d, nil", first, n, err, tc.first, tc.n)
			}
		})
	}
}
