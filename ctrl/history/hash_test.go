package history_test

import (
	"strings"
	"testing"

	"github.com/kcmlab/kcm/ctrl/history"
	"github.com/kcmlab/kcm/kube/api"
)

func ptr[T any](v T) *T { return &v }

// TestHash: Kubernetes' HashControllerRevision is FNV-1 (hash/fnv New32,
// not New32a) over the data, then — when a collision count is given — its
// decimal digits (strconv.FormatInt), the 32-bit sum written in decimal
// and each digit mapped by rand.SafeEncodeString
// ("bcdfghjklmnpqrstvwxz2456789"[code point%27]: '0'→4, '1'→5, ...,
// '5'→9, '6'→b, '7'→c, '8'→d, '9'→f). The sums are the FNV-1 reference values
// (offset basis 0x811c9dc5 for no input, 0x050c5d7e for "a"; FNV-1a would
// give 0xe40c292c), computed apart from kcm.
func TestHash(t *testing.T) {
	tests := []struct {
		name  string
		data  string
		count *int32
		sum   string // FNV-1 32 of data+digits, decimal
		want  string
	}{
		{"empty data, no count: the offset basis", "", nil, "2166136261", "65bb57b6b5"},
		{"FNV-1 of a", "a", nil, "84696446", "d8bfb88b"},
		{"count 0 is written: a0", "a", ptr(int32(0)), "1886858602", "5ddbd9db46"},
		{"count 1: a1", "a", ptr(int32(1)), "1886858603", "5ddbd9db47"},
		{"count 12: two digits, a12", "a", ptr(int32(12)), "1989967683", "5fdffbcbd7"},
		{"a negative count keeps its sign: a-1", "a", ptr(int32(-1)), "2191299172", "65f56ff5c6"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := history.Hash([]byte(tt.data), tt.count); got != tt.want {
				t.Errorf("Hash(%q, %v) = %s, want %s (FNV-1 sum %s)", tt.data, tt.count, got, tt.want, tt.sum)
			}
			rev := &api.ControllerRevision{Data: api.RawExtension{Raw: []byte(tt.data)}}
			if got := history.HashControllerRevision(rev, tt.count); got != tt.want {
				t.Errorf("HashControllerRevision = %s, want %s", got, tt.want)
			}
		})
	}
}

// TestRevisionName: <prefix>-<hash>, the prefix cut to 223 bytes so that
// the name fits the 253 of an object name (ControllerRevisionName).
func TestRevisionName(t *testing.T) {
	long := strings.Repeat("s", 250)
	tests := []struct {
		prefix, hash, want string
	}{
		{"web", "7fc9466bc9", "web-7fc9466bc9"},
		{strings.Repeat("s", 223), "h", strings.Repeat("s", 223) + "-h"},
		{long, "h", long[:223] + "-h"},
	}
	for _, tt := range tests {
		if got := history.RevisionName(tt.prefix, tt.hash); got != tt.want {
			t.Errorf("RevisionName(%d bytes, %s) = %d bytes %q, want %q", len(tt.prefix), tt.hash, len(got), got, tt.want)
		}
	}
}
