package podgen

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
)

// FieldsV1 trees: server-side apply's record of which manager owns which
// field. Keys are "f:<field>", "k:<json key of a list item>" or "." (the
// item itself), sorted, each mapping to a subtree or {} — exactly how the
// apiserver writes them.

// tree is a FieldsV1 subtree; nil children encode as {}.
type tree map[string]tree

// appendTo writes t as JSON with sorted keys. Keys are ASCII; the only
// character needing an escape is the quote inside "k:{...}" keys.
func (t tree) appendTo(b []byte) []byte {
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b = append(b, '{')
	for n, k := range keys {
		if n > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, strings.ReplaceAll(k, `"`, `\"`)...)
		b = append(b, '"', ':')
		b = t[k].appendTo(b)
	}
	return append(b, '}')
}

// leaves returns a tree of empty "f:" entries, plus "." when item is set.
func leaves(item bool, fields ...string) tree {
	t := tree{}
	if item {
		t["."] = tree{}
	}
	for _, f := range fields {
		t["f:"+f] = tree{}
	}
	return t
}

// k returns the "k:" key of a list item identified by a JSON object.
func k(obj string) string { return "k:" + obj }

// controllerFields is what kube-controller-manager owns after creating a
// pod from the template: metadata it set and the template's spec.
func controllerFields(w workload, cs []container) json.RawMessage {
	labels := leaves(true, "app", "pod-template-hash")
	annotations := leaves(true, "prometheus.io/scrape")
	t := tree{
		"f:metadata": tree{
			"f:annotations":     annotations,
			"f:generateName":    {},
			"f:labels":          labels,
			"f:ownerReferences": tree{".": {}, k(`{"uid":"` + w.rsUID + `"}`): {}},
		},
		"f:spec": templateSpecFields(cs),
	}
	return t.appendTo(make([]byte, 0, 1024))
}

// templateSpecFields is the part of a pod template's spec a controller
// sets: the containers and the defaulted pod-level fields.
func templateSpecFields(cs []container) tree {
	containers := tree{}
	for _, c := range cs {
		ct := leaves(true, "image", "imagePullPolicy", "name", "terminationMessagePath", "terminationMessagePolicy")
		res := tree{"f:limits": leaves(true), "f:requests": leaves(true)}
		for r := range c.Resources.Limits {
			res["f:limits"]["f:"+r] = tree{}
		}
		for r := range c.Resources.Requests {
			res["f:requests"]["f:"+r] = tree{}
		}
		ct["f:resources"] = res
		if len(c.Ports) > 0 {
			ports := leaves(true)
			for _, p := range c.Ports {
				ports[k(`{"containerPort":`+strconv.Itoa(p.ContainerPort)+`,"protocol":"TCP"}`)] =
					leaves(true, "containerPort", "protocol")
			}
			ct["f:ports"] = ports
		}
		if len(c.Env) > 0 {
			env := leaves(true)
			for _, e := range c.Env {
				if e.ValueFrom != nil {
					env[k(`{"name":"`+e.Name+`"}`)] = tree{".": {}, "f:name": {},
						"f:valueFrom": tree{".": {}, "f:fieldRef": leaves(false)}}
				} else {
					env[k(`{"name":"`+e.Name+`"}`)] = leaves(true, "name", "value")
				}
			}
			ct["f:env"] = env
		}
		mounts := leaves(true)
		for _, m := range c.VolumeMounts {
			if strings.HasPrefix(m.Name, "kube-api-access-") {
				continue // added by admission, not by the controller
			}
			mounts[k(`{"mountPath":"`+m.MountPath+`"}`)] = leaves(true, "mountPath", "name", "readOnly")
		}
		if len(mounts) > 1 {
			ct["f:volumeMounts"] = mounts
		}
		containers[k(`{"name":"`+c.Name+`"}`)] = ct
	}
	return tree{
		"f:containers": containers,
		"f:dnsPolicy":  {}, "f:enableServiceLinks": {}, "f:restartPolicy": {}, "f:schedulerName": {},
		"f:securityContext": {}, "f:terminationGracePeriodSeconds": {},
	}
}

// kubeletFields is what the kubelet owns through the status subresource.
func kubeletFields(podIP string) json.RawMessage {
	conds := tree{}
	// PodScheduled is the scheduler's (written through pods/binding).
	for _, c := range []string{"ContainersReady", "Initialized", "PodReadyToStartContainers", "Ready"} {
		conds[k(`{"type":"`+c+`"}`)] = leaves(true, "lastProbeTime", "lastTransitionTime", "status", "type")
	}
	t := tree{"f:status": tree{
		"f:conditions": conds, "f:containerStatuses": {}, "f:hostIP": {}, "f:hostIPs": {}, "f:phase": {},
		"f:podIP": {}, "f:podIPs": tree{".": {}, k(`{"ip":"` + podIP + `"}`): leaves(true, "ip")},
		"f:startTime": {},
	}}
	return t.appendTo(make([]byte, 0, 1024))
}
