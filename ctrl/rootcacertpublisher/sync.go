package rootcacertpublisher

import (
	"context"
	"fmt"
	"maps"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// Sync makes the namespace named key hold kube-root-ca.crt with the CA
// (kube-controller-manager's syncNamespace), and counts and times the
// attempt.
func (c *Controller) Sync(ctx context.Context, key string) (ctrl.Result, error) {
	start := c.clock.Now()
	err := c.sync(ctx, key)
	took := c.clock.Since(start)
	c.metrics.observe(err, took)
	c.log.Debug().Str("namespace", key).Dur("took", took).Err(err).Msg("finished syncing namespace")
	return ctrl.Result{}, err
}

func (c *Controller) sync(ctx context.Context, ns string) error {
	want := map[string]string{CAKey: c.rootCA}
	cm, err := c.configMaps.Namespace(ns).Get(ConfigMapName)
	if rest.IsNotFound(err) {
		_, err = c.client.Create(ctx, &api.ConfigMap{
			ObjectMeta: api.ObjectMeta{Name: ConfigMapName, Namespace: ns,
				Annotations: map[string]string{DescriptionAnnotation: Description}},
			Data: want,
		})
		// A namespace that is gone or terminating never takes the
		// ConfigMap: retrying would only fail again.
		if err == nil || rest.IsNotFound(err) || rest.IsNamespaceTerminating(err) {
			return nil
		}
		return fmt.Errorf("creating ConfigMap %s/%s: %w", ns, ConfigMapName, err)
	}
	if err != nil {
		return err
	}
	// Kubernetes' rule: the data must be exactly {ca.crt: CA} and the
	// description annotation present, with any non-empty value.
	if maps.Equal(cm.Data, want) && cm.Annotations[DescriptionAnnotation] != "" {
		return nil
	}
	cp, err := api.DeepCopy(cm) // the cache's object is shared
	if err != nil {
		return err
	}
	cp.Data = want
	if cp.Annotations == nil {
		cp.Annotations = map[string]string{}
	}
	cp.Annotations[DescriptionAnnotation] = Description
	if _, err := c.client.Update(ctx, cp); err != nil {
		return fmt.Errorf("updating ConfigMap %s/%s: %w", ns, ConfigMapName, err)
	}
	return nil
}
