package testenv

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"testing"
)

// watchEvent is one frame of a watch stream.
type watchEvent struct {
	Type   string `json:"type"`
	Object struct {
		Kind     string `json:"kind"`
		Code     int    `json:"code"`
		Reason   string `json:"reason"`
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	} `json:"object"`
}

// firstWatchEvent opens a watch on path and returns the HTTP status and,
// for a 200, the first event of the stream.
func firstWatchEvent(ctx context.Context, t *testing.T, c *Cluster, path string) (int, watchEvent) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.host+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := c.client.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ev watchEvent
	if resp.StatusCode == http.StatusOK {
		if err := json.NewDecoder(resp.Body).Decode(&ev); err != nil {
			t.Fatalf("watch %s: first event: %v", path, err)
		}
	}
	return resp.StatusCode, ev
}

// createNamed creates n objects of a namespaced core resource and returns
// their resourceVersions.
func createNamed(ctx context.Context, t *testing.T, c *Cluster, ns, resource string, n int) []int64 {
	t.Helper()
	var rvs []int64
	for i := range n {
		obj := map[string]any{"metadata": map[string]any{"name": fmt.Sprintf("obj-%d", i)}}
		var created watchEvent
		if err := c.client.do(ctx, http.MethodPost, "/api/v1/namespaces/"+ns+"/"+resource, obj, &created.Object); err != nil {
			t.Fatal(err)
		}
		rv, err := strconv.ParseInt(created.Object.Metadata.ResourceVersion, 10, 64)
		if err != nil {
			t.Fatalf("resourceVersion %q: %v", created.Object.Metadata.ResourceVersion, err)
		}
		rvs = append(rvs, rv)
	}
	return rvs
}

// TestCompactionExpiresUncachedWatch checks the API rule that a watch from
// a resourceVersion the storage no longer has fails with 410 Gone (reason
// Expired), and that testenv's uncached resource lets a test trigger it:
// after CompactEtcd, a configmaps watch from an older version is answered
// with an ERROR event carrying code 410.
func TestCompactionExpiresUncachedWatch(t *testing.T) {
	c := Shared(t)
	ctx := testContext(t)
	ns := c.Namespace(t)
	cms := createNamed(ctx, t, c, ns, UncachedResource, 3)
	secrets := createNamed(ctx, t, c, ns, "secrets", 3)

	rev, err := c.CompactEtcd(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if last := secrets[len(secrets)-1]; rev < last {
		t.Fatalf("compacted at %d, before the last write %d", rev, last)
	}
	// Compacting again at the same revision is not an error.
	if again, err := c.CompactEtcd(ctx); err != nil || again < rev {
		t.Fatalf("second CompactEtcd = %d, %v", again, err)
	}

	// A watch "from N" starts at N+1; cms[0]+1 < rev, so it is compacted.
	path := fmt.Sprintf("/api/v1/namespaces/%s/%s?watch=1&timeoutSeconds=10&resourceVersion=%d", ns, UncachedResource, cms[0])
	status, ev := firstWatchEvent(ctx, t, c, path)
	gone := status == http.StatusGone || (ev.Type == "ERROR" && ev.Object.Code == http.StatusGone)
	if !gone {
		t.Fatalf("watch %s from compacted RV %d: HTTP %d, first event %+v; want 410", UncachedResource, cms[0], status, ev)
	}
	if status == http.StatusOK && ev.Object.Reason != "Expired" {
		t.Errorf("ERROR event reason %q, want Expired", ev.Object.Reason)
	}

	// Control: the cached resource hides the compaction and replays the
	// events after the requested version, which is why the uncached
	// resource exists.
	path = fmt.Sprintf("/api/v1/namespaces/%s/secrets?watch=1&timeoutSeconds=10&resourceVersion=%d", ns, secrets[0])
	status, ev = firstWatchEvent(ctx, t, c, path)
	if status != http.StatusOK || ev.Type != "ADDED" || ev.Object.Metadata.ResourceVersion != strconv.FormatInt(secrets[1], 10) {
		t.Errorf("cached secrets watch from %d: HTTP %d, first event %+v; want ADDED at %d", secrets[0], status, ev, secrets[1])
	}
}
