package jsonx

import (
	"bytes"
	"testing"
)

// TestQuoteIndexIsIndexByte: quoteIndex finds the first quote wherever
// it is — in a word, across words, after the word search hands over to
// bytes.IndexByte, in the tail — and none where there is none, bytes
// above 0x7f and 0x21/0x23 (one off a quote) included.
func TestQuoteIndexIsIndexByte(t *testing.T) {
	fills := []byte{'a', 0x21, 0x23, 0xff, 0x80, 0x00, 0x22 ^ 0x80}
	for n := 0; n <= 80; n++ {
		for _, fill := range fills {
			base := bytes.Repeat([]byte{fill}, n)
			if got := quoteIndex(base); got != -1 {
				t.Fatalf("len %d fill %#x without a quote: got %d", n, fill, got)
			}
			for q := 0; q < n; q++ {
				b := bytes.Clone(base)
				b[q] = '"'
				if q+1 < n {
					b[q+1] = '"' // a second quote after the first must not matter
				}
				if got, want := quoteIndex(b), bytes.IndexByte(b, '"'); got != want {
					t.Fatalf("len %d fill %#x quote at %d: got %d, want %d", n, fill, q, got, want)
				}
			}
		}
	}
}
