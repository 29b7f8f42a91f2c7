package api_test

import (
	"strings"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/labels"
)

// apiDeploymentJSON is a Deployment as kube-apiserver 1.34 returns it after
// defaulting, mid-rollout, with managedFields.
const apiDeploymentJSON = `{
  "kind": "Deployment", "apiVersion": "apps/v1",
  "metadata": {
    "name": "web", "namespace": "default", "uid": "9a8b7c6d-0000-4000-8000-000000000001",
    "resourceVersion": "48250", "generation": 3, "creationTimestamp": "2025-09-01T09:00:00Z",
    "labels": {"app": "web"},
    "annotations": {"deployment.kubernetes.io/revision": "2"},
    "managedFields": [{"manager": "kubectl-client-side-apply", "operation": "Update", "apiVersion": "apps/v1",
      "time": "2025-09-01T09:00:00Z", "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:replicas": {}}}}]
  },
  "spec": {
    "replicas": 3,
    "selector": {"matchLabels": {"app": "web"}},
    "template": {
      "metadata": {"creationTimestamp": null, "labels": {"app": "web"}},
      "spec": {
        "containers": [{"name": "web", "image": "registry.example.com/web:1.4.2",
          "ports": [{"containerPort": 8080, "protocol": "TCP"}],
          "resources": {}, "terminationMessagePath": "/dev/termination-log",
          "terminationMessagePolicy": "File", "imagePullPolicy": "IfNotPresent"}],
        "restartPolicy": "Always", "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst",
        "securityContext": {}, "schedulerName": "default-scheduler"
      }
    },
    "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0, "maxSurge": "25%"}},
    "minReadySeconds": 5,
    "revisionHistoryLimit": 10,
    "progressDeadlineSeconds": 600
  },
  "status": {
    "observedGeneration": 3, "replicas": 4, "updatedReplicas": 2, "readyReplicas": 3, "availableReplicas": 3,
    "unavailableReplicas": 1, "terminatingReplicas": 0,
    "conditions": [
      {"type": "Available", "status": "True", "lastUpdateTime": "2025-09-01T09:00:20Z",
       "lastTransitionTime": "2025-09-01T09:00:20Z", "reason": "MinimumReplicasAvailable",
       "message": "Deployment has minimum availability."},
      {"type": "Progressing", "status": "True", "lastUpdateTime": "2025-09-01T10:00:07Z",
       "lastTransitionTime": "2025-09-01T09:00:00Z", "reason": "ReplicaSetUpdated",
       "message": "ReplicaSet \"web-7c5b4f8d9\" is progressing."}
    ],
    "collisionCount": 1
  }
}`

func TestDeploymentDecodesApiserverJSON(t *testing.T) {
	for _, c := range apiCodecs {
		d, out := apiRoundTrip[api.Deployment](t, c, apiDeploymentJSON)
		s := d.Spec
		if *s.Replicas != 3 || *s.RevisionHistoryLimit != 10 || *s.ProgressDeadlineSeconds != 600 || s.MinReadySeconds != 5 || s.Paused {
			t.Errorf("%s: spec = %+v", c.name, s)
		}
		if s.Selector == nil || s.Selector.MatchLabels["app"] != "web" || s.Template.Labels["app"] != "web" {
			t.Errorf("%s: selector/template = %+v %+v", c.name, s.Selector, s.Template.ObjectMeta)
		}
		ru := s.Strategy.RollingUpdate
		if s.Strategy.Type != api.RollingUpdateDeploymentStrategyType || ru == nil || ru.MaxSurge.String() != "25%" || ru.MaxUnavailable.IntValue() != 0 {
			t.Errorf("%s: strategy = %+v", c.name, s.Strategy)
		}
		st := d.Status
		if st.UnavailableReplicas != 1 || st.TerminatingReplicas == nil || *st.TerminatingReplicas != 0 || *st.CollisionCount != 1 {
			t.Errorf("%s: status = %+v", c.name, st)
		}
		prog := api.GetDeploymentCondition(&d.Status, api.DeploymentProgressing)
		if prog == nil || prog.Reason != "ReplicaSetUpdated" || !prog.LastUpdateTime.After(prog.LastTransitionTime.Time) {
			t.Errorf("%s: Progressing = %+v", c.name, prog)
		}
		if api.GetDeploymentCondition(&d.Status, api.DeploymentReplicaFailure) != nil {
			t.Errorf("%s: absent condition found", c.name)
		}
		wrong, dropped := apiDiffPaths(t, apiDeploymentJSON, out)
		apiMustEqualPaths(t, c.name+": wrong", wrong, nil)
		apiMustEqualPaths(t, c.name+": dropped", dropped, []string{
			".metadata.managedFields",
			".spec.template.spec.securityContext",
		})
	}
}

