package jsonx

import (
	"encoding/binary"
	"math/bits"
)

// Finding where a string ends while checking it: a decoder that takes a
// string's bytes as they are must stop at its closing quote, note any
// escape (those bytes need unescaping) and refuse a control byte, which
// JSON does not allow unescaped. Done a byte at a time that is three
// compares per byte of every string of an object; StringEnd looks at
// eight bytes at a time for any of the three and steps byte by byte only
// where one is.

// Bit patterns of StringEnd's eight-bytes-at-a-time search (ones, highs
// and quotes are quoteIndex's).
const (
	backslashes = '\\' * ones
	spaces      = ' ' * ones
)

// StringEnd returns the index of the quote that closes the string whose
// opening quote is d[i], and whether the string holds a backslash escape.
// ok is false when d ends before the string does, or the string holds an
// unescaped control byte (below 0x20). The byte after a backslash is
// skipped, whatever it is; whether the escape is valid is left to the
// unescaping.
func StringEnd(d []byte, i int) (end int, escaped, ok bool) {
	j := i + 1
	for {
		for ; j+8 <= len(d); j += 8 {
			x := binary.LittleEndian.Uint64(d[j:])
			q, b := x^quotes, x^backslashes
			// Each term flags the bytes of one kind (a quote, a
			// backslash, a byte below 0x20); the lowest byte any term
			// flags is always one of its kind (a borrow only flags
			// bytes above a true one), so the lowest of all is too.
			if m := ((q-ones)&^q | (b-ones)&^b | (x-spaces)&^x) & highs; m != 0 {
				j += bits.TrailingZeros64(m) >> 3
				break
			}
		}
		if j >= len(d) {
			return 0, false, false
		}
		switch c := d[j]; {
		case c == '"':
			return j, escaped, true
		case c == '\\':
			escaped = true
			j += 2
		case c < 0x20:
			return 0, false, false
		default:
			j++
		}
	}
}
