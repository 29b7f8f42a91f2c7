package resource

import (
	"math"
	"math/big"
)

// Format is how a quantity prints: with a decimal exponent ("12e6"), a
// binary SI suffix ("12Mi") or a decimal SI suffix ("12M").
type Format string

// The formats of apimachinery.
const (
	DecimalExponent Format = "DecimalExponent"
	BinarySI        Format = "BinarySI"
	DecimalSI       Format = "DecimalSI"
)

// Quantity is an exact decimal number with the format it prints in. Its
// value is mant × 10^exp. The zero value is 0 in DecimalSI.
type Quantity struct {
	mant   *big.Int // nil is zero; never mutated once set
	exp    int64
	format Format
	// s is the string String returns as is, when apimachinery would: the
	// parsed input in the cases it keeps it. Empty means canonical.
	s string
}

var (
	bigTen  = big.NewInt(10)
	bigMax  = big.NewInt(math.MaxInt64)
	bigMin  = big.NewInt(math.MinInt64)
	big1024 = big.NewInt(1024)
)

// NewQuantity returns v in format f.
func NewQuantity(v int64, f Format) Quantity {
	return Quantity{mant: big.NewInt(v), format: f}
}

// NewMilliQuantity returns v/1000 in format f.
func NewMilliQuantity(v int64, f Format) Quantity {
	return Quantity{mant: big.NewInt(v), exp: -3, format: f}
}

// Format returns the format q prints in; DecimalSI for the zero value.
func (q Quantity) Format() Format {
	if q.format == "" {
		return DecimalSI
	}
	return q.format
}

// Sign returns -1, 0 or 1.
func (q Quantity) Sign() int {
	if q.mant == nil {
		return 0
	}
	return q.mant.Sign()
}

// IsZero reports whether q is 0.
func (q Quantity) IsZero() bool { return q.Sign() == 0 }

// Add returns q+y. Its format is q's, or y's when q is zero
// (apimachinery's (*Quantity).Add).
func (q Quantity) Add(y Quantity) Quantity {
	f := q.format
	if q.IsZero() {
		f = y.format
	}
	m, e := add(q.mant, q.exp, y.mant, y.exp)
	return Quantity{mant: m, exp: e, format: f}
}

// Sub returns q-y. Its format is q's, or y's when q is zero
// (apimachinery's (*Quantity).Sub).
func (q Quantity) Sub(y Quantity) Quantity {
	f := q.format
	if q.IsZero() {
		f = y.format
	}
	var neg *big.Int
	if y.mant != nil {
		neg = new(big.Int).Neg(y.mant)
	}
	m, e := add(q.mant, q.exp, neg, y.exp)
	return Quantity{mant: m, exp: e, format: f}
}

// add returns a×10^ea + b×10^eb, aligned to the smaller exponent.
func add(a *big.Int, ea int64, b *big.Int, eb int64) (*big.Int, int64) {
	switch {
	case b == nil || b.Sign() == 0:
		return a, ea
	case a == nil || a.Sign() == 0:
		return b, eb
	case ea > eb:
		a, ea = scaleUp(a, ea-eb), eb
	case eb > ea:
		b = scaleUp(b, eb-ea)
	}
	return new(big.Int).Add(a, b), ea
}

// scaleUp returns m×10^n (n ≥ 0) as a new integer.
func scaleUp(m *big.Int, n int64) *big.Int {
	p := new(big.Int).Exp(bigTen, big.NewInt(n), nil)
	return p.Mul(p, m)
}

// Cmp returns -1, 0 or 1 as q is less than, equal to or greater than y.
// Formats do not matter.
func (q Quantity) Cmp(y Quantity) int {
	sq, sy := q.Sign(), y.Sign()
	if sq != sy {
		if sq < sy {
			return -1
		}
		return 1
	}
	if sq == 0 {
		return 0
	}
	// Same sign: compare magnitudes by their order first, so that two
	// quantities of very different exponents are never expanded.
	oq := int64(len(q.mant.Text(10))) + q.exp
	oy := int64(len(y.mant.Text(10))) + y.exp
	if sq < 0 {
		oq, oy = oq-1, oy-1 // the minus sign is not a digit
	}
	if oq != oy {
		c := 1
		if oq < oy {
			c = -1
		}
		return c * sq
	}
	a, b := q.mant, y.mant
	switch {
	case q.exp > y.exp:
		a = scaleUp(a, q.exp-y.exp)
	case y.exp > q.exp:
		b = scaleUp(b, y.exp-q.exp)
	}
	return a.Cmp(b)
}

// Value returns q rounded up, away from zero, to an integer; clamped to
// the int64 range.
func (q Quantity) Value() int64 { return q.scaled(0) }

// MilliValue returns q×1000 rounded up, away from zero, to an integer;
// clamped to the int64 range.
func (q Quantity) MilliValue() int64 { return q.scaled(3) }

// scaled returns q×10^shift rounded away from zero, clamped to int64.
func (q Quantity) scaled(shift int64) int64 {
	if q.IsZero() {
		return 0
	}
	e := q.exp + shift
	var v *big.Int
	switch {
	case e > 19:
		// |mant| ≥ 1, so the result is beyond int64.
		if q.mant.Sign() > 0 {
			return math.MaxInt64
		}
		return math.MinInt64
	case e >= 0:
		v = scaleUp(q.mant, e)
	default:
		v = roundAway(q.mant, -e)
	}
	switch {
	case v.Cmp(bigMax) > 0:
		return math.MaxInt64
	case v.Cmp(bigMin) < 0:
		return math.MinInt64
	}
	return v.Int64()
}

// roundAway returns m / 10^n (n > 0) rounded away from zero.
func roundAway(m *big.Int, n int64) *big.Int {
	if int64(len(m.Text(10))) < n { // |m| < 10^(n-1): the result is ±1
		return big.NewInt(int64(m.Sign()))
	}
	d := new(big.Int).Exp(bigTen, big.NewInt(n), nil)
	quo, rem := new(big.Int).QuoRem(m, d, new(big.Int))
	if rem.Sign() != 0 {
		quo.Add(quo, big.NewInt(int64(m.Sign())))
	}
	return quo
}

// RoundUp returns q rounded up, away from zero, to a multiple of
// 10^scale (scale 0: an integer; -3: thousandths), and whether q already
// was one (apimachinery's (*Quantity).RoundUp). A quantity that needs no
// rounding is returned as it is, string form included.
func (q Quantity) RoundUp(scale int32) (Quantity, bool) {
	if q.IsZero() || q.exp >= int64(scale) {
		return q, true
	}
	n := int64(scale) - q.exp
	r := roundAway(q.mant, n)
	exact := new(big.Int).Mul(r, new(big.Int).Exp(bigTen, big.NewInt(n), nil)).Cmp(q.mant) == 0
	return Quantity{mant: r, exp: int64(scale), format: q.format}, exact
}
