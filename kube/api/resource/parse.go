package resource

import (
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// ErrInvalidQuantity is wrapped by every error of Parse: the string is not
// a quantity (a number, then an optional suffix: an SI or binary SI suffix,
// or an exponent "e3"/"E-3").
var ErrInvalidQuantity = errors.New("invalid quantity")

// decimalSuffixes and binarySuffixes map a suffix to its exponent (of 10,
// or of 2).
var (
	decimalSuffixes = map[string]int64{"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
	binarySuffixes  = map[string]int64{"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
)

// suffixChars are the letters a suffix is made of.
const suffixChars = "eEinumkKMGTP"

// MustParse is Parse for a string known to be valid; it panics otherwise.
func MustParse(s string) Quantity {
	q, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return q
}

// Parse reads a quantity as apimachinery's ParseQuantity does: an optional
// sign, digits with an optional fraction (either part may be empty), and
// an optional suffix. Nothing else, not even spaces, is allowed.
func Parse(s string) (Quantity, error) {
	if s == "" {
		return Quantity{}, fmt.Errorf("%w %q: empty", ErrInvalidQuantity, s)
	}
	n, err := scan(s)
	if err != nil {
		return Quantity{}, fmt.Errorf("%w %q: %w", ErrInvalidQuantity, s, err)
	}
	base, exp, format, ok := interpret(n.suffix)
	if !ok {
		return Quantity{}, fmt.Errorf("%w %q: unknown suffix %q", ErrInvalidQuantity, s, n.suffix)
	}
	digits := n.whole + n.frac
	mant, _ := new(big.Int).SetString(digits, 10) // digits are 0-9 only, at least one
	if n.negative {
		mant.Neg(mant)
	}
	q := Quantity{format: format}
	if base == 10 {
		q.mant, q.exp = mant, exp-int64(len(n.frac))
	} else {
		q.mant, q.exp = mant.Lsh(mant, uint(exp)), -int64(len(n.frac))
	}
	if q.mant.Sign() == 0 {
		return Quantity{format: format}, nil
	}
	if q.exp < -9 { // finer than a nano: round up, away from zero
		q.mant, q.exp = roundAway(q.mant, -9-q.exp), -9
	}
	if format == BinarySI {
		abs := Quantity{mant: new(big.Int).Abs(q.mant), exp: q.exp}
		switch {
		case abs.Cmp(maxBinary) > 0:
			q.mant, q.exp = new(big.Int).Set(maxBinary.mant), 0
			if n.negative {
				q.mant.Neg(q.mant)
			}
		case abs.Cmp(one) < 0:
			q.format = DecimalSI
		}
	}
	if keepsInput(n, base, exp) {
		q.s = s
	}
	return q, nil
}

// one, and maxBinary: the largest binary-SI magnitude (apimachinery caps
// larger ones to it).
var (
	one       = NewQuantity(1, DecimalSI)
	maxBinary = NewQuantity(1<<63-1, BinarySI)
)

// number is a scanned quantity string.
type number struct {
	negative bool
	whole    string // the integer digits without leading zeros; "0" when none are left
	frac     string // the fraction's digits, possibly empty
	suffix   string
}

// scan splits s into sign, digits and suffix. The suffix is a run of
// suffix letters, then an optional sign and digits.
func scan(s string) (number, error) {
	var n number
	i := 0
	switch s[0] {
	case '-':
		n.negative = true
		i++
	case '+':
		i++
	}
	for i < len(s) && s[i] == '0' {
		i++
	}
	start := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	n.whole = s[start:i]
	if n.whole == "" {
		n.whole = "0"
	}
	if i < len(s) && s[i] == '.' {
		i++
		start = i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		n.frac = s[start:i]
	}
	start = i
	for i < len(s) && strings.IndexByte(suffixChars, s[i]) >= 0 {
		i++
	}
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	if i < len(s) {
		return number{}, fmt.Errorf("unexpected %q at offset %d", s[i:], i)
	}
	n.suffix = s[start:]
	return n, nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// interpret returns a suffix's base (10 or 2), exponent and format.
func interpret(suffix string) (base int, exp int64, f Format, ok bool) {
	if e, ok := decimalSuffixes[suffix]; ok {
		return 10, e, DecimalSI, true
	}
	if e, ok := binarySuffixes[suffix]; ok {
		return 2, e, BinarySI, true
	}
	if len(suffix) > 1 && (suffix[0] == 'e' || suffix[0] == 'E') {
		e, err := strconv.ParseInt(suffix[1:], 10, 64)
		if err != nil {
			return 0, 0, "", false
		}
		// apimachinery keeps the exponent in an int32.
		return 10, int64(int32(e)), DecimalExponent, true
	}
	return 0, 0, "", false
}

// keepsInput reports whether apimachinery keeps the input string as the
// quantity's string form: when the number fits its small (int64) form and
// is already written the way it would print it — a decimal exponent that
// is a multiple of three, no leading zero and no trailing "000" in the
// digits; for binary SI, digits that are not a multiple of 8.
func keepsInput(n number, base int, exp int64) bool {
	digits := n.whole + n.frac
	if base == 2 {
		if n.frac != "" || 15-len(n.whole)-int(exp)*3/10-1 < 0 {
			return false
		}
		v, err := strconv.ParseInt(digits, 10, 64)
		return err == nil && v&7 != 0
	}
	if 18-len(digits) < 0 {
		return false
	}
	scale := exp - int64(len(n.frac))
	return scale >= -9 && scale%3 == 0 && !strings.HasSuffix(digits, "000") && digits[0] != '0'
}
