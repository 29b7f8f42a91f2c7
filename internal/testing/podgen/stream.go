package podgen

import (
	"bytes"
	"strconv"
)

// List returns a PodList holding pods 0..n-1 at list resourceVersion rv, as
// kube-apiserver answers an unpaginated LIST: items without apiVersion and
// kind.
func List(n int, rv string) []byte {
	items := Items(n)
	return appendList(nil, items, rv, "", -1)
}

// Items returns the list-item JSON of pods 0..n-1 (no apiVersion/kind),
// one slice per pod, for assembling pages.
func Items(n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = listItem(i)
	}
	return out
}

// appendList writes a PodList around items. remaining < 0 leaves out
// remainingItemCount (an unpaginated or last page).
func appendList(b []byte, items [][]byte, rv, cont string, remaining int) []byte {
	b = append(b, `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"`...)
	b = append(b, rv...)
	b = append(b, '"')
	if cont != "" {
		b = append(b, `,"continue":"`...)
		b = append(b, cont...)
		b = append(b, '"')
	}
	if remaining >= 0 {
		b = append(b, `,"remainingItemCount":`...)
		b = strconv.AppendInt(b, int64(remaining), 10)
	}
	b = append(b, `},"items":[`...)
	for k, it := range items {
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, it...)
	}
	return append(b, "]}\n"...)
}

// Event wraps an object's JSON in a watch event frame, newline-terminated
// as kube-apiserver's encoder writes it.
func Event(typ string, obj []byte) []byte {
	return appendEvent(nil, typ, obj)
}

func appendEvent(b []byte, typ string, obj []byte) []byte {
	b = append(b, `{"type":"`...)
	b = append(b, typ...)
	b = append(b, `","object":`...)
	b = append(b, obj...)
	return append(b, "}\n"...)
}

// WatchEvents returns m MODIFIED events back to back, for pods among the
// first n (event k changes pod k*7919 mod n, so consecutive events touch
// different pods and every pod is touched once per n events when n is not
// a multiple of 7919). Event k carries resourceVersion startRV+1+k and is
// the pod's (k/n+1)-th version.
func WatchEvents(n, m, startRV int) []byte {
	var buf bytes.Buffer
	for k := 0; k < m; k++ {
		buf.Write(Event("MODIFIED", eventPod(n, k, startRV)))
	}
	return buf.Bytes()
}

// eventPod is the object of event k of WatchEvents(n, _, startRV).
func eventPod(n, k, startRV int) []byte {
	return PodVersion(EventTarget(n, k), k/n+1, strconv.Itoa(startRV+1+k))
}

// relabeledEventPod is eventPod with RelabeledPodVersion.
func relabeledEventPod(n, k, startRV int) []byte {
	return RelabeledPodVersion(EventTarget(n, k), k/n+1, strconv.Itoa(startRV+1+k))
}

// EventTarget returns the index of the pod that event k of
// WatchEvents(n, m, startRV) modifies.
func EventTarget(n, k int) int { return int(uint64(k) * 7919 % uint64(n)) }

// InitialEvents returns what a WatchList (sendInitialEvents=true) sends
// for pods 0..n-1 at resourceVersion rv: one ADDED event per pod, then the
// BOOKMARK annotated k8s.io/initial-events-end that closes them.
func InitialEvents(n int, rv string) []byte {
	var buf bytes.Buffer
	for i := 0; i < n; i++ {
		buf.Write(Event("ADDED", Pod(i)))
	}
	buf.Write(InitialEventsEnd(rv))
	return buf.Bytes()
}

// InitialEventsEnd is the bookmark that ends a WatchList's initial events.
func InitialEventsEnd(rv string) []byte {
	return Event("BOOKMARK", []byte(`{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"`+rv+
		`","creationTimestamp":null,"annotations":{"k8s.io/initial-events-end":"true"}},"spec":{"containers":null},"status":{}}`))
}
