package api_test

import (
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

// TestResourceQuotaJSON: a ResourceQuota as kube-apiserver serves it, with
// scopes, a scopeSelector and a status, decodes into the modelled fields and
// encodes back with no field wrong or dropped (core/v1 ResourceQuota).
func TestResourceQuotaJSON(t *testing.T) {
	const rq = `{"kind":"ResourceQuota","apiVersion":"v1","metadata":{"name":"q","namespace":"team-a","uid":"q1",
	"resourceVersion":"9","creationTimestamp":"2025-09-01T08:00:01Z"},
	"spec":{"hard":{"pods":"10","requests.cpu":"2","limits.memory":"1Gi","count/deployments.apps":"3"},
	"scopes":["NotTerminating","NotBestEffort"],
	"scopeSelector":{"matchExpressions":[{"scopeName":"PriorityClass","operator":"In","values":["high","low"]},
	{"scopeName":"CrossNamespacePodAffinity","operator":"Exists"}]}},
	"status":{"hard":{"pods":"10","requests.cpu":"2","limits.memory":"1Gi","count/deployments.apps":"3"},
	"used":{"pods":"1","requests.cpu":"500m","limits.memory":"512Mi","count/deployments.apps":"0"}}}`
	for _, c := range apiCodecs {
		q, out := apiRoundTrip[api.ResourceQuota](t, c, rq)
		sel := q.Spec.ScopeSelector
		if q.Spec.Hard["requests.cpu"] != "2" || len(q.Spec.Scopes) != 2 || q.Spec.Scopes[1] != api.ResourceQuotaScopeNotBestEffort ||
			sel == nil || len(sel.MatchExpressions) != 2 || sel.MatchExpressions[0].Operator != api.ScopeSelectorOpIn ||
			sel.MatchExpressions[0].Values[1] != "low" || sel.MatchExpressions[1].ScopeName != api.ResourceQuotaScopeCrossNamespacePodAffinity ||
			q.Status.Used["requests.cpu"] != "500m" || q.Status.Hard["pods"] != "10" {
			t.Errorf("%s: %+v", c.name, q)
		}
		wrong, dropped := apiDiffPaths(t, rq, out)
		apiMustEqualPaths(t, c.name+": quota wrong", wrong, nil)
		apiMustEqualPaths(t, c.name+": quota dropped", dropped, nil)
	}
}
