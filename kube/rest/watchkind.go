package rest

import (
	"fmt"

	"github.com/kcmlab/kcm/kube/api"
)

// expectedKinds is what a watch's objects may be: the resource's kind,
// or PartialObjectMetadata for a metadata-only watch (whose server may
// also answer with whole objects). An event of another kind is a server
// or proxy fault: decoding it as the watch's type would put a foreign
// object in a cache under a plausible key. client-go's reflector logs
// and skips such an event; a Watcher ends the watch with an error
// wrapping api.ErrDecode instead, so that the informer lists again and
// nothing is skipped silently. Objects that carry no kind (a codec that
// does not keep TypeMeta) and a resource without a kind are not checked.
type expectedKinds struct {
	kind     string
	metaOnly bool
}

// expectedKinds returns the kinds r's watches may carry.
func (r *Resources[T]) expectedKinds() expectedKinds {
	return expectedKinds{kind: r.res.Kind, metaOnly: r.metaOnly}
}

// checkKind returns an error for an event whose object is of another
// kind than k allows. ERROR events carry a Status, not an object of the
// watch.
func checkKind[T api.Object](k expectedKinds, ev WatchEvent[T]) error {
	if k.kind == "" || ev.Type == Error {
		return nil
	}
	var zero T
	if any(ev.Object) == any(zero) {
		return nil
	}
	got := ev.Object.GetTypeMeta().Kind
	if got == "" || got == k.kind || k.metaOnly && got == metaOnlyType.Kind {
		return nil
	}
	return fmt.Errorf("%w: a %s event of kind %q (%s) on a watch of %s", api.ErrDecode, ev.Type, got,
		ev.Object.GetObjectMeta().Key(), k.kind)
}
