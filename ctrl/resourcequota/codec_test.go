package resourcequota

import (
	"testing"

	"github.com/kcmlab/kcm/kube/rest"
)

// TestCountCodec: a monitor keeps of each object what counting and the
// informer need — namespace, name, resourceVersion — and drops labels,
// annotations, owners, finalizers and the raw JSON; the annotation that
// marks the end of a WatchList's initial events survives on its bookmark.
func TestCountCodec(t *testing.T) {
	o, err := countCodec{}.Decode([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"ns",
		"resourceVersion":"7","labels":{"a":"b"},"annotations":{"x":"y"},"finalizers":["f"],
		"ownerReferences":[{"apiVersion":"v1","kind":"Pod","name":"p","uid":"u"}],
		"managedFields":[{"manager":"m"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if o.Namespace != "ns" || o.Name != "c" || o.ResourceVersion != "7" {
		t.Errorf("identity lost: %s/%s rv %s", o.Namespace, o.Name, o.ResourceVersion)
	}
	if o.Labels != nil || o.Annotations != nil || o.Finalizers != nil || o.OwnerReferences != nil {
		t.Errorf("kept what counting does not need: %+v", o.ObjectMeta)
	}
	b, err := countCodec{}.Decode([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"resourceVersion":"9",
		"annotations":{"` + rest.InitialEventsEndAnnotation + `":"true"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if b.Annotations[rest.InitialEventsEndAnnotation] != "true" {
		t.Error("the WatchList end marker was dropped")
	}
}
