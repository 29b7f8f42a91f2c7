package difftest

import (
	"errors"
	"fmt"
	"maps"

	"github.com/kcmlab/kcm/kube/api"
)

// ErrRollout is wrapped by KeptWorkload's error: a manager that took a
// Deployment over made or deleted a ReplicaSet, or replaced a pod —
// a rollout where none was due.
var ErrRollout = errors.New("difftest: a takeover started a rollout")

// UIDs maps each object's name to its uid: what tells an object kept
// from one replaced under the same name.
func UIDs[T api.Object](m map[string]T) map[string]string {
	out := make(map[string]string, len(m))
	for name, o := range m {
		out[name] = o.GetObjectMeta().UID
	}
	return out
}

// KeptWorkload checks, on what obs sees now, that the Deployment's
// ReplicaSets are exactly beforeRS (names and uids) and that every pod
// of beforePods is there with its uid. It returns the pods seen now and
// the new ones the ReplicaSet rsName controls (a scale-up's), and an
// error wrapping ErrRollout naming what changed.
func KeptWorkload(obs *Observer, beforeRS, beforePods map[string]string, rsName string) (pods map[string]string, newPods []string, err error) {
	var rs map[string]string
	obs.Do(func(v View) {
		rs, pods = UIDs(v.ReplicaSets), UIDs(v.Pods)
		for name, p := range v.Pods {
			if _, ok := beforePods[name]; !ok && p.IsControlledBy(beforeRS[rsName]) {
				newPods = append(newPods, name)
			}
		}
	})
	var errs []error
	if !maps.Equal(rs, beforeRS) {
		errs = append(errs, fmt.Errorf("%w: ReplicaSets before %v, after %v", ErrRollout, beforeRS, rs))
	}
	for name, uid := range beforePods {
		if pods[name] != uid {
			errs = append(errs, fmt.Errorf("%w: pod %s (%s) was replaced or deleted", ErrRollout, name, uid))
		}
	}
	return pods, newPods, errors.Join(errs...)
}
