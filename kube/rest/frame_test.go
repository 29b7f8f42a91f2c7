package rest

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/kcmlab/kcm/kube/api"
)

// TestFrameReaderValues: values come out whole whatever the read sizes,
// and the end of the stream is told apart from a value cut short.
func TestFrameReaderValues(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      string
		want    []string
		wantErr error
	}{
		{"objects back to back, no newline", `{"a":1}{"b":"}"}`, []string{`{"a":1}`, `{"b":"}"}`}, io.EOF},
		{"whitespace between", " {\"a\":[1,2]}\n\n {} ", []string{`{"a":[1,2]}`, `{}`}, io.EOF},
		{"scalar at the very end", `{} 42`, []string{`{}`, `42`}, io.EOF},
		{"escaped quote inside a string", `{"s":"a\"}b"}`, []string{`{"s":"a\"}b"}`}, io.EOF},
		{"cut inside an object", `{"a":1}{"b":`, []string{`{"a":1}`}, io.ErrUnexpectedEOF},
		{"cut inside a string", `{"a":"xy`, nil, io.ErrUnexpectedEOF},
	} {
		for _, chunk := range []int{0, 1, 3} {
			var r io.Reader = strings.NewReader(tc.in)
			if chunk == 1 {
				r = iotest.OneByteReader(r)
			} else if chunk == 3 {
				r = iotest.HalfReader(r)
			}
			fr := newFrameReader(r, 4) // tiny buffer: forces growth and compaction
			var got []string
			var err error
			for {
				var v []byte
				if v, err = fr.value(true); err != nil {
					break
				}
				got = append(got, string(v))
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") || !errors.Is(err, tc.wantErr) {
				t.Errorf("%s (chunk %d): got %q, %v; want %q, %v", tc.name, chunk, got, err, tc.want, tc.wantErr)
			}
		}
	}
}

// TestFrameReaderRefusesDelimiterAsValue: a stray closing bracket is an
// error, not an endless loop.
func TestFrameReaderRefusesDelimiterAsValue(t *testing.T) {
	fr := newFrameReader(strings.NewReader(`}`), 16)
	if _, err := fr.value(true); !errors.Is(err, api.ErrDecode) {
		t.Fatalf("err = %v, want ErrDecode", err)
	}
}

// TestFrameReaderGrowsWhileBusy: a watch's buffer stays at its start size
// while each read finds less than it holds, and doubles up to its maximum
// while reads fill it (the socket held more than the buffer could take).
func TestFrameReaderGrowsWhileBusy(t *testing.T) {
	event := `{"type":"MODIFIED","object":{"metadata":{"name":"` + strings.Repeat("p", 300) + `"}}}` + "\n"
	stream := []byte(strings.Repeat(event, 400))
	for _, tc := range []struct {
		name  string
		burst int // bytes the reader holds at each read
		want  int // buffer size at the end
	}{
		{"quiet: one event a read", len(event), watchBufferStart},
		{"busy: the socket always holds more", 1 << 20, watchBufferMax},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fr := newFrameReader(&rcChunkReader{data: stream, n: tc.burst}, watchBufferStart).growingTo(watchBufferMax)
			got := 0
			for {
				if _, err := fr.value(true); err != nil {
					if !errors.Is(err, io.EOF) {
						t.Fatal(err)
					}
					break
				}
				got++
			}
			if got != 400 {
				t.Fatalf("read %d events, want 400", got)
			}
			if len(fr.buf) != tc.want {
				t.Errorf("buffer of %d bytes after the stream, want %d", len(fr.buf), tc.want)
			}
		})
	}
}
