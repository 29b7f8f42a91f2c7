package difftest

import (
	"strings"
	"testing"
)

// stsPod is a pod of StatefulSet web as kube-apiserver returns it: named
// by the controller although it carries generateName, two claim volumes in
// the order one run of Kubernetes' map iteration gave, a template volume
// after them, and kwok's pod IP.
func stsPod(name, ip string, claimOrder ...string) string {
	var vols []string
	for _, c := range claimOrder {
		vols = append(vols, `{"name":"`+c+`","persistentVolumeClaim":{"claimName":"`+c+`-`+name+`"}}`)
	}
	vols = append(vols, `{"name":"config","configMap":{"name":"cfg"}}`)
	return `{"kind":"Pod","metadata":{"name":"` + name + `","generateName":"web-","namespace":"ns",` +
		`"ownerReferences":[{"kind":"StatefulSet","name":"web","uid":"u1","controller":true}]},` +
		`"spec":{"volumes":[` + strings.Join(vols, ",") + `]},` +
		`"status":{"podIP":"` + ip + `","podIPs":[{"ip":"` + ip + `"}],"containerStatuses":[{"state":{"running":{"startedAt":"2026-12-06T12:00:0` + ip[len(ip)-1:] + `Z"}}}]}}`
}

// TestNormalizeStatefulSetPod: a StatefulSet's pod keeps its name; its IPs,
// its containers' start times and the order of its claim volumes (random
// in Kubernetes) are normalised, and a template volume keeps its place.
// A pod no StatefulSet controls keeps its volume order.
func TestNormalizeStatefulSetPod(t *testing.T) {
	a, err := Normalize(mustObjects(t, stsPod("web-0", "10.244.1.7", "logs", "data")))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Normalize(mustObjects(t, stsPod("web-0", "10.244.1.9", "data", "logs")))
	if err != nil {
		t.Fatal(err)
	}
	text, ok := a["Pod ns/web-0"]
	if !ok {
		t.Fatalf("keys %v, want Pod ns/web-0 (the controller's name kept)", a.Keys())
	}
	if d := DiffSnapshots(a, b, nil); len(d) != 0 {
		t.Errorf("the same pod with other IPs and claim order differs:\n%s", Report("A", "B", d))
	}
	data, logs, config := strings.Index(text, "name: data"), strings.Index(text, "name: logs"), strings.Index(text, "name: config")
	if !(data >= 0 && data < logs && logs < config) || !strings.Contains(text, "<ip:pod web-0>") {
		t.Errorf("want volumes data, logs, config and the IP as <ip:pod web-0>:\n%s", text)
	}

	free := strings.Replace(stsPod("web-0", "10.244.1.7", "logs", "data"), `"controller":true`, `"controller":false`, 1)
	c, err := Normalize(mustObjects(t, free))
	if err != nil {
		t.Fatal(err)
	}
	if got := c["Pod ns/web-0"]; strings.Index(got, "name: logs") > strings.Index(got, "name: data") {
		t.Errorf("a pod no StatefulSet controls had its volumes sorted:\n%s", got)
	}
}

// TestSortClaimRuns: runs of steps on one pod's claims with one verb are
// sorted (the order among a pod's claims is Go map order in Kubernetes);
// every other step keeps its place, and runs do not merge across another
// step or pod; a claim deletion goes after its pod's deletion
// (claimDeletionsAfterPods).
func TestSortClaimRuns(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"create claim logs-web-1|create claim data-web-1|create pod web-1", "create claim data-web-1|create claim logs-web-1|create pod web-1"},
		{"delete pod web-2|delete claim logs-web-2|delete claim data-web-2|delete pod web-1",
			"delete pod web-2|delete claim data-web-2|delete claim logs-web-2|delete pod web-1"},
		{"reown claim b-web-1: []|create claim a-web-1 owners []", "reown claim b-web-1: []|create claim a-web-1 owners []"},
		{"reown claim logs-web-2: [Pod/web-2]|reown claim data-web-2: [Pod/web-2]|reown claim logs-web-1: [Pod/web-1]|reown claim data-web-1: [Pod/web-1]",
			"reown claim data-web-2: [Pod/web-2]|reown claim logs-web-2: [Pod/web-2]|reown claim data-web-1: [Pod/web-1]|reown claim logs-web-1: [Pod/web-1]"},
		{"create pod web-1|create pod web-0", "create pod web-1|create pod web-0"},
		{"create pod web-0|ready pod web-0|reown claim d-web-0: [StatefulSet/web]|create pod web-1",
			"create pod web-0|reown claim d-web-0: [StatefulSet/web]|ready pod web-0|create pod web-1"},
		{"ready pod web-0|create pod web-1|reown claim d-web-0: []", "ready pod web-0|create pod web-1|reown claim d-web-0: []"},
		// The garbage collector's claim deletions go after their pod's
		// deletion; one before its pod, or after the pod came back,
		// stays.
		{"delete pod web-3|delete pod web-2|delete claim logs-web-3|delete claim data-web-3|delete claim data-web-2|delete claim logs-web-2",
			"delete pod web-3|delete claim data-web-3|delete claim logs-web-3|delete pod web-2|delete claim data-web-2|delete claim logs-web-2"},
		{"delete pod web-3|delete pod web-2|delete claim data-web-2|delete claim data-web-3",
			"delete pod web-3|delete claim data-web-3|delete pod web-2|delete claim data-web-2"},
		{"delete claim data-web-3|delete pod web-3|delete pod web-2", "delete claim data-web-3|delete pod web-3|delete pod web-2"},
		{"delete pod web-1|create pod web-1 rev r|delete pod web-0|delete claim data-web-1",
			"delete pod web-1|create pod web-1 rev r|delete pod web-0|delete claim data-web-1"},
	} {
		lines := strings.Split(tc.in, "|")
		sortClaimRuns(lines)
		if got := strings.Join(lines, "|"); got != tc.want {
			t.Errorf("sortClaimRuns(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
