package lease

import "time"

// RequestTimeout returns the bound New put on each request of e's
// KubeStore (-1 for another store), for TestNew.
func RequestTimeout(e *Elector) time.Duration {
	if k, ok := e.store.(*KubeStore); ok {
		return k.timeout
	}
	return -1
}
