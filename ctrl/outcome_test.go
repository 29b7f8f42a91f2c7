package ctrl

import (
	"errors"
	"testing"
	"time"
)

// TestDecide checks the policy of controller-runtime's reconcileHandler
// (an error wins over a Result and is retried with backoff; RequeueAfter
// forgets the backoff and re-adds after the delay; success forgets) plus
// the give-up rule of kube-controller-manager's Deployment controller
// (NumRequeues(key) < maxRetries → retry, else forget and drop).
func TestDecide(t *testing.T) {
	boom := errors.New("boom")
	for _, tc := range []struct {
		name                string
		res                 Result
		err                 error
		requeues, maxRetris int
		want                action
	}{
		{"success", Result{}, nil, 0, 0, forget},
		{"success after failures", Result{}, nil, 7, 3, forget},
		{"error", Result{}, boom, 0, 0, retry},
		{"error wins over RequeueAfter", Result{RequeueAfter: time.Second}, boom, 0, 0, retry},
		{"error, unlimited retries", Result{}, boom, 1000, 0, retry},
		{"error below maxRetries", Result{}, boom, 14, 15, retry},
		{"error at maxRetries", Result{}, boom, 15, 15, drop},
		{"error past maxRetries", Result{}, boom, 16, 15, drop},
		{"RequeueAfter", Result{RequeueAfter: time.Second}, nil, 3, 0, requeueAfter},
		{"RequeueAfter of 1ns", Result{RequeueAfter: 1}, nil, 0, 0, requeueAfter},
		{"negative RequeueAfter is success", Result{RequeueAfter: -time.Second}, nil, 0, 0, forget},
		{"Requeue", Result{Requeue: true}, nil, 3, 0, requeue},
		{"RequeueAfter wins over Requeue", Result{Requeue: true, RequeueAfter: time.Second}, nil, 0, 0, requeueAfter},
		{"error wins over Requeue", Result{Requeue: true}, boom, 0, 0, retry},
	} {
		if got := decide(tc.res, tc.err, tc.requeues, tc.maxRetris); got != tc.want {
			t.Errorf("%s: decide = %d, want %d", tc.name, got, tc.want)
		}
	}
}
