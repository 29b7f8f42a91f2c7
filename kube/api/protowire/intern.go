package protowire

import "sync"

// typeStrings holds the apiVersion and kind strings seen in envelopes:
// a process sees a few dozen, and each decoded object would otherwise
// allocate its own two.
var typeStrings = struct {
	sync.RWMutex
	m map[string]string
}{m: map[string]string{}}

// maxTypeStrings bounds typeStrings; past it strings are not remembered.
const maxTypeStrings = 4096

// typeString returns b as a string, one copy per distinct value.
func typeString(b []byte) string {
	typeStrings.RLock()
	s, ok := typeStrings.m[string(b)]
	typeStrings.RUnlock()
	if ok {
		return s
	}
	s = string(b)
	typeStrings.Lock()
	if len(typeStrings.m) < maxTypeStrings {
		typeStrings.m[s] = s
	}
	typeStrings.Unlock()
	return s
}
