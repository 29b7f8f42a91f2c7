package jsonx

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// Finding the quote that ends a string is most of the work of skipping
// JSON: strings are most of its bytes. Most strings are short (keys,
// enum values, names), for which the call and setup of bytes.IndexByte
// cost more than the search; quoteIndex reads such a string eight bytes
// at a time in a register, and hands longer ones to bytes.IndexByte.

// Bit patterns of the eight-bytes-at-a-time search.
const (
	ones   = 0x0101010101010101
	highs  = 0x8080808080808080
	quotes = '"' * ones
)

// swarBytes is how far quoteIndex searches by words before it calls
// bytes.IndexByte.
const swarBytes = 32

// quoteIndex is bytes.IndexByte(b, '"').
func quoteIndex(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if i == swarBytes {
			if k := bytes.IndexByte(b[i:], '"'); k >= 0 {
				return i + k
			}
			return -1
		}
		x := binary.LittleEndian.Uint64(b[i:]) ^ quotes
		// A byte of x is zero where b has a quote. The lowest byte this
		// flags is always a zero byte (a borrow only flags bytes above it).
		if m := (x - ones) &^ x & highs; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(b); i++ {
		if b[i] == '"' {
			return i
		}
	}
	return -1
}
