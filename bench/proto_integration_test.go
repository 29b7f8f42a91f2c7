//go:build !nocluster

package bench_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/kcmlab/kcm/bench"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/api/protowire"
	kcmrest "github.com/kcmlab/kcm/kube/rest"
)

// TestProtoAgainstKubeAPIServer holds kube/api/protowire to the real
// kube-apiserver v1.37: the pods kube-controller-manager made, listed as
// protobuf (unpaged and in pages), read with the same metadata as kcm's
// RawObject reads from the JSON list; the kept messages are, to
// client-go's generated Unmarshal, the pods without managedFields; and a
// protobuf WATCH is frames of raw (unenveloped) WatchEvents whose objects
// are enveloped, with ADDED, MODIFIED and DELETED read as they happened.
// The harness of cmd/protolist runs every variant once on the way.
func TestProtoAgainstKubeAPIServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	const pods = 1000
	cluster, cs := populatedCluster(ctx, t, pods)
	c, host, err := bench.NewProtoListClient(cluster.KubeconfigPath())
	if err != nil {
		t.Fatal(err)
	}

	// The JSON list, read by kcm's RawObject codec: the reference.
	jsonPages, _, err := bench.ListPodPages(ctx, c, host, bench.ProtoListVariants[0])
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, p := range jsonPages {
		if _, err := kcmrest.DecodeList(bytes.NewReader(p), decode.Raw(), func(o *api.RawObject) error {
			want[o.Key()] = fmt.Sprint(metaFields(&o.ObjectMeta))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if len(want) != pods {
		t.Fatalf("JSON list has %d pods, want %d", len(want), pods)
	}
	for _, v := range []bench.ProtoListVariant{bench.ProtoListVariants[1], bench.ProtoListVariants[3]} {
		pages, _, err := bench.ListPodPages(ctx, c, host, v)
		if err != nil {
			t.Fatal(err)
		}
		if v.Paged && len(pages) < 2 {
			t.Errorf("%s: %d pages for %d pods, want pages of 500", v.Name, len(pages), pods)
		}
		seen, checked := 0, 0
		for _, p := range pages {
			u, err := protowire.Unwrap(p)
			if err != nil {
				t.Fatalf("%s: %v", v.Name, err)
			}
			if string(u.APIVersion) != "v1" || string(u.Kind) != "PodList" {
				t.Fatalf("%s: envelope says %s %s", v.Name, u.APIVersion, u.Kind)
			}
			l, err := protowire.SplitList(u.Raw)
			if err != nil {
				t.Fatal(err)
			}
			for i, item := range l.Items {
				o, err := protowire.DecodeMessage(api.TypeMeta{APIVersion: "v1", Kind: "Pod"}, item, protowire.Options{DropManagedFields: true})
				if err != nil {
					t.Fatalf("%s: %v", v.Name, err)
				}
				seen++
				if got := fmt.Sprint(metaFields(&o.ObjectMeta)); got != want[o.Key()] {
					t.Errorf("%s: pod %s: protobuf metadata %s, JSON %s", v.Name, o.Key(), got, want[o.Key()])
				}
				if i%50 != 0 {
					continue
				}
				fam, err := protowire.DecodeMessage(api.TypeMeta{APIVersion: "v1", Kind: "Pod"}, item,
					protowire.Options{DropManagedFields: true, FamilyDelta: true})
				if err != nil || !bytes.Equal(fam.Message(), o.Message()) {
					t.Errorf("%s: %s with FamilyDelta: message differs (%v)", v.Name, o.Key(), err)
				}
				whole, kept := &corev1.Pod{}, &corev1.Pod{}
				if err := whole.Unmarshal(item); err != nil {
					t.Fatal(err)
				}
				if err := kept.Unmarshal(o.Message()); err != nil {
					t.Fatalf("%s: client-go cannot read the kept message of %s: %v", v.Name, o.Key(), err)
				}
				if len(whole.ManagedFields) == 0 {
					t.Fatalf("%s: %s has no managedFields: nothing is checked", v.Name, o.Key())
				}
				whole.ManagedFields = nil
				if !reflect.DeepEqual(whole, kept) {
					t.Errorf("%s: kept message of %s is not the pod without managedFields", v.Name, o.Key())
				}
				checked++
			}
		}
		if seen != pods || checked == 0 {
			t.Errorf("%s: read %d pods (%d checked against client-go), want %d", v.Name, seen, checked, pods)
		}
	}

	apiPID, _ := cluster.PIDs()
	for _, v := range bench.ProtoListVariants {
		s, err := bench.MeasureProtoList(ctx, c, host, v, apiPID)
		if err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		if s.Pods != pods || s.Wall <= 0 || s.Bytes == 0 || s.WireBytes == 0 || (v.Identity && s.WireBytes != s.Bytes) {
			t.Errorf("%s: sample %+v", v.Name, s)
		}
	}

	watchProtobuf(ctx, t, c, host, cs)
}

// watchProtobuf watches the pods of bench-0 in protobuf, then creates,
// relabels and deletes a pod there and reads the three events.
func watchProtobuf(ctx context.Context, t *testing.T, c *http.Client, host string, cs kubernetes.Interface) {
	const ns = "bench-0"
	l, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	wctx, wcancel := context.WithTimeout(ctx, 2*time.Minute)
	defer wcancel()
	req, err := http.NewRequestWithContext(wctx, http.MethodGet,
		host+"/api/v1/namespaces/"+ns+"/pods?watch=true&resourceVersion="+l.ResourceVersion, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", protowire.ContentType)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || !strings.HasPrefix(ct, protowire.ContentType) {
		t.Fatalf("watch: %s, Content-Type %q", resp.Status, ct)
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "proto-watch", Namespace: ns, Labels: map[string]string{"step": "created"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.example.com/c:1"}}}}
	created, err := cs.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Pods(ns).Patch(ctx, pod.Name, types.MergePatchType,
		[]byte(`{"metadata":{"labels":{"step":"relabelled"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	zero := int64(0)
	if err := cs.CoreV1().Pods(ns).Delete(ctx, pod.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		t.Fatal(err)
	}
	fr := protowire.NewFrameReader(resp.Body, 0)
	type step struct {
		typ, label string
		deleting   bool
	}
	var got []step
	for len(got) == 0 || got[len(got)-1].typ != protowire.Deleted {
		frame, err := fr.Next()
		if err != nil {
			t.Fatalf("watch after %v: %v", got, err)
		}
		if bytes.HasPrefix(frame, protowire.Magic[:]) {
			t.Errorf("watch frame is enveloped; kube-apiserver writes raw WatchEvents (the doc says so)")
		}
		e, err := protowire.DecodeEvent(frame)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(e.Object, protowire.Magic[:]) {
			t.Errorf("%s event's object is not enveloped", e.Type)
		}
		o, err := protowire.Decode(e.Object, protowire.Options{DropManagedFields: true})
		if err != nil {
			t.Fatal(err)
		}
		if o.Name != pod.Name {
			continue
		}
		if o.UID != string(created.UID) || o.Kind != "Pod" || o.APIVersion != "v1" {
			t.Errorf("%s: %s %s uid %s, want v1 Pod uid %s", e.Type, o.APIVersion, o.Kind, o.UID, created.UID)
		}
		got = append(got, step{e.Type, o.Labels["step"], o.DeletionTimestamp != nil && o.DeletionGracePeriodSeconds != nil})
	}
	// Deleting a pod with grace 0 may first record its deletion (a
	// MODIFIED with deletionTimestamp and deletionGracePeriodSeconds).
	want := []step{{protowire.Added, "created", false}, {protowire.Modified, "relabelled", false}}
	for range len(got) - 3 {
		want = append(want, step{protowire.Modified, "relabelled", true})
	}
	want = append(want, step{protowire.Deleted, "relabelled", len(got) > 3})
	if !reflect.DeepEqual(got, want) {
		t.Errorf("watch read %v, want %v", got, want)
	}
	t.Logf("watch events of the pod: %v", got)
}
