package testenv

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// While a node's heartbeat is paused its Lease is held by pausedHolder; the
// holder kwok had is kept in the Lease's annotation pausedHolderAnnotation
// and given back by ResumeHeartbeat.
const (
	pausedHolder           = "kcm-testenv-paused"
	pausedHolderAnnotation = "testenv.kcm.local/paused-holder"
)

// PauseHeartbeat makes the node look like one whose kubelet died: its
// Lease in kube-node-lease stops being renewed and its status (the Ready
// condition and its lastHeartbeatTime among it) stops being written, until
// ResumeHeartbeat. Its pods stay as they are: kwok neither updates nor
// deletes them meanwhile. Nothing else changes: a node lifecycle
// controller sees the Lease's renewTime go stale, as with a real node.
//
// Two steps make it so:
//
//  1. The node gets the label HeartbeatPausedLabel=paused. kwok watches
//     nodes through a label selector that excludes it, so kube-apiserver
//     tells kwok the node was deleted: kwok stops renewing the Lease and
//     cancels the node's pending stages (the status heartbeat among them).
//  2. The Lease's holderIdentity becomes "kcm-testenv-paused" (kwok's is
//     kept in an annotation), and renewTime becomes now: this update is the
//     node's last renewal, as if its kubelet died right after one. kwok
//     renews only a Lease it holds, and its writes are conditional on the
//     resourceVersion it read, so from the moment this update succeeds no
//     renewal can land, even one kwok had started before it saw the label.
//
// Why renewTime moves: kube-controller-manager's node lifecycle controller
// records a Lease only when its renewTime moves forward, and before it
// declares a node Unknown it re-reads the Lease live and spares the node if
// the resourceVersion differs from the one it recorded (the
// NodeControllerLeaseCircuitBreaker rule, on by default in 1.37). A fence
// that changed the holder alone would change the resourceVersion unseen,
// and a watching controller would never mark the node Unknown; a real dead
// kubelet leaves its Lease untouched. Making the fence a renewal keeps the
// two equivalent: the grace period runs from the fence.
//
// When PauseHeartbeat returns, the Lease's renewTime is final until
// ResumeHeartbeat. It is idempotent.
func (c *Cluster) PauseHeartbeat(ctx context.Context, node string) error {
	if err := c.checkRunning(); err != nil {
		return err
	}
	label := map[string]any{"metadata": map[string]any{"labels": map[string]any{HeartbeatPausedLabel: heartbeatPausedValue}}}
	if err := c.client.mergePatch(ctx, nodePath(node), label, nil); err != nil {
		return fmt.Errorf("testenv: pause node %s: label: %w", node, err)
	}
	if err := c.fenceLease(ctx, node); err != nil {
		return fmt.Errorf("testenv: pause node %s: take its lease: %w", node, err)
	}
	c.log.Info().Str("node", node).Msg("heartbeat paused")
	return nil
}

// ResumeHeartbeat undoes PauseHeartbeat: it gives the Lease back to kwok,
// removes the label, and returns once kwok has renewed the Lease again and
// the node is Ready (kwok makes a node Ready again if a node lifecycle
// controller marked it Unknown meanwhile). For a node that is not paused
// it returns at once.
func (c *Cluster) ResumeHeartbeat(ctx context.Context, node string) error {
	if err := c.checkRunning(); err != nil {
		return err
	}
	n, err := c.getNode(ctx, node)
	if err != nil {
		return fmt.Errorf("testenv: resume node %s: %w", node, err)
	}
	var before string
	fenced := false
	err = c.updateLease(ctx, node, func(spec, annotations map[string]any) bool {
		if rt, ok := spec["renewTime"].(string); ok {
			before = rt
		}
		holder, ok := annotations[pausedHolderAnnotation].(string)
		if !ok {
			return false
		}
		fenced = true
		delete(annotations, pausedHolderAnnotation)
		if holder == "" {
			delete(spec, "holderIdentity")
		} else {
			spec["holderIdentity"] = holder
		}
		return true
	})
	if err != nil {
		return fmt.Errorf("testenv: resume node %s: give its lease back: %w", node, err)
	}
	if _, labelled := n.Metadata.Labels[HeartbeatPausedLabel]; !labelled && !fenced {
		return nil
	}
	unlabel := map[string]any{"metadata": map[string]any{"labels": map[string]any{HeartbeatPausedLabel: nil}}}
	if err := c.client.mergePatch(ctx, nodePath(node), unlabel, nil); err != nil {
		return fmt.Errorf("testenv: resume node %s: remove the label: %w", node, err)
	}
	rctx, cancel := c.readyContext(ctx)
	defer cancel()
	began := time.Now()
	err = c.poll(rctx, func(ctx context.Context) error {
		l, err := c.getLease(ctx, node)
		if err != nil {
			return err
		}
		if rt := l.renewTime(); rt == before {
			return fmt.Errorf("lease still renewed at %s", rt)
		}
		n, err := c.getNode(ctx, node)
		if err != nil {
			return err
		}
		if r := n.ready(); r != "True" {
			return fmt.Errorf("Ready is %q", r)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("testenv: resume node %s: %w", node, c.withKwokLog(err))
	}
	c.log.Info().Str("node", node).Dur("took", time.Since(began)).Msg("heartbeat resumed")
	return nil
}

// fenceLease makes pausedHolder the holder of the node's Lease, keeping
// kwok's in pausedHolderAnnotation, and renews it one last time (renewTime
// now; see PauseHeartbeat for why).
func (c *Cluster) fenceLease(ctx context.Context, node string) error {
	return c.updateLease(ctx, node, func(spec, annotations map[string]any) bool {
		holder, _ := spec["holderIdentity"].(string)
		if holder == pausedHolder {
			return false
		}
		annotations[pausedHolderAnnotation] = holder
		spec["holderIdentity"] = pausedHolder
		spec["renewTime"] = time.Now().UTC().Format(leaseMicroTime)
		return true
	})
}

// leaseMicroTime is the layout of a Lease's renewTime (metav1.MicroTime).
const leaseMicroTime = "2006-01-02T15:04:05.000000Z07:00"

// checkRunning returns ErrStopped after Stop.
func (c *Cluster) checkRunning() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return ErrStopped
	}
	return nil
}

// updateLease reads the node's Lease, lets change edit its spec and
// annotations, and writes it back if change says so. The write carries the
// resourceVersion read; on a conflict (kwok renewed in between) it starts
// over. A node without a Lease is left alone.
func (c *Cluster) updateLease(ctx context.Context, node string, change func(spec, annotations map[string]any) bool) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		var lease map[string]any
		err := c.client.do(ctx, http.MethodGet, leasePath(node), nil, &lease)
		var se *StatusError
		if errors.As(err, &se) && se.Code == http.StatusNotFound {
			return nil
		}
		if err != nil {
			return err
		}
		meta, _ := lease["metadata"].(map[string]any)
		spec, _ := lease["spec"].(map[string]any)
		if meta == nil || spec == nil {
			return fmt.Errorf("lease %s has no metadata or spec", node)
		}
		annotations, _ := meta["annotations"].(map[string]any)
		if annotations == nil {
			annotations = map[string]any{}
		}
		if !change(spec, annotations) {
			return nil
		}
		meta["annotations"] = annotations
		err = c.client.do(ctx, http.MethodPut, leasePath(node), lease, nil)
		if errors.As(err, &se) && se.Code == http.StatusConflict {
			continue
		}
		return err
	}
}
