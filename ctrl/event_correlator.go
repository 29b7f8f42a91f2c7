package ctrl

import (
	"fmt"
	"strings"
	"time"

	"golang.org/x/time/rate"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/api"
)

// The correlator's limits, client-go's (tools/record/events_cache.go).
const (
	// eventCacheSize bounds each of the correlator's three caches.
	eventCacheSize = 4096
	// aggregateMaxEvents similar events (same source, object, type and
	// reason; any message) within aggregateInterval of each other make
	// the next ones one combined event.
	aggregateMaxEvents = 10
	aggregateInterval  = 10 * time.Minute
	// spamBurst events about one object from one source pass at once;
	// then one per spamRefill.
	spamBurst  = 25
	spamRefill = 5 * time.Minute
	// aggregatePrefix starts the message of a combined event.
	aggregatePrefix = "(combined from similar events): "
)

// correlator decides, for each event a recorder emits, what is written to
// the apiserver (client-go's EventCorrelator), in three steps:
//
//  1. aggregate: when aggregateMaxEvents events that differ only in their
//     message arrive within aggregateInterval, further ones become one
//     event with the message prefixed "(combined from similar events): ",
//     counted like a repeat;
//  2. observe: an event identical to one already written (same source,
//     object, type, reason and message) is not created again; the first
//     one's count goes up by a patch of count, lastTimestamp and message;
//  3. filter: a token bucket per source and object (burst spamBurst, one
//     more per spamRefill) drops the excess.
//
// It is a pure state machine on an injected clock; one goroutine (the
// broadcaster's) drives it.
type correlator struct {
	clock      clock.Clock
	aggregates *lru[string, *aggregateRecord]
	seen       *lru[string, eventLog]
	spam       *lru[string, *rate.Limiter]
}

// aggregateRecord is what the aggregator knows of one group of similar
// events: the distinct messages seen and when the last one was.
type aggregateRecord struct {
	messages map[string]bool
	last     time.Time
}

// eventLog is what the correlator knows of an event it wrote.
type eventLog struct {
	count           int32
	first           api.Time
	name            string
	resourceVersion string
}

// correlation is the outcome for one event: skip it, or write Event —
// creating it when Patch is nil, else patching the existing one.
type correlation struct {
	Event *api.CoreEvent
	Patch []byte
	Skip  bool
}

func newCorrelator(clk clock.Clock) *correlator {
	return &correlator{
		clock:      clk,
		aggregates: newLRU[string, *aggregateRecord](eventCacheSize),
		seen:       newLRU[string, eventLog](eventCacheSize),
		spam:       newLRU[string, *rate.Limiter](eventCacheSize),
	}
}

// objectKey identifies the source and the involved object.
func objectKey(e *api.CoreEvent) string {
	o := e.InvolvedObject
	return strings.Join([]string{e.Source.Component, e.Source.Host, o.Kind, o.Namespace, o.Name, o.UID, o.APIVersion}, "\x00")
}

// eventKey identifies an event up to its counters and timestamps.
func eventKey(e *api.CoreEvent) string {
	return strings.Join([]string{objectKey(e), e.InvolvedObject.FieldPath, e.Type, e.Reason, e.Message}, "\x00")
}

// aggregateKey groups events that differ only in their message.
func aggregateKey(e *api.CoreEvent) string {
	return strings.Join([]string{objectKey(e), e.Type, e.Reason, e.ReportingController, e.ReportingInstance}, "\x00")
}

// correlate runs the three steps on e, which it may modify.
func (c *correlator) correlate(e *api.CoreEvent) correlation {
	e, key := c.aggregate(e)
	patch := c.observe(e, key)
	if !c.allow(e) {
		return correlation{Skip: true}
	}
	return correlation{Event: e, Patch: patch}
}

// aggregate returns e and its cache key, or, once the group of e holds
// aggregateMaxEvents distinct messages, a combined event and the group's
// key, so that later combined events count up one object.
func (c *correlator) aggregate(e *api.CoreEvent) (*api.CoreEvent, string) {
	now := c.clock.Now()
	akey := aggregateKey(e)
	rec, ok := c.aggregates.get(akey)
	if !ok || now.Sub(rec.last) > aggregateInterval {
		rec = &aggregateRecord{messages: map[string]bool{}}
	}
	rec.messages[e.Message] = true
	rec.last = now
	c.aggregates.put(akey, rec)
	if len(rec.messages) < aggregateMaxEvents {
		return e, eventKey(e)
	}
	// Keep the set from growing: forget one message, as client-go does.
	for m := range rec.messages {
		delete(rec.messages, m)
		break
	}
	// client-go's combined event carries no reportingComponent or
	// reportingInstance; kcm's looks the same.
	return &api.CoreEvent{
		ObjectMeta:     api.ObjectMeta{Name: eventName(e.InvolvedObject.Name, now), Namespace: e.Namespace},
		InvolvedObject: e.InvolvedObject,
		Reason:         e.Reason,
		Message:        aggregatePrefix + e.Message,
		Source:         e.Source,
		FirstTimestamp: api.Time{Time: now},
		LastTimestamp:  api.Time{Time: now},
		Count:          1,
		Type:           e.Type,
	}, akey
}

// observe turns a repeat of an event already written into an update of
// it: same name and first timestamp, count+1, and returns the patch that
// says so. It returns nil for an event not seen before.
func (c *correlator) observe(e *api.CoreEvent, key string) []byte {
	var patch []byte
	if last, ok := c.seen.get(key); ok {
		e.Name = last.name
		e.ResourceVersion = last.resourceVersion
		e.FirstTimestamp = last.first
		e.Count = last.count + 1
		patch = countPatch(e)
	}
	c.seen.put(key, eventLog{count: e.Count, first: e.FirstTimestamp, name: e.Name, resourceVersion: e.ResourceVersion})
	return patch
}

// countPatch is the strategic merge patch client-go sends for a repeat:
// the fields a repeat changes.
func countPatch(e *api.CoreEvent) []byte {
	last, _ := e.LastTimestamp.MarshalJSON()
	msg, _ := jsonString(e.Message)
	return fmt.Appendf(nil, `{"count":%d,"lastTimestamp":%s,"message":%s}`, e.Count, last, msg)
}

// allow takes a token from the bucket of e's source and object.
func (c *correlator) allow(e *api.CoreEvent) bool {
	key := objectKey(e)
	l, ok := c.spam.get(key)
	if !ok {
		l = rate.NewLimiter(rate.Every(spamRefill), spamBurst)
		c.spam.put(key, l)
	}
	return l.AllowN(c.clock.Now(), 1)
}

// written records the server's copy of an event, so that the next repeat
// patches it under the name and resourceVersion the server has.
func (c *correlator) written(e *api.CoreEvent) {
	c.seen.put(eventKey(e), eventLog{count: e.Count, first: e.FirstTimestamp, name: e.Name, resourceVersion: e.ResourceVersion})
}
