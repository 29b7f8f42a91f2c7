package informer_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/internal/testing/fakeapi"
	"github.com/kcmlab/kcm/kube/rest"
)

// The chaos suite's part of the faults real clusters show (fakeapi's
// tls.go, auth.go, content.go): what the client needs to meet them, and
// the checks that come with them.
//
//   - TLS seeds serve HTTPS with HTTP/2; the client trusts the fake's CA
//     and shrinks the transport's handshake and HTTP/2 ping timings, so a
//     stalled handshake or a silent connection costs a fraction of a
//     second instead of client-go's 10 s and 45 s.
//   - Every seed authenticates with a bearer token that the server revokes
//     now and then (401): the client refreshes it and retries.
//   - Redirects go to another host, which must receive no credentials.
//   - The client's logger is scanned: no line may hold the token secret.
//   - Some seeds write objects near the size cap of one object.
//   - Some seeds run the client's clock as a clock.Fake that follows real
//     time and jumps: its wall reading forwards and backwards
//     (clock.Fake.Jump: timers keep their remaining time), or time itself
//     forwards (Step: every timer due within the jump fires at once).
//   - Half the seeds run the client on protobuf (rest.Config.ContentType)
//     and add the faults of protobuf answers (fakeapi's protofaults.go);
//     the fake's MaxObject is the client's object bound, which
//     ProtoOversize exceeds. The Go heap's growth per seed is bounded
//     (chaosHeapLimit): a client that allocated what a lying length
//     prefix announces would fail it.

// chaosMaxObject is the client's bound on one object or event in the
// chaos suite (rest.WithMaxObjectBytes): small, so that objects near it
// are cheap to write and decode thousands of times.
const chaosMaxObject = 256 << 10

// chaosHeapLimit bounds the growth of the Go heap (runtime.MemStats.HeapSys)
// during a seed: a few objects near chaosMaxObject per event and per list
// item at a time stay far below it; one allocation of what a lying
// protobuf length prefix announces (near 4 GiB, fakeapi.ProtoLyingLength)
// goes past it.
const chaosHeapLimit = 1 << 30

// chaosSecret is the token secret of a seed.
func chaosSecret(seed uint64) string { return fmt.Sprintf("kcm-chaos-secret-%d", seed) }

// chaosClientOptions are the client's settings for a scenario: short
// transport timings, list idle and page deadlines, the object bound, the
// logger, and the clock.
func chaosClientOptions(clk clock.Clock, log zerolog.Logger) []rest.Option {
	return []rest.Option{
		rest.WithRetryPolicy(rest.RetryPolicy{MaxAttempts: 3, Initial: time.Millisecond, Max: 5 * time.Millisecond,
			MaxRetryAfter: 5 * time.Millisecond}),
		rest.WithTransportTimeouts(rest.TransportTimeouts{TLSHandshake: 300 * time.Millisecond,
			HTTP2ReadIdle: 300 * time.Millisecond, HTTP2PingTimeout: 500 * time.Millisecond}),
		// A slow-loris body must not hold a LIST past its page deadline.
		rest.WithListIdleTimeout(time.Second), rest.WithListPageTimeout(2 * time.Second),
		rest.WithMaxObjectBytes(chaosMaxObject),
		rest.WithLogger(log), rest.WithClock(clk),
	}
}

