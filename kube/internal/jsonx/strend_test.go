package jsonx

import (
	"math/rand/v2"
	"testing"
)

// stringEndSlow is StringEnd a byte at a time: the rule it must keep.
func stringEndSlow(d []byte, i int) (int, bool, bool) {
	escaped := false
	for j := i + 1; j < len(d); j++ {
		switch c := d[j]; {
		case c == '"':
			return j, escaped, true
		case c == '\\':
			escaped = true
			j++
		case c < 0x20:
			return 0, false, false
		}
	}
	return 0, false, false
}

// TestStringEnd: RFC 8259 §7 — a string ends at the first quote not
// escaped by a backslash, and control bytes must be escaped. Every
// special byte is tried at every offset of strings long and short (the
// word loop, its tail, and their seam), beside bytes that only look
// special to a careless word test (0x20-0x22, 0x5b-0x5d, high bytes).
func TestStringEnd(t *testing.T) {
	fill := []byte{'a', ' ', '!', '#', '[', ']', 0x7f, 0x80, 0xc3, 0xff, '0'}
	special := []byte{'"', '\\', 0x00, 0x01, 0x1f, '\n'}
	for n := 0; n <= 40; n++ {
		for _, f := range fill {
			base := make([]byte, n+2)
			base[0] = '"'
			for k := 1; k <= n; k++ {
				base[k] = f
			}
			base[n+1] = '"'
			check(t, base)
			check(t, base[:n+1]) // unterminated
			for pos := 1; pos <= n; pos++ {
				for _, s := range special {
					b := append([]byte(nil), base...)
					b[pos] = s
					check(t, b)
					if pos+1 <= n {
						b[pos+1] = s // two in a row: "\\\\", "\\\""
						check(t, b)
					}
				}
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte{'a', '"', '\\', 0x01, ' ', 0x80, 'z', '}'}
	for range 20000 {
		b := make([]byte, 1+r.IntN(48))
		b[0] = '"'
		for k := 1; k < len(b); k++ {
			b[k] = alphabet[r.IntN(len(alphabet))]
		}
		check(t, b)
	}
}

func check(t *testing.T, d []byte) {
	t.Helper()
	e, esc, ok := StringEnd(d, 0)
	we, wesc, wok := stringEndSlow(d, 0)
	if e != we || esc != wesc || ok != wok {
		t.Fatalf("StringEnd(%q) = %d, %v, %v; want %d, %v, %v", d, e, esc, ok, we, wesc, wok)
	}
}

func FuzzStringEnd(f *testing.F) {
	f.Add([]byte(`"abc\"def"`))
	f.Add([]byte("\"a\x01b\""))
	f.Fuzz(func(t *testing.T, d []byte) {
		if len(d) == 0 {
			return
		}
		for i := range min(len(d), 4) {
			e, esc, ok := StringEnd(d, i)
			we, wesc, wok := stringEndSlow(d, i)
			if e != we || esc != wesc || ok != wok {
				t.Fatalf("StringEnd(%q, %d) = %d, %v, %v; want %d, %v, %v", d, i, e, esc, ok, we, wesc, wok)
			}
		}
	})
}
