package fidelity

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	sigsjson "sigs.k8s.io/json"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// Writer checks kcm's read-modify-write: a cached typed object, deep
// copied and changed as kcm's controllers change them, written with
// rest's Update or UpdateStatus. Its server records the body of each PUT
// and answers with it.
type Writer struct {
	srv    *httptest.Server
	client *rest.Client

	mu   sync.Mutex
	last []byte // guarded by mu
}

// NewWriter starts the recording server and a kcm client for it.
func NewWriter() (*Writer, error) {
	w := &Writer{}
	w.srv = httptest.NewServer(http.HandlerFunc(w.serve))
	c, err := rest.NewClient(&rest.Config{Host: w.srv.URL, QPS: -1})
	if err != nil {
		w.srv.Close()
		return nil, err
	}
	w.client = c
	return w, nil
}

// Close stops the server.
func (w *Writer) Close() {
	w.client.CloseIdleConnections()
	w.srv.Close()
}

func (w *Writer) serve(rw http.ResponseWriter, r *http.Request) {
	b, err := io.ReadAll(r.Body)
	if err != nil || r.Method != http.MethodPut {
		http.Error(rw, `{"kind":"Status","apiVersion":"v1","status":"Failure","code":400}`, http.StatusBadRequest)
		return
	}
	w.mu.Lock()
	w.last = b
	w.mu.Unlock()
	rw.Header().Set("Content-Type", "application/json")
	_, _ = rw.Write(b)
}

// sent returns the body of the last PUT.
func (w *Writer) sent() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.last
}

// The changes the checks make, as kcm's deployment controller makes them:
// a revision annotation (setNewReplicaSetAnnotations, setDeploymentRevision),
// a status (syncDeploymentStatus: observedGeneration, replicas and a
// condition's reason, in place), a ReplicaSet's size and its
// desired-replicas annotation (scaleReplicaSet).
const (
	revisionAnnotation = "deployment.kubernetes.io/revision"
	desiredAnnotation  = "deployment.kubernetes.io/desired-replicas"
	changedReason      = "KCMChanged"
)

// CheckDeploymentWrites decodes in (want's JSON as served) into kcm's
// cache, then writes it back twice: an Update that sets the revision
// annotation and an UpdateStatus that changes the status. Each PUT body,
// decoded with k8s.io/api, must be semantically equal to want with the
// same change, and as JSON be in with that change, member for member.
func (w *Writer) CheckDeploymentWrites(ctx context.Context, c *Cache, in []byte, want *appsv1.Deployment) error {
	kd, err := c.Deployment(in)
	if err != nil {
		return err
	}
	res := rest.NewResources(w.client, rest.Deployments, decode.Typed[api.Deployment]())

	cp, err := api.DeepCopy(kd)
	if err != nil {
		return err
	}
	cp.Annotations = maps.Clone(cp.Annotations)
	if cp.Annotations == nil {
		cp.Annotations = map[string]string{}
	}
	cp.Annotations[revisionAnnotation] = "7"
	if _, err := res.Update(ctx, cp); err != nil {
		return fmt.Errorf("kcm's Update: %w", err)
	}
	wantGo := want.DeepCopy()
	if wantGo.Annotations == nil {
		wantGo.Annotations = map[string]string{}
	}
	wantGo.Annotations[revisionAnnotation] = "7"
	if err := compareWrite("Update of a Deployment", w.sent(), in, wantGo, func(m map[string]any) {
		meta := m["metadata"].(map[string]any)
		ann, _ := meta["annotations"].(map[string]any)
		if ann == nil {
			ann = map[string]any{}
		}
		ann[revisionAnnotation] = "7"
		meta["annotations"] = ann
	}); err != nil {
		return err
	}

	cp, err = api.DeepCopy(kd)
	if err != nil {
		return err
	}
	cp.Status.ObservedGeneration = cp.Generation + 1
	cp.Status.Replicas = 42
	if len(cp.Status.Conditions) > 0 {
		cp.Status.Conditions[0].Reason = changedReason
	}
	if _, err := res.UpdateStatus(ctx, cp); err != nil {
		return fmt.Errorf("kcm's UpdateStatus: %w", err)
	}
	wantGo = want.DeepCopy()
	wantGo.Status.ObservedGeneration = wantGo.Generation + 1
	wantGo.Status.Replicas = 42
	if len(wantGo.Status.Conditions) > 0 {
		wantGo.Status.Conditions[0].Reason = changedReason
	}
	return compareWrite("UpdateStatus of a Deployment", w.sent(), in, wantGo, func(m map[string]any) {
		st, _ := m["status"].(map[string]any)
		if st == nil {
			st = map[string]any{}
			m["status"] = st
		}
		st["observedGeneration"] = jsonNumber(wantGo.Status.ObservedGeneration)
		st["replicas"] = jsonNumber(42)
		if conds, _ := st["conditions"].([]any); len(conds) > 0 {
			conds[0].(map[string]any)["reason"] = changedReason
		}
	})
}

// CheckReplicaSetWrite decodes the ReplicaSet rb into kcm's cache and
// scales it to 5 with its desired-replicas annotation, as the deployment
// controller does; the PUT body must be rb with that change.
func (w *Writer) CheckReplicaSetWrite(ctx context.Context, c *Cache, rb []byte) error {
	krs, err := c.ReplicaSet(rb)
	if err != nil {
		return err
	}
	var want appsv1.ReplicaSet
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(rb, &want); err != nil {
		return err
	}
	cp, err := api.DeepCopy(krs)
	if err != nil {
		return err
	}
	five := int32(5)
	cp.Spec.Replicas = &five
	cp.Annotations = maps.Clone(cp.Annotations)
	cp.Annotations[desiredAnnotation] = "5"
	if _, err := rest.NewResources(w.client, rest.ReplicaSets, decode.Typed[api.ReplicaSet]()).Update(ctx, cp); err != nil {
		return fmt.Errorf("kcm's Update: %w", err)
	}
	want.Spec.Replicas = &five
	want.Annotations[desiredAnnotation] = "5"
	return compareWrite("Update of a ReplicaSet", w.sent(), rb, &want, func(m map[string]any) {
		m["spec"].(map[string]any)["replicas"] = jsonNumber(5)
		m["metadata"].(map[string]any)["annotations"].(map[string]any)[desiredAnnotation] = "5"
	})
}

// compareWrite checks a PUT body against the expected object: decoded
// with k8s.io/api into a value of want's type, semantically equal to want;
// as JSON, equal to in with change applied.
func compareWrite[T any](what string, body, in []byte, want *T, change func(map[string]any)) error {
	got := new(T)
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(body, got); err != nil {
		return fmt.Errorf("k8s.io/api decode of kcm's %s: %w", what, err)
	}
	if !equality.Semantic.DeepEqual(got, want) {
		return fmt.Errorf("%w: %s (Go, semantic): %s", ErrDiffers, what, goDiff(want, got))
	}
	var g, e map[string]any
	if err := unmarshalNumbers(body, &g); err != nil {
		return err
	}
	if err := unmarshalNumbers(in, &e); err != nil {
		return err
	}
	change(e)
	if d := jsonDiff("", e, g); d != "" {
		return fmt.Errorf("%w: %s (JSON): %s", ErrDiffers, what, d)
	}
	return nil
}
