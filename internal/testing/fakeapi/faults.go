package fakeapi

import (
	"math/rand/v2"
	"sync"
	"time"
)

// Fault is one kind of misbehaviour the server can be told to show.
type Fault int

// Faults, by where they strike.
const (
	None Fault = iota

	// Before a LIST or WATCH is answered.
	Status500   // 500 InternalError (a Status body)
	Status503   // 503 with a non-JSON body, as a proxy in front would send
	Status429   // 429 TooManyRequests with Retry-After: 1
	Gone410     // 410 Expired: LIST at an exact RV or a continue; WATCH at an RV
	TooLarge504 // 504 with cause ResourceVersionTooLarge: LIST at an RV
	SlowStart   // the answer starts only after a short delay
	StallHeader // WATCH: no answer at all, not even headers, until the client leaves

	// In a LIST answer.
	ContinueExpired // the continue token is refused with 410
	ListTruncated   // the body is cut in the middle and the connection dropped
	ListGarbage     // the body is not JSON
	// A LIST at resourceVersion "0" ("any") is answered from an older
	// snapshot (a revision between the compacted floor and the newest),
	// as an apiserver whose watch cache lags behind etcd answers it.
	StaleList

	// Before a watch frame is written.
	Drop      // the connection is cut between frames
	Truncated // half the frame is written, then the connection is cut
	Garbage   // bytes that are no event are written before the frame
	ErrorGone // an ERROR event 410 Expired ends the watch
	Stall     // nothing more is written (no bookmarks either) until the client leaves
	SlowFrame // the frame is written after a short delay

	// Before a request is answered: credentials and routing (auth.go).
	Unauthorized401   // every token issued so far is revoked, and the request is answered 401
	ForbiddenWatch403 // WATCH only: 403 Forbidden (RBAC allows list, not watch)
	Redirect307       // 307 to another host:port, which must receive no credentials

	// The connection under a request (tls.go; HTTP/2 over TLS only).
	GoAway         // the connection sends GOAWAY: in-flight streams go on, new ones go elsewhere
	GoAwayClose    // GOAWAY, then the connection is cut under its streams
	LostPings      // the connection goes silent, ping answers included, until the client closes it
	HandshakeStall // a new connection's TLS handshake is never answered

	// In a LIST answer (list.go).
	SlowLoris // the body trickles a byte at a time, each before the idle timeout

	// Bad watch content, in place of or around a change (content.go).
	Duplicate   // the event is sent twice
	OutOfOrder  // the event is sent after the one that follows it
	Stale       // an old event from before the watch's position is sent again first
	LowBookmark // a BOOKMARK with a resourceVersion lower than the last one sent comes first
	GhostDelete // a DELETED event for a key that does not exist comes first
	ReAdd       // the event is followed by an ADDED event of the same object
	ErrorOther  // an ERROR event other than 410 (500, 429, 403, not a Status) ends the watch

	// Protobuf answers only (protofaults.go): before a watch frame.
	ProtoLyingLength     // a frame whose length prefix lies: a few bytes long or short, or far over any limit
	ProtoTruncatedVarint // first a frame whose message ends inside a varint
	ProtoWrongKind       // first an event whose object is of another kind than the resource's
	// In place of a watch event (content).
	ProtoUnknownFields // the event with unknown fields and groups at every level, which a reader must skip
	ProtoOversize      // the event padded past the client's object limit (Options.MaxObject)
	ProtoJSON          // the event as JSON on the protobuf stream
	// In a protobuf LIST answer.
	ProtoListUnknownFields // unknown fields in the envelope, the list, its metadata and every item
	ProtoListOversize      // the first item padded past the client's object limit

	numFaults
)