func TestReplicasNilVersusZero(t *testing.T) {
	// spec.replicas is optional: absent means "default to 1", 0 means
	// "scale to zero". The two must survive a round trip distinctly.
	zero, three := int32(0), int32(3)
	tests := []struct {
		name     string
		replicas *int32
		want     string
	}{
		{"nil", nil, `"spec":{"selector":null,`},
		{"zero", &zero, `"spec":{"replicas":0,"selector":null,`},
		{"three", &three, `"spec":{"replicas":3,"selector":null,`},
	}
	for _, c := range apiCodecs {
		for _, tt := range tests {
			d := api.Deployment{Spec: api.DeploymentSpec{Replicas: tt.replicas}}
			out, err := c.marshal(&d)
			if err != nil || !strings.Contains(string(out), tt.want) {
				t.Errorf("%s %s: encoded %s, %v; want it to contain %s", c.name, tt.name, out, err, tt.want)
			}
			var back api.Deployment
			if err := c.unmarshal(out, &back); err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.replicas == nil && back.Spec.Replicas != nil:
				t.Errorf("%s %s: decoded replicas %d, want nil", c.name, tt.name, *back.Spec.Replicas)
			case tt.replicas != nil && (back.Spec.Replicas == nil || *back.Spec.Replicas != *tt.replicas):
				t.Errorf("%s %s: decoded replicas %v", c.name, tt.name, back.Spec.Replicas)
			}

			rs := api.ReplicaSet{Spec: api.ReplicaSetSpec{Replicas: tt.replicas}}
			out, err = c.marshal(&rs)
			if err != nil || !strings.Contains(string(out), tt.want) {
				t.Errorf("%s %s: ReplicaSet encoded %s, %v; want it to contain %s", c.name, tt.name, out, err, tt.want)
			}
		}
	}
}

func TestReplicaSetDecodesApiserverJSON(t *testing.T) {
	const in = `{"kind":"ReplicaSet","apiVersion":"apps/v1","metadata":{"name":"web-7c5b4f8d9","namespace":"default",
	"uid":"0d9b1e6a-77c2-4e0b-8f4e-5a6c2d1b3e47","resourceVersion":"48240","generation":2,"creationTimestamp":"2025-09-01T10:00:00Z",
	"labels":{"app":"web","pod-template-hash":"7c5b4f8d9"},
	"annotations":{"deployment.kubernetes.io/desired-replicas":"3","deployment.kubernetes.io/max-replicas":"4","deployment.kubernetes.io/revision":"2"},
	"ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"web","uid":"9a8b","controller":true,"blockOwnerDeletion":true}]},
	"spec":{"replicas":2,"minReadySeconds":5,"selector":{"matchLabels":{"app":"web","pod-template-hash":"7c5b4f8d9"}},
	"template":{"metadata":{"creationTimestamp":null,"labels":{"app":"web","pod-template-hash":"7c5b4f8d9"}},
	"spec":{"containers":[{"name":"web","image":"registry.example.com/web:1.4.2","resources":{}}]}}},
	"status":{"replicas":2,"fullyLabeledReplicas":2,"readyReplicas":1,"availableReplicas":1,"terminatingReplicas":0,"observedGeneration":2,
	"conditions":[{"type":"ReplicaFailure","status":"True","lastTransitionTime":"2025-09-01T10:00:01Z","reason":"FailedCreate","message":"quota"}]}}`
	for _, c := range apiCodecs {
		rs, out := apiRoundTrip[api.ReplicaSet](t, c, in)
		if *rs.Spec.Replicas != 2 || rs.Status.FullyLabeledReplicas != 2 || rs.Status.Conditions[0].Type != api.ReplicaSetReplicaFailure {
			t.Errorf("%s: %+v", c.name, rs)
		}
		sel, err := labels.LabelSelectorAsSelector(rs.Spec.Selector)
		if err != nil || !sel.Matches(rs.Spec.Template.Labels) {
			t.Errorf("%s: selector %v (%v) should match the template labels", c.name, sel, err)
		}
		wrong, dropped := apiDiffPaths(t, in, out)
		apiMustEqualPaths(t, c.name+": wrong", wrong, nil)
		apiMustEqualPaths(t, c.name+": dropped", dropped, nil)
	}
	// status.replicas is required on the wire (no omitempty), as upstream.
	for _, c := range apiCodecs {
		out, _ := c.marshal(&api.ReplicaSetStatus{})
		if string(out) != `{"replicas":0}` {
			t.Errorf("%s: empty status = %s", c.name, out)
		}
	}
}
