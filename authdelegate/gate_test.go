package authdelegate

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

// blockingAPI holds every review until release is closed; exceeded is
// closed if more than want are ever in flight at once.
type blockingAPI struct {
	release  chan struct{}
	full     chan struct{} // closed when want reviews are in flight
	exceeded chan struct{}
	want     int

	mu       sync.Mutex
	inFlight int
	most     int
}

func (b *blockingAPI) RawPost(ctx context.Context, _ string, body []byte) ([]byte, error) {
	b.mu.Lock()
	b.inFlight++
	if b.inFlight == b.want && b.most < b.want {
		close(b.full)
	}
	if b.inFlight > b.want && b.most == b.want {
		close(b.exceeded)
	}
	b.most = max(b.most, b.inFlight)
	b.mu.Unlock()
	<-b.release
	b.mu.Lock()
	b.inFlight--
	b.mu.Unlock()
	return []byte(`{"status":{}}`), nil
}

// TestReviewsInFlightAreBounded: with DefaultReviewInFlight reviews of
// unknown tokens in flight, the next waits at the gate rather than
// reaching the apiserver; all finish once the apiserver answers.
func TestReviewsInFlightAreBounded(t *testing.T) {
	api := &blockingAPI{release: make(chan struct{}), full: make(chan struct{}), exceeded: make(chan struct{}),
		want: DefaultReviewInFlight}
	td := newTestDelegate(t, newFakeAPI(), DefaultReviewBurst, nil, nil)
	waited := make(chan struct{}, 1)
	td.token.post = api
	td.token.gate.onWait = func() {
		select {
		case waited <- struct{}{}:
		default:
		}
	}
	var wg sync.WaitGroup
	codes := make(chan int, DefaultReviewInFlight+1)
	for i := range DefaultReviewInFlight {
		wg.Go(func() { codes <- td.serve(request("/metrics", fmt.Sprintf("token-%d", i))).Code })
	}
	<-api.full
	wg.Go(func() { codes <- td.serve(request("/metrics", "one-more")).Code })
	select {
	case <-waited:
	case <-api.exceeded:
		t.Errorf("a review beyond %d reached the apiserver", DefaultReviewInFlight)
	}
	close(api.release)
	wg.Wait()
	close(codes)
	for c := range codes {
		if c != 401 {
			t.Errorf("a token the apiserver did not authenticate: %d, want 401", c)
		}
	}
	if api.most != DefaultReviewInFlight {
		t.Errorf("%d reviews in flight at most, want %d", api.most, DefaultReviewInFlight)
	}
}