var faultNames = [...]string{"none", "500", "503", "429", "410", "504-too-large", "slow-start", "stall-header",
	"continue-expired", "list-truncated", "list-garbage", "stale-list",
	"drop", "truncated", "garbage", "error-410", "stall", "slow-frame",
	"401-refresh", "403-watch", "redirect", "goaway", "goaway-close", "lost-pings", "handshake-stall",
	"slow-loris",
	"duplicate", "out-of-order", "stale", "low-bookmark", "ghost-delete", "re-add", "error-other",
	"pb-lying-length", "pb-truncated-varint", "pb-wrong-kind", "pb-unknown-fields", "pb-oversize", "pb-json",
	"pb-list-unknown-fields", "pb-list-oversize"}

func (f Fault) String() string {
	if f < 0 || f >= numFaults {
		return "fault?"
	}
	return faultNames[f]
}

// Rates gives each fault's probability where it can strike: per request
// for request faults, per LIST answer, per watch frame.
type Rates map[Fault]float64

// Injector decides, from one seeded random source, which fault (if any)
// strikes each time the server asks. It is safe for concurrent use; the
// order in which concurrent requests ask is up to the scheduler.
type Injector struct {
	mu  sync.Mutex
	rng *rand.Rand
	// rates are the probabilities in force while enabled.
	rates   Rates
	enabled bool
	// maxSlow bounds SlowStart and SlowFrame delays.
	maxSlow time.Duration
	counts  [numFaults]int
}

// NewInjector returns an enabled injector drawing from a PCG source
// seeded with seed. Slow faults wait up to maxSlow.
func NewInjector(seed uint64, rates Rates, maxSlow time.Duration) *Injector {
	return &Injector{rng: rand.New(rand.NewPCG(seed, 0x66616b65617069)), rates: rates, enabled: true, maxSlow: maxSlow}
}

// SetEnabled turns faults on or off (off: the server behaves).
func (in *Injector) SetEnabled(on bool) {
	if in == nil {
		return
	}
	in.mu.Lock()
	in.enabled = on
	in.mu.Unlock()
}

// Counts returns how often each fault struck.
func (in *Injector) Counts() map[Fault]int {
	out := map[Fault]int{}
	if in == nil {
		return out
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	for f, n := range in.counts {
		if n > 0 {
			out[Fault(f)] = n
		}
	}
	return out
}

// Total returns how many faults struck.
func (in *Injector) Total() int {
	n := 0
	for _, c := range in.Counts() {
		n += c
	}
	return n
}

// roll picks at most one of the candidate faults: one uniform draw walked
// along their cumulative rates. A nil or disabled injector picks None.
func (in *Injector) roll(candidates ...Fault) Fault {
	if in == nil {
		return None
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if !in.enabled {
		return None
	}
	u := in.rng.Float64()
	for _, f := range candidates {
		if u -= in.rates[f]; u < 0 {
			in.counts[f]++
			return f
		}
	}
	return None
}

// intN returns a number in [0, n) from the injector's source (n > 0).
func (in *Injector) intN(n int) int {
	if in == nil || n <= 1 {
		return 0
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.rng.IntN(n)
}

// slow returns a delay for a slow fault.
func (in *Injector) slow() time.Duration {
	if in == nil || in.maxSlow <= 0 {
		return 0
	}
	return time.Duration(in.intN(int(in.maxSlow)))
}

// garbage returns bytes that are not a watch event: not JSON, cut JSON,
// or JSON of the wrong shape.
func (in *Injector) garbage() []byte {
	g := garbageFrames[in.intN(len(garbageFrames))]
	return []byte(g)
}

var garbageFrames = []string{
	"\x00\x01\xfe\xff",
	`{"type":"ADDED","object":{"metadata":}`,
	`["not","an","event"]`,
	`{"type":"ADDED"}`,
	`{"type":"ADDED","object":"nope"}`,
	`{"type":"NOT-A-TYPE","object":{}}`,
	`{"type":"MODIFIED","object":{"metadata":{"name":1}}}`,
	`<html><body>502 Bad Gateway</body></html>`,
}
