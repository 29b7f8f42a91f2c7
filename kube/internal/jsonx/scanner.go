package jsonx

import (
	"encoding/binary"
	"math/bits"
)

// Scanner finds where one JSON value ends in bytes that arrive in pieces,
// with the same shallow rules as SkipValue (containers matched by depth,
// strings skipped with their escapes, scalars ended by a delimiter). It
// keeps its place between calls: each byte is examined once, however the
// value is cut, so a value of n bytes read in k pieces costs O(n), not
// O(n·k) as calling SkipValue again from the value's first byte would.
//
// The zero Scanner is ready for a new value.
type Scanner struct {
	pos      int  // bytes of the value examined so far
	depth    int  // open containers
	first    byte // the value's first byte; 0 before the first Scan
	inString bool
	strStart int // where the open string's quote is
	// The last container directly inside the value (at depth 1): where
	// it starts and ends; see LastChild.
	childStart, childEnd int
}

// LastChild returns where the last object or array directly inside the
// value starts and ends (end exclusive), once Scan has completed the
// value: for a watch event {"type":"ADDED","object":{...}}, the object.
// ok is false when the value holds no container.
func (s *Scanner) LastChild() (start, end int, ok bool) {
	return s.childStart, s.childEnd, s.childEnd > s.childStart
}

// Reset prepares s for a new value.
func (s *Scanner) Reset() { *s = Scanner{} }

// Scanned returns how many bytes of the value s has examined.
func (s *Scanner) Scanned() int { return s.pos }

// Scalar reports whether the value is a scalar (number, true, false, null):
// one that only a delimiter or the end of the input completes.
func (s *Scanner) Scalar() bool { return s.first != 0 && !isOpen(s.first) }

func isOpen(b byte) bool { return b == '{' || b == '[' || b == '"' }

// Scan continues over v, the bytes of the value so far from its first byte
// (whitespace before it already skipped; v only grows between calls). It
// returns the value's length once it is complete, or ErrIncomplete when v
// ends first. A scalar's length is where its delimiter starts (0 when v
// starts with a delimiter: there is no value).
func (s *Scanner) Scan(v []byte) (int, error) {
	if len(v) == 0 {
		return 0, ErrIncomplete
	}
	if s.first == 0 {
		s.first = v[0]
		switch s.first {
		case '{', '[':
			s.depth, s.pos = 1, 1
		case '"':
			s.inString, s.strStart, s.pos = true, 0, 1
		}
	}
	if !isOpen(s.first) {
		for i := s.pos; i < len(v); i++ {
			switch v[i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				s.pos = i
				return i, nil
			}
		}
		s.pos = len(v)
		return 0, ErrIncomplete
	}
	i := s.pos
	for i < len(v) {
		if s.inString {
			k := quoteIndex(v[i:])
			if k < 0 {
				s.pos = len(v)
				return 0, ErrIncomplete
			}
			q := i + k
			i = q + 1
			// The quote ends the string unless an odd number of
			// backslashes, all inside the string, precede it.
			b := q - 1
			for b > s.strStart && v[b] == '\\' {
				b--
			}
			if (q-1-b)%2 != 0 {
				continue
			}
			s.inString = false
			if s.depth == 0 { // the value is this string
				s.pos = i
				return i, nil
			}
			continue
		}
		switch jsonClass[v[i]] {
		case 1:
			s.inString, s.strStart = true, i
			// Most strings are short: look for the closing quote here,
			// eight bytes at a time, rather than by a call per string;
			// a string that goes on past a few words, or is cut by
			// the end of v, is left to the loop above.
			j := i + 1
			for w := 0; w < 4 && j+8 <= len(v); w++ {
				x := binary.LittleEndian.Uint64(v[j:]) ^ quotes
				if m := (x - ones) &^ x & highs; m != 0 {
					q := j + bits.TrailingZeros64(m)>>3
					if v[q-1] == '\\' {
						break // maybe escaped: the loop above counts
					}
					s.inString = false
					i = q + 1
					goto next
				}
				j += 8
			}
			i = j // no quote before v[j]: the search resumes there
			continue
		case 2:
			if s.depth == 1 {
				s.childStart = i
			}
			s.depth++
		case 3:
			s.depth--
			if s.depth == 1 {
				s.childEnd = i + 1
			}
			if s.depth == 0 {
				s.pos = i + 1
				return i + 1, nil
			}
		}
		i++
	next:
	}
	s.pos = len(v)
	return 0, ErrIncomplete
}
