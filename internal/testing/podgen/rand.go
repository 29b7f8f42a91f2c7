package podgen

import (
	"fmt"
	"strconv"
	"time"
)

// Everything in a generated object derives from its index through mix, a
// fixed 64-bit hash (splitmix64's finaliser): no global random source, so
// object i has the same bytes in every run and every process.

// mix hashes x with a salt that separates the uses of one index.
func mix(x uint64, salt uint64) uint64 {
	z := x*0x9e3779b97f4a7c15 + salt*0xbf58476d1ce4e5b9 + 0x94d049bb133111eb
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Salts: one per derived value.
const (
	saltUID = iota + 1
	saltRSUID
	saltHash
	saltSuffix
	saltNode
	saltIP
	saltImageID
	saltContainerID
	saltSidecarID
	saltAge
	saltSize
)

// safeAlphabet is the alphabet Kubernetes uses for generated name suffixes
// and pod-template-hash values (no vowels, no look-alike digits).
const safeAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// safeString returns n characters of safeAlphabet derived from h.
func safeString(h uint64, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = safeAlphabet[h%uint64(len(safeAlphabet))]
		h = h/uint64(len(safeAlphabet)) ^ mix(h, uint64(i))
	}
	return string(b)
}

// hexString returns n lowercase hex digits derived from seed.
func hexString(seed uint64, n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, n)
	h := seed
	for i := range b {
		if i%16 == 0 {
			h = mix(seed, uint64(i))
		}
		b[i] = digits[h&15]
		h >>= 4
	}
	return string(b)
}

// uid formats a deterministic RFC 4122 version-4 UUID.
func uid(seed uint64) string {
	h := hexString(seed, 32)
	return h[0:8] + "-" + h[8:12] + "-4" + h[13:16] + "-a" + h[17:20] + "-" + h[20:32]
}

// epoch is when the generated cluster's objects were created, give or take
// a few days.
var epoch = time.Date(2025, 6, 2, 8, 0, 0, 0, time.UTC)

// timestamp formats epoch+d as the API does (RFC 3339, seconds, UTC).
func timestamp(d time.Duration) string { return epoch.Add(d).Format(time.RFC3339) }

// itoa is strconv.Itoa, kept short for the builders.
func itoa(i int) string { return strconv.Itoa(i) }

// ipv4 formats an address in 10.0.0.0/8 from h.
func ipv4(second byte, h uint64) string {
	return fmt.Sprintf("10.%d.%d.%d", second, byte(h>>8), 2+byte(h)%250)
}
