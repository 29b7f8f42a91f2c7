package resource

import (
	"bytes"
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// decimalSuffixOf is the suffix of a decimal-SI exponent; an exponent not
// in it prints without a suffix, as apimachinery does.
var decimalSuffixOf = map[int64]string{-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}

// binarySuffixOf is the suffix of a power of 1024.
var binarySuffixOf = map[int64]string{0: "", 1: "Ki", 2: "Mi", 3: "Gi", 4: "Ti", 5: "Pi", 6: "Ei"}

// String returns q as apimachinery's Quantity.String does: the parsed
// input where apimachinery keeps it, else the canonical form.
func (q Quantity) String() string {
	if q.s != "" {
		return q.s
	}
	return q.canonical()
}

// canonical returns q's canonical form. A binary-SI quantity prints in
// powers of 1024 when it is an integer of magnitude 1024 or more, else in
// decimal SI; a quantity with no format prints with a decimal exponent.
func (q Quantity) canonical() string {
	if q.IsZero() {
		return "0"
	}
	format := q.format
	switch format {
	case DecimalSI, DecimalExponent:
	case BinarySI:
		if q.cmpAbs1024() < 0 || q.exp < 0 && !divisible(q.mant, q.exp) {
			format = DecimalSI
		}
	default:
		format = DecimalExponent
	}
	if format == BinarySI {
		v := q.mant
		if q.exp > 0 {
			v = scaleUp(v, q.exp)
		} else if q.exp < 0 {
			v = new(big.Int).Quo(v, new(big.Int).Exp(bigTen, big.NewInt(-q.exp), nil))
		}
		if v.Cmp(bigMin) == 0 {
			// apimachinery's int64 form cannot negate -2^63 to divide it.
			return v.String()
		}
		neg := v.Sign() < 0
		v = new(big.Int).Abs(v)
		var times int64
		r := new(big.Int)
		for v.Cmp(big1024) >= 0 {
			quo, rem := new(big.Int).QuoRem(v, big1024, r)
			if rem.Sign() != 0 {
				break
			}
			v, times = quo, times+1
		}
		if neg {
			v.Neg(v)
		}
		return v.String() + binarySuffixOf[times] // beyond Ei: no suffix, as apimachinery
	}
	// Decimal: drop the mantissa's trailing zeros, then lower the exponent
	// to a multiple of three.
	m := q.mant.String()
	e := q.exp
	t := len(m) - len(strings.TrimRight(m, "0"))
	m, e = m[:len(m)-t], e+int64(t)
	if r := ((e % 3) + 3) % 3; r != 0 {
		m, e = m+strings.Repeat("0", int(r)), e-r
	}
	if format == DecimalExponent {
		if e == 0 {
			return m
		}
		return m + "e" + strconv.FormatInt(e, 10)
	}
	return m + decimalSuffixOf[e]
}

// cmpAbs1024 compares |q| with 1024.
func (q Quantity) cmpAbs1024() int {
	abs := Quantity{mant: new(big.Int).Abs(q.mant), exp: q.exp}
	return abs.Cmp(NewQuantity(1024, DecimalSI))
}

// divisible reports whether m is a multiple of 10^-exp (exp < 0): whether
// m×10^exp is an integer.
func divisible(m *big.Int, exp int64) bool {
	if int64(len(m.Text(10))) <= -exp-1 {
		return false
	}
	d := new(big.Int).Exp(bigTen, big.NewInt(-exp), nil)
	return new(big.Int).Rem(m, d).Sign() == 0
}

// MarshalJSON writes q's String as a JSON string.
func (q Quantity) MarshalJSON() ([]byte, error) {
	s := q.String()
	out := make([]byte, 0, len(s)+2)
	out = append(out, '"')
	out = append(out, s...)
	return append(out, '"'), nil
}

// UnmarshalJSON reads a quantity from a JSON string or number (the quotes
// removed, surrounding spaces trimmed); null is the zero quantity.
func (q *Quantity) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		*q = Quantity{}
		return nil
	}
	if l := len(data); l >= 2 && data[0] == '"' && data[l-1] == '"' {
		data = data[1 : l-1]
	}
	p, err := Parse(string(bytes.TrimSpace(data)))
	if err != nil {
		return fmt.Errorf("quantity from JSON: %w", err)
	}
	*q = p
	return nil
}
