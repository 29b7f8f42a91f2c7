package difftest

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// rollingPods is the size of EndpointsRollingScenario's Service.
const rollingPods = 100

// rollingPodName is pod i of revision rev ("web-v1-007").
func rollingPodName(rev, i int) string { return fmt.Sprintf("web-v%d-%03d", rev, i) }

// EndpointsRollingScenario replaces the 100 pods behind one Service, one
// pod at a time, as a Deployment with maxSurge 1 and maxUnavailable 0
// does: for each old pod, a new pod is created and becomes Ready, then the
// old one is deleted (it stays terminating, held by a finalizer), then it
// goes. The scenario plays the rollout itself, waiting after each of the
// three steps until the Endpoints (and the slices) show it, so that every
// pod change reaches the controllers alone: with a Deployment, how many
// changes one sync sees depends on timing, and so does the number of
// writes. The writes are then comparable one by one: the phase "rollout"
// records every write of an Endpoints (and slice) with what it changed,
// and each side must make exactly one Endpoints write per change that
// changes the Endpoints: + new pod, − old pod at its deletion; none when
// the old pod finally goes (it had left the Endpoints already).
func EndpointsRollingScenario(withSlices bool) Scenario {
	return Scenario{
		Name:    "endpoints-rolling",
		Record:  endpointResources(withSlices),
		Timeout: 5 * time.Minute,
		Run: func(ctx context.Context, env *Env) error {
			pc := pods(env)
			nodes := EndpointNodes()
			web := func(rev int) map[string]string { return map[string]string{"app": "web", "rev": fmt.Sprint(rev)} }
			ports := []api.ContainerPort{tcpPort("http", 8080)}
			for i := range rollingPods {
				s := podSpec{name: rollingPodName(1, i), node: nodes[i%len(nodes)].Name, labels: web(1), ports: ports, hold: true}
				if _, err := pc.Create(ctx, s.pod()); err != nil {
					return fmt.Errorf("create pod %s: %w", s.name, err)
				}
			}
			if err := env.Observer.WaitFor(ctx, "the first revision's pods running", func(v View) bool {
				for i := range rollingPods {
					if !running(v.Pods[rollingPodName(1, i)]) {
						return false
					}
				}
				return true
			}); err != nil {
				return err
			}
			ew, err := WatchEndpoints(ctx, env.Client, env.Namespace, withSlices)
			if err != nil {
				return err
			}
			defer ew.Stop()
			env.Observer.SetPhase("service")
			svc := &api.Service{ObjectMeta: api.ObjectMeta{Name: "web"}, Spec: api.ServiceSpec{Selector: map[string]string{"app": "web"},
				Ports: []api.ServicePort{servicePort("http", 80, api.IntOrStringFromString("http"))}}}
			if _, err := services(env).Create(ctx, svc); err != nil {
				return err
			}
			step := rollStep{ctx: ctx, env: env, ew: ew, withSlices: withSlices}
			if err := step.wait("the Service's Endpoints with the first revision", func(m map[string]bool, _ map[string]string) bool {
				return len(m) == rollingPods
			}); err != nil {
				return err
			}
			env.Observer.SetPhase("rollout")
			for i := range rollingPods {
				if err := step.replace(pc, i, nodes[i%len(nodes)].Name, web(2), ports); err != nil {
					return err
				}
			}
			return nil
		},
		Check: func(side string, tl Timeline) []Difference {
			return checkRollingWrites(side, tl)
		},
	}
}

// rollStep drives EndpointsRollingScenario's steps.
type rollStep struct {
	ctx        context.Context
	env        *Env
	ew         *EndpointsWatch
	withSlices bool
}

// wait waits until cond holds on the Service's Endpoints members and
// slice members, then moves the writes seen so far into the timeline.
func (s rollStep) wait(what string, cond func(map[string]bool, map[string]string) bool) error {
	ns := s.env.Namespace
	err := s.ew.WaitFor(s.ctx, what, func(v EndpointsView) bool {
		m := v.ServiceMembers(ns, "web")
		if m == nil {
			return false
		}
		var sm map[string]string
		if s.withSlices {
			if sm = v.SliceMembers(ns, "web"); sm == nil {
				return false
			}
		}
		return cond(m, sm)
	})
	if err != nil {
		return err
	}
	s.ew.Flush(s.env.Observer.Record)
	return nil
}

// replace is one step of the rollout: new pod i, Ready; old pod i
// deleted; old pod i gone.
func (s rollStep) replace(pc *rest.Resources[*api.Pod], i int, node string, labels map[string]string, ports []api.ContainerPort) error {
	oldName, newName := rollingPodName(1, i), rollingPodName(2, i)
	if _, err := pc.Create(s.ctx, podSpec{name: newName, node: node, labels: labels, ports: ports}.pod()); err != nil {
		return fmt.Errorf("create pod %s: %w", newName, err)
	}
	if err := s.wait(newName+" ready in the Endpoints", func(m map[string]bool, sm map[string]string) bool {
		_, inSlice := sm[newName]
		return m[newName] && (!s.withSlices || inSlice)
	}); err != nil {
		return err
	}
	if err := pc.Delete(s.ctx, oldName, rest.DeleteOptions{}); err != nil {
		return fmt.Errorf("delete pod %s: %w", oldName, err)
	}
	if err := s.wait(oldName+" out of the Endpoints", func(m map[string]bool, sm map[string]string) bool {
		_, inEndpoints := m[oldName]
		return !inEndpoints && (!s.withSlices || sliceTerminating(sm[oldName]))
	}); err != nil {
		return err
	}
	if err := release(s.ctx, pc, oldName); err != nil {
		return err
	}
	if err := s.env.Observer.WaitFor(s.ctx, oldName+" gone", func(v View) bool { return v.Pods[oldName] == nil }); err != nil {
		return err
	}
	return s.wait(oldName+" out of the slices", func(_ map[string]bool, sm map[string]string) bool {
		_, inSlice := sm[oldName]
		return !inSlice
	})
}

// sliceTerminating: a slice member rendered by sliceMembers is
// terminating.
func sliceTerminating(member string) bool {
	var ready, serving, terminating string
	_, err := fmt.Sscanf(member, "ready=%s serving=%s terminating=%s", &ready, &serving, &terminating)
	return err == nil && terminating == "true"
}

// checkRollingWrites checks one side's rollout writes against Kubernetes'
// rule, one Endpoints write per change of its content: 2 per replaced pod
// (+ new, − old at its deletion), so 2 × rollingPods in all.
func checkRollingWrites(side string, tl Timeline) []Difference {
	n := 0
	for _, st := range tl.States {
		if st.Phase == "rollout" && writeKind(st.State) == "Endpoints" {
			n++
		}
	}
	if n != 2*rollingPods {
		return []Difference{{Key: "timeline: " + side + " Endpoints writes during the rollout",
			Detail: fmt.Sprintf("%d writes, want %d (one per pod added and one per pod deleted)\n", n, 2*rollingPods)}}
	}
	return nil
}

// writeKind is the kind a write line of EndpointsWatch is about
// ("#3 MODIFIED Endpoints web: ...").
func writeKind(line string) string {
	f := strings.Fields(line)
	if len(f) < 3 {
		return ""
	}
	return f[2]
}
