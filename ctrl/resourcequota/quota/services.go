package quota

import (
	"fmt"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/resource"
)

// servicesResource is core/v1 services.
var servicesResource = GroupResource{Resource: "services"}

// serviceNames are the quota names the Service evaluator computes.
var serviceNames = []string{"count/services", "services", "services.nodeports", "services.loadbalancers"}

type serviceEvaluator struct{ svcs ServiceLister }

// NewServiceEvaluator returns the evaluator of Services: the count
// (services, count/services), LoadBalancer Services
// (services.loadbalancers) and node ports (services.nodeports). No scope
// selects Services (Kubernetes' evaluator/core services.go).
func NewServiceEvaluator(svcs ServiceLister) Evaluator { return &serviceEvaluator{svcs: svcs} }

func (s *serviceEvaluator) GroupResource() GroupResource { return servicesResource }

func (s *serviceEvaluator) MatchingResources(names []string) []string {
	return intersection(names, serviceNames)
}

func (s *serviceEvaluator) Usage(obj any) (resource.List, error) {
	svc, ok := obj.(*api.Service)
	if !ok {
		return nil, fmt.Errorf("service evaluator: expected *api.Service, got %T", obj)
	}
	return serviceUsage(svc), nil
}

func (s *serviceEvaluator) UsageStats(opts UsageStatsOptions) (resource.List, error) {
	svcs, err := s.svcs(opts.Namespace)
	if err != nil {
		return nil, listError(servicesResource, err)
	}
	return usageStats(opts, svcs, matchesNoScope[*api.Service], func(svc *api.Service) (resource.List, error) { return serviceUsage(svc), nil })
}

// serviceUsage: every Service counts 1 under services and count/services;
// a NodePort Service one node port per port; a LoadBalancer Service is one
// load balancer and one node port per port — per port that has a node port
// when it opted out of allocating them (allocateLoadBalancerNodePorts
// false).
func serviceUsage(svc *api.Service) resource.List {
	one := resource.NewQuantity(1, resource.DecimalSI)
	u := resource.List{
		"count/services":         one,
		"services":               one,
		"services.loadbalancers": resource.NewQuantity(0, resource.DecimalSI),
		"services.nodeports":     resource.NewQuantity(0, resource.DecimalSI),
	}
	ports := int64(len(svc.Spec.Ports))
	switch svc.Spec.Type {
	case api.ServiceTypeNodePort:
		u["services.nodeports"] = resource.NewQuantity(ports, resource.DecimalSI)
	case api.ServiceTypeLoadBalancer:
		if a := svc.Spec.AllocateLoadBalancerNodePorts; a != nil && !*a {
			n := int64(0)
			for _, p := range svc.Spec.Ports {
				if p.NodePort != 0 {
					n++
				}
			}
			ports = n
		}
		u["services.nodeports"] = resource.NewQuantity(ports, resource.DecimalSI)
		u["services.loadbalancers"] = one
	}
	return u
}
