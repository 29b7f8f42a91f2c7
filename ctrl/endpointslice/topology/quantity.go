package topology

import (
	"math/big"
	"strconv"
	"strings"
)

// parseQuantity reads a resource quantity in its wire form ("4", "3500m",
// "1.5", "2Ki", "1e3") exactly, as resource.ParseQuantity accepts it. The
// node's allocatable CPU is the only quantity the cache reads; kcm keeps
// quantities as strings (api.ResourceList), so this is the one place that
// does arithmetic on one. ok is false for anything else.
func parseQuantity(s string) (q *big.Rat, ok bool) {
	num, suffix := splitQuantity(s)
	if num == "" {
		return nil, false
	}
	q, ok = new(big.Rat).SetString(num)
	if !ok {
		return nil, false
	}
	scale, ok := suffixScale(suffix)
	if !ok {
		return nil, false
	}
	return q.Mul(q, scale), true
}

// splitQuantity splits s into its signed decimal number and its suffix.
func splitQuantity(s string) (num, suffix string) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			digits++
		}
	}
	if digits == 0 {
		return "", s
	}
	return s[:i], s[i:]
}

// suffixScale is the factor a quantity suffix stands for: binary SI
// (Ki..Ei), decimal SI (n..E) or a decimal exponent (e3, E-2).
func suffixScale(suffix string) (*big.Rat, bool) {
	binary := map[string]int64{"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
	if shift, ok := binary[suffix]; ok {
		return new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(shift))), true
	}
	decimal := map[string]int64{"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
	exp, ok := decimal[suffix]
	if !ok {
		rest, found := strings.CutPrefix(suffix, "e")
		if !found {
			rest, found = strings.CutPrefix(suffix, "E")
		}
		if !found {
			return nil, false
		}
		e, err := strconv.ParseInt(rest, 10, 64)
		if err != nil || e > 64 || e < -64 {
			return nil, false
		}
		exp = e
	}
	p := new(big.Int).Exp(big.NewInt(10), big.NewInt(abs(exp)), nil)
	if exp < 0 {
		return new(big.Rat).SetFrac(big.NewInt(1), p), true
	}
	return new(big.Rat).SetInt(p), true
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// milliCeil is q in thousandths, rounded up as resource.Quantity's
// MilliValue rounds.
func milliCeil(q *big.Rat) int64 {
	m := new(big.Rat).Mul(q, big.NewRat(1000, 1))
	n, r := new(big.Int).QuoRem(m.Num(), m.Denom(), new(big.Int))
	if r.Sign() > 0 {
		n.Add(n, big.NewInt(1))
	}
	return n.Int64()
}
