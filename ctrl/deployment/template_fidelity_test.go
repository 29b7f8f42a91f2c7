package deployment

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
)

// The rule these tests check (issue 25): what a user wrote in a pod
// template reaches the ReplicaSet unchanged — empty objects, empty arrays,
// explicit zero values and fields kcm does not model — because Kubernetes
// compares templates as Go values (equality.Semantic.DeepEqual), where a
// container's "securityContext": {} is a non-nil pointer and differs from
// none. kube-controller-manager copies the Go value; kcm copies the JSON.

// emptyObjectsTemplate is a template as the apiserver sends one from a
// `helm create` chart or upstream's e2e framework: an empty pod and
// container securityContext, empty resources, no ports (the chart's
// "ports: []" is written by the apiserver as nothing), an explicit false,
// and fields kcm does not model (affinity, a probe, dnsConfig).
const emptyObjectsTemplate = `{"metadata":{"creationTimestamp":null,"labels":{"app":"web"}},` +
	`"spec":{"securityContext":{},"affinity":{"nodeAffinity":{}},"dnsConfig":{"options":[{"name":"ndots","value":"2"}]},` +
	`"enableServiceLinks":false,"terminationGracePeriodSeconds":30,"restartPolicy":"Always","dnsPolicy":"ClusterFirst",` +
	`"schedulerName":"default-scheduler",` +
	`"containers":[{"name":"c","image":"nginx:1","resources":{},"securityContext":{},"lifecycle":{"preStop":{"sleep":{"seconds":0}}},` +
	`"readinessProbe":{"httpGet":{"path":"/","port":"http","scheme":"HTTP"},"timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3},` +
	`"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"}]}}`

// deploymentJSON is a Deployment named web with template t, as read from
// the apiserver.
func deploymentJSON(t string) string {
	return `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"ns","uid":"uid-web",` +
		`"generation":1,"resourceVersion":"10","creationTimestamp":"2025-06-01T11:00:00Z"},` +
		`"spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},"template":` + t + `,` +
		`"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%","maxUnavailable":"25%"}},` +
		`"revisionHistoryLimit":10,"progressDeadlineSeconds":600},"status":{}}`
}

// replicaSetJSON is a ReplicaSet of web named web-<hash> at revision rev
// with template t (labelled with the hash), as read from the apiserver.
func replicaSetJSON(hash string, rev int, replicas int32, t string) string {
	t = strings.Replace(t, `"labels":{"app":"web"}`, `"labels":{"app":"web","pod-template-hash":"`+hash+`"}`, 1)
	return fmt.Sprintf(`{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"web-%[1]s","namespace":"ns",`+
		`"uid":"uid-web-%[1]s","generation":1,"resourceVersion":"5","creationTimestamp":"2025-06-01T11:30:00Z",`+
		`"labels":{"app":"web","pod-template-hash":"%[1]s"},`+
		`"annotations":{"deployment.kubernetes.io/revision":"%[2]d","deployment.kubernetes.io/desired-replicas":"3","deployment.kubernetes.io/max-replicas":"4"},`+
		`"ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"web","uid":"uid-web","controller":true,"blockOwnerDeletion":true}]},`+
		`"spec":{"replicas":%[3]d,"selector":{"matchLabels":{"app":"web","pod-template-hash":"%[1]s"}},"template":%[4]s},`+
		`"status":{"replicas":%[3]d,"observedGeneration":1}}`, hash, rev, replicas, t)
}

