package resttest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/kcmlab/kcm/kube/rest"
)

// Deletion as kube-apiserver's generic registry does it (Store.Delete,
// BeforeDelete, deletionFinalizersForGarbageCollection): preconditions,
// the garbage collector's finalizers for the propagation policy, graceful
// deletion of pods, and objects that finalizers keep.

// Finalizers the propagation policies add (meta/v1).
const (
	FinalizerOrphan     = "orphan"
	FinalizerForeground = "foregroundDeletion"
)

// remove deletes the object at k. It reports whether the object is gone
// (false: it stays, being deleted, and is returned).
func (t *tracker) remove(k key, opts rest.DeleteOptions) (object, bool, error) {
	old, err := t.get(k)
	if err != nil {
		return nil, false, err
	}
	om := meta(old)
	if p := opts.Preconditions; p != nil {
		if p.UID != nil && *p.UID != str(om, "uid") {
			return nil, false, conflict(k, fmt.Sprintf("Precondition failed: UID in precondition: %s, UID in object meta: %s", *p.UID, str(om, "uid")))
		}
		if p.ResourceVersion != nil && *p.ResourceVersion != str(om, "resourceVersion") {
			return nil, false, conflict(k, fmt.Sprintf("Precondition failed: ResourceVersion in precondition: %s, ResourceVersion in object meta: %s",
				*p.ResourceVersion, str(om, "resourceVersion")))
		}
	}
	next := deepCopy(old)
	nm := meta(next)
	if fins, changed := gcFinalizers(strList(om["finalizers"]), opts.PropagationPolicy); changed {
		if len(fins) == 0 {
			delete(nm, "finalizers")
		} else {
			nm["finalizers"] = toAny(fins)
		}
	}
	grace := t.gracePeriod(k.ref, old, opts)
	deleting := str(om, "deletionTimestamp") != ""
	switch {
	case grace > 0:
		// A graceful deletion starts, or gets shorter: the object stays
		// until its grace period ends (a kubelet deletes it then).
		if !deleting || grace < num(om["deletionGracePeriodSeconds"]) {
			nm["deletionTimestamp"] = t.timestamp(time.Duration(grace) * time.Second)
			nm["deletionGracePeriodSeconds"] = json.Number(strconv.FormatInt(grace, 10))
		}
	case !held(k.ref, next):
		delete(t.objects, k)
		return old, true, nil
	default:
		// Finalizers keep it (markAsDeleting); a grace period, if any,
		// is over.
		if !deleting {
			nm["deletionTimestamp"] = t.timestamp(0)
		}
		nm["deletionGracePeriodSeconds"] = json.Number("0")
	}
	if !deleting {
		if g := num(om["generation"]); g > 0 {
			nm["generation"] = json.Number(strconv.FormatInt(g+1, 10))
		}
		if k.ref == (ref{"", "namespaces"}) {
			status, _ := next["status"].(map[string]any)
			if status == nil {
				status = map[string]any{}
				next["status"] = status
			}
			status["phase"] = "Terminating"
		}
	}
	return t.commitDeletion(k, old, next), false, nil
}

// commitDeletion stores the object being deleted with a new
// resourceVersion, unless nothing changed.
func (t *tracker) commitDeletion(k key, old, next object) object {
	meta(next)["resourceVersion"] = meta(old)["resourceVersion"]
	if equalObjects(old, next) {
		return old
	}
	meta(next)["resourceVersion"] = t.nextRV()
	t.objects[k] = next
	return next
}

// gcFinalizers returns the finalizers after a delete with policy: Orphan
// adds "orphan", Foreground "foregroundDeletion", Background neither (and
// removes them), none keeps what is there.
func gcFinalizers(fins []string, policy string) ([]string, bool) {
	if policy == "" {
		return fins, false
	}
	out := slices.DeleteFunc(slices.Clone(fins), func(f string) bool { return f == FinalizerOrphan || f == FinalizerForeground })
	switch policy {
	case rest.PropagationOrphan:
		out = append(out, FinalizerOrphan)
	case rest.PropagationForeground:
		out = append(out, FinalizerForeground)
	}
	a, b := slices.Sorted(slices.Values(fins)), slices.Sorted(slices.Values(out))
	return out, !slices.Equal(a, b)
}

// gracePeriod is how long a deleted pod may take to terminate (Kubernetes'
// pod CheckGracefulDelete): the option's, else the pod's
// terminationGracePeriodSeconds (30 when unset), and 0 for a pod that is
// not scheduled or has finished. Other objects go at once.
func (t *tracker) gracePeriod(r ref, o object, opts rest.DeleteOptions) int64 {
	if r != (ref{"", "pods"}) {
		return 0
	}
	spec, _ := o["spec"].(map[string]any)
	status, _ := o["status"].(map[string]any)
	if str(spec, "nodeName") == "" {
		return 0
	}
	if ph := str(status, "phase"); ph == "Succeeded" || ph == "Failed" {
		return 0
	}
	if opts.GracePeriodSeconds != nil {
		return *opts.GracePeriodSeconds
	}
	if g, ok := spec["terminationGracePeriodSeconds"]; ok {
		return num(g)
	}
	return 30
}

// removeCollection deletes every object of r in ns that the selectors
// match, as many deletes without preconditions.
func (t *tracker) removeCollection(r ref, ns, labelSel, fieldSel string, opts rest.DeleteOptions) error {
	objs, err := t.list(r, ns, labelSel, fieldSel)
	if err != nil {
		return err
	}
	opts.Preconditions = nil
	for _, o := range objs {
		m := meta(o)
		if _, _, err := t.remove(key{r, str(m, "namespace"), str(m, "name")}, opts); err != nil {
			return err
		}
	}
	return nil
}

func equalObjects(a, b object) bool { return equalJSON(a, b) }

// equalJSON compares two decoded JSON values, empty maps and lists equal
// to absent ones.
func equalJSON(a, b any) bool { return string(encode(normal(a))) == string(encode(normal(b))) }