// chaosNewRates are the rates of the faults real clusters show, before the
// scenario's intensity; TLS faults only on TLS seeds.
func (s chaosScenario) chaosNewRates(r fakeapi.Rates) {
	for f, p := range map[fakeapi.Fault]float64{
		fakeapi.Unauthorized401: 0.01, fakeapi.ForbiddenWatch403: 0.01, fakeapi.Redirect307: 0.01,
		fakeapi.SlowLoris: 0.01,
		fakeapi.Duplicate: 0.01, fakeapi.OutOfOrder: 0.01, fakeapi.Stale: 0.01, fakeapi.LowBookmark: 0.01,
		fakeapi.GhostDelete: 0.01, fakeapi.ReAdd: 0.01, fakeapi.ErrorOther: 0.01,
	} {
		r[f] = p
	}
	if s.tls {
		r[fakeapi.GoAway], r[fakeapi.GoAwayClose], r[fakeapi.LostPings], r[fakeapi.HandshakeStall] = 0.02, 0.01, 0.003, 0.02
	}
	if s.protobuf {
		for f, p := range map[fakeapi.Fault]float64{
			fakeapi.ProtoLyingLength: 0.01, fakeapi.ProtoTruncatedVarint: 0.01, fakeapi.ProtoWrongKind: 0.01,
			fakeapi.ProtoUnknownFields: 0.03, fakeapi.ProtoOversize: 0.005, fakeapi.ProtoJSON: 0.01,
			fakeapi.ProtoListUnknownFields: 0.05, fakeapi.ProtoListOversize: 0.02,
		} {
			r[f] = p
		}
	}
}

// contentType is what the scenario's client asks for.
func (s chaosScenario) contentType() string {
	if s.protobuf {
		return rest.ContentTypeProtobuf
	}
	return rest.ContentTypeJSON
}

// logScan is the client's log sink: it counts lines and keeps the first
// few that hold the secret.
type logScan struct {
	secret string
	mu     sync.Mutex
	lines  int
	leaks  []string
}

func (l *logScan) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines += strings.Count(string(p), "\n")
	if strings.Contains(string(p), l.secret) && len(l.leaks) < 3 {
		l.leaks = append(l.leaks, string(p))
	}
	return len(p), nil
}

// count returns the lines written so far.
func (l *logScan) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lines
}

// check returns "" or what leaked.
func (l *logScan) check() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.leaks) == 0 {
		return ""
	}
	return fmt.Sprintf("the token secret is in %d+ log lines, e.g. %q", len(l.leaks), l.leaks[0])
}

// jumpingClock is a clock.Fake that follows real time (a driver steps it
// every millisecond by the real time elapsed) and, until stopped, jumps
// now and then: its wall reading forwards or backwards by up to an hour
// (Jump), or time itself forwards (Step, firing every timer due).
type jumpingClock struct {
	*clock.Fake
	rng    *rand.Rand // the driver's only
	mu     sync.Mutex
	jumpy  bool
	jumps  int
	stop   chan struct{}
	done   chan struct{}
	stopMu sync.Once
}

func startJumpingClock(seed uint64) *jumpingClock {
	c := &jumpingClock{Fake: clock.NewFake(time.Now()), rng: rand.New(rand.NewPCG(seed, 7)), jumpy: true,
		stop: make(chan struct{}), done: make(chan struct{})}
	go c.drive()
	return c
}

func (c *jumpingClock) drive() {
	defer close(c.done)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	last := time.Now()
	for {
		select {
		case <-c.stop:
			return
		case now := <-tick.C:
			c.Step(now.Sub(last))
			last = now
		}
		c.mu.Lock()
		jumpy := c.jumpy
		c.mu.Unlock()
		if !jumpy || c.rng.IntN(300) != 0 { // about three jumps a second
			continue
		}
		d := time.Duration(1+c.rng.Int64N(3600)) * time.Second
		switch c.rng.IntN(3) {
		case 0:
			c.Jump(d)
		case 1:
			c.Jump(-d)
		default:
			c.Step(d)
		}
		c.mu.Lock()
		c.jumps++
		c.mu.Unlock()
	}
}

// calm ends the jumps (quiescence); the clock goes on following real time.
func (c *jumpingClock) calm() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.jumpy = false
	return c.jumps
}

// halt stops the driver and waits for it.
func (c *jumpingClock) halt() {
	c.stopMu.Do(func() { close(c.stop) })
	<-c.done
}

// bigObject pads obj with an annotation so that its JSON, once the server
// stamps it, is just under chaosMaxObject, and a watch event of it too.
func bigObject(obj map[string]any) {
	meta := obj["metadata"].(map[string]any)
	meta["annotations"] = map[string]any{"chaos/padding": strings.Repeat("x", chaosMaxObject-1024)}
}
