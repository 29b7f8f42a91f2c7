//go:build !nocluster

package history_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/kcmlab/kcm/ctrl/history"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// revisionReaders read ControllerRevisions as kcm's code does — a GET
// (Typed) and an informer's LIST (Compact, managedFields stripped) — on a
// JSON client and on a protobuf client.
type revisionReaders struct {
	json, proto *rest.Client
}

func newRevisionReaders(t *testing.T, cl *testenv.Cluster) revisionReaders {
	t.Helper()
	var r revisionReaders
	for _, c := range []struct {
		ct  string
		out **rest.Client
	}{{rest.ContentTypeJSON, &r.json}, {rest.ContentTypeProtobuf, &r.proto}} {
		cfg := cl.Config()
		cfg.ContentType = c.ct
		client, err := rest.NewClient(cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(client.CloseIdleConnections)
		*c.out = client
	}
	return r
}

// read returns revision name of ns as each reader reads it, by the
// reader's name ("protobuf/Compact"), failing t unless a JSON reader's
// copy is JSON and a protobuf reader's is protobuf: a ControllerRevision
// must really be read as protobuf on a protobuf client.
func (r revisionReaders) read(ctx context.Context, t *testing.T, ns, name string) map[string]*api.ControllerRevision {
	t.Helper()
	out := map[string]*api.ControllerRevision{}
	for wire, client := range map[string]*rest.Client{"JSON": r.json, "protobuf": r.proto} {
		typed := rest.NewResources(client, rest.ControllerRevisions, decode.Typed[api.ControllerRevision]()).InNamespace(ns)
		cached := rest.NewResources(client, rest.ControllerRevisions,
			decode.StrippingManagedFields(decode.Compact[api.ControllerRevision]())).InNamespace(ns)
		got, err := typed.Get(ctx, name)
		if err != nil {
			t.Fatalf("%s GET revision %s: %v", wire, name, err)
		}
		out[wire+"/Typed"] = got
		list, err := cached.List(ctx, rest.ListOptions{FieldSelector: "metadata.name=" + name})
		if err != nil || len(list.Items) != 1 {
			t.Fatalf("%s LIST revision %s: %v", wire, name, err)
		}
		out[wire+"/Compact"] = list.Items[0]
	}
	for how, rev := range out {
		if isProto := rev.IsProto(); isProto != (how[:5] == "proto") {
			t.Fatalf("revision %s read by %s: IsProto %v", name, how, isProto)
		}
	}
	return out
}

// sameOnBothWires checks that revision name reads alike on both wires:
// the same Data.Raw (want, when not nil), so the same hash with
// collisionCount, and EqualRevision between every two copies; it returns
// the data.
func (r revisionReaders) sameOnBothWires(ctx context.Context, t *testing.T, ns, name string, want []byte,
	collisionCount *int32) []byte {
	t.Helper()
	copies := r.read(ctx, t, ns, name)
	ref := copies["JSON/Typed"]
	if want == nil {
		want = ref.Data.Raw
	}
	wantHash := history.Hash(want, collisionCount)
	for how, rev := range copies {
		if !bytes.Equal(rev.Data.Raw, want) {
			t.Errorf("revision %s read by %s: data\n%s\nwant\n%s", name, how, rev.Data.Raw, want)
		}
		if h := history.HashControllerRevision(rev, collisionCount); h != wantHash {
			t.Errorf("revision %s read by %s: hash %s, want %s", name, how, h, wantHash)
		}
		if !history.EqualRevision(rev, ref) || len(history.FindEqualRevisions([]*api.ControllerRevision{ref}, rev)) != 1 {
			t.Errorf("revision %s read by %s is not EqualRevision to its JSON copy", name, how)
		}
		if rev.Revision != ref.Revision || rev.Labels[history.HashLabel] != ref.Labels[history.HashLabel] {
			t.Errorf("revision %s read by %s: number %d, hash label %q; JSON: %d, %q", name, how, rev.Revision,
				rev.Labels[history.HashLabel], ref.Revision, ref.Labels[history.HashLabel])
		}
	}
	return want
}

// handWrittenData is revision data as no controller writes it (spaces, <,
// > and & unescaped), and handWrittenForm the same JSON as the apiserver's
// JSON serves it: compacted, escaped.
const (
	handWrittenData = `{"spec": {"template": {"$patch": "replace", "metadata": {"annotations": {"note": "a<b && c>d"}}}}}`
	handWrittenForm = `{"spec":{"template":{"$patch":"replace","metadata":{"annotations":{"note":"a\u003cb \u0026\u0026 c\u003ed"}}}}}`
)

// handWrittenRevision: a revision whose data was sent with other spacing
// and unescaped characters is stored as sent — the protobuf message
// carries those bytes — and reads as the apiserver's JSON form through
// both wires (protocodec's normalisation), so kcm on protobuf compares and
// hashes it as kcm on JSON does.
func handWrittenRevision(ctx context.Context, t *testing.T, c *rest.Client, readers revisionReaders, ns string) {
	t.Helper()
	obj, err := decode.Raw().Decode([]byte(`{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"hand-written"},` +
		`"revision":4,"data":` + handWrittenData + `}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rest.NewResources(c, rest.ControllerRevisions, decode.Raw()).InNamespace(ns).Create(ctx, obj); err != nil {
		t.Fatal(err)
	}
	readers.sameOnBothWires(ctx, t, ns, "hand-written", []byte(handWrittenForm), nil)
	pb, err := rest.NewResources(readers.proto, rest.ControllerRevisions, decode.Typed[api.ControllerRevision]()).InNamespace(ns).
		Get(ctx, "hand-written")
	if err != nil {
		t.Fatal(err)
	}
	if msg, err := pb.OriginalProto(); err != nil || !bytes.Contains(msg, []byte(handWrittenData)) {
		t.Errorf("the protobuf message of the hand-written revision does not carry its data as sent (%v): %q", err, msg)
	}
}