// compactDecode decodes data as the informer caches a typed object.
func compactDecode[S any, P api.TypedPtr[S]](t testing.TB, data string) P {
	t.Helper()
	obj, err := decode.Compact[S, P]().Decode([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

// decodedTemplate returns spec.template of an object's JSON, decoded
// with numbers kept, with the hash label removed.
func decodedTemplate(t *testing.T, raw []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := decodeNumbers(raw, &m); err != nil {
		t.Fatal(err)
	}
	tmpl, _ := m["spec"].(map[string]any)["template"].(map[string]any)
	return withoutHash(tmpl)
}

// sameTemplate fails the test with msg unless the objects got and want
// have the same spec.template, member for member, the hash label aside.
func sameTemplate(t *testing.T, msg string, got []byte, want string) {
	t.Helper()
	g, w := decodedTemplate(t, got), decodedTemplate(t, []byte(want))
	if !reflect.DeepEqual(g, w) {
		gb, _ := json.Marshal(g)
		wb, _ := json.Marshal(w)
		t.Fatalf("%s:\n got %s\nwant %s", msg, gb, wb)
	}
}

// TestNewReplicaSetCopiesTheTemplateAsWritten: the ReplicaSet a sync
// creates carries the Deployment's template member for member — the only
// difference is the pod-template-hash label — so that Kubernetes'
// GetNewReplicaSet (semantic equality of the Go values) finds it as the
// Deployment's new ReplicaSet.
func TestNewReplicaSetCopiesTheTemplateAsWritten(t *testing.T) {
	f := newFixture(t)
	d := compactDecode[api.Deployment](t, deploymentJSON(emptyObjectsTemplate))
	f.deployments = []*api.Deployment{d}
	if _, err := f.run("ns/web"); err != nil {
		t.Fatal(err)
	}
	post, ok := f.find("create replicasets")
	if !ok {
		t.Fatalf("no ReplicaSet created: %q", f.writes())
	}
	sameTemplate(t, "the ReplicaSet's template is not the Deployment's", post.Body, deploymentJSON(emptyObjectsTemplate))
	for _, member := range []string{`"securityContext":{}`, `"resources":{}`, `"nodeAffinity":{}`, `"enableServiceLinks":false`, `"seconds":0`} {
		if !strings.Contains(string(post.Body), member) {
			t.Errorf("%s lost on the way to the ReplicaSet: %s", member, post.Body)
		}
	}
}

// TestTemplatesWithEmptyObjectsMatch: a ReplicaSet with the Deployment's
// template (its hash from kube-controller-manager, not kcm) is the new
// one: no ReplicaSet is created. One whose template lacks the empty
// securityContext — what kcm before issue 25 made — is an old one, and a
// new ReplicaSet is created, as kube-controller-manager does with it.
func TestTemplatesWithEmptyObjectsMatch(t *testing.T) {
	withoutContainerSC := strings.Replace(emptyObjectsTemplate, `"resources":{},"securityContext":{}`, `"resources":{}`, 1)
	if withoutContainerSC == emptyObjectsTemplate {
		t.Fatal("the test's template has no container securityContext to remove")
	}
	for _, tc := range []struct {
		name       string
		rsTemplate string
		wantCreate bool
	}{
		{"same template", emptyObjectsTemplate, false},
		{"container securityContext dropped", withoutContainerSC, true},
		{"pod securityContext dropped", strings.Replace(emptyObjectsTemplate, `"securityContext":{},"affinity"`, `"affinity"`, 1), true},
		{"unmodelled field dropped", strings.Replace(emptyObjectsTemplate, `"affinity":{"nodeAffinity":{}},`, ``, 1), true},
		{"empty unmodelled object dropped", strings.Replace(emptyObjectsTemplate, `{"nodeAffinity":{}}`, `{}`, 1), true},
		{"explicit zero dropped", strings.Replace(emptyObjectsTemplate, `{"sleep":{"seconds":0}}`, `{"sleep":{}}`, 1), true},
		{"an empty array and nulls added", strings.Replace(emptyObjectsTemplate, `"resources":{}`, `"resources":{},"ports":[],"env":null`, 1), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			d := compactDecode[api.Deployment](t, deploymentJSON(emptyObjectsTemplate))
			d.Annotations = map[string]string{RevisionAnnotation: "1"}
			f.deployments = []*api.Deployment{d}
			f.replicaSets = []*api.ReplicaSet{compactDecode[api.ReplicaSet](t, replicaSetJSON("5d8f9c7b6", 1, 3, tc.rsTemplate))}
			if _, err := f.run("ns/web"); err != nil {
				t.Fatal(err)
			}
			_, created := f.find("create replicasets")
			if created != tc.wantCreate {
				t.Errorf("ReplicaSet created: %v, want %v (writes %q)", created, tc.wantCreate, f.writes())
			}
		})
	}
}

// TestRollbackRestoresTheTemplateAsWritten: rolling back to a revision
// writes that ReplicaSet's template into the Deployment member for member
// but the hash label (rollbackToTemplate copies the Go value).
func TestRollbackRestoresTheTemplateAsWritten(t *testing.T) {
	f := newFixture(t)
	current := strings.Replace(emptyObjectsTemplate, `"nginx:1"`, `"nginx:2"`, 1)
	d := compactDecode[api.Deployment](t, strings.Replace(deploymentJSON(current), `"generation":1,`,
		`"generation":1,"annotations":{"deployment.kubernetes.io/revision":"2","deprecated.deployment.rollback.to":"1"},`, 1))
	f.deployments = []*api.Deployment{d}
	f.replicaSets = []*api.ReplicaSet{
		compactDecode[api.ReplicaSet](t, replicaSetJSON("one", 1, 0, emptyObjectsTemplate)),
		compactDecode[api.ReplicaSet](t, strings.Replace(replicaSetJSON("two", 2, 3, current), `"revision":"1"`, `"revision":"2"`, 1)),
	}
	if _, err := f.run("ns/web"); err != nil {
		t.Fatal(err)
	}
	put, ok := f.find("update deployments ns/web")
	if !ok {
		t.Fatalf("no rollback written: %q", f.writes())
	}
	sameTemplate(t, "the rolled-back template is not revision 1's", put.Body, deploymentJSON(emptyObjectsTemplate))
}
