package testenv

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// etcdServer is a single-member etcd on loopback ports.
type etcdServer struct {
	proc      *process
	clientURL string // http://127.0.0.1:<port>
	http      *http.Client
}

// startEtcd starts etcd with its data in dir/etcd-data and its log in
// dir/etcd.log, and waits until it reports healthy.
func startEtcd(ctx context.Context, bin, dir string, hc *http.Client) (*etcdServer, error) {
	dataDir := filepath.Join(dir, "etcd-data")
	if err := os.RemoveAll(dataDir); err != nil { // left by an attempt that lost its port
		return nil, err
	}
	ports, err := freePorts(2)
	if err != nil {
		return nil, err
	}
	client := fmt.Sprintf("http://127.0.0.1:%d", ports[0])
	peer := fmt.Sprintf("http://127.0.0.1:%d", ports[1])
	args := []string{
		"--name=testenv",
		"--data-dir=" + dataDir,
		"--listen-client-urls=" + client,
		"--advertise-client-urls=" + client,
		"--listen-peer-urls=" + peer,
		"--initial-advertise-peer-urls=" + peer,
		"--initial-cluster=testenv=" + peer,
		"--initial-cluster-state=new",
		// Tests throw the data away; skipping fsync makes writes much cheaper.
		"--unsafe-no-fsync",
		"--log-level=warn",
	}
	proc, err := startProcess("etcd", bin, args, filepath.Join(dir, "etcd.log"))
	if err != nil {
		return nil, err
	}
	e := &etcdServer{proc: proc, clientURL: client, http: hc}
	if err := waitReady(ctx, proc, e.healthy); err != nil {
		proc.stop(stopGrace)
		return nil, err
	}
	return e, nil
}

// healthy asks etcd's /health endpoint.
func (e *etcdServer) healthy(ctx context.Context) error {
	var h struct {
		Health string `json:"health"`
		Reason string `json:"reason"`
	}
	if err := e.call(ctx, http.MethodGet, "/health", nil, &h); err != nil {
		return err
	}
	if h.Health != "true" {
		return fmt.Errorf("etcd /health: %q %s", h.Health, h.Reason)
	}
	return nil
}

// revision reads the store's current revision from the header of a range
// request on an arbitrary key.
func (e *etcdServer) revision(ctx context.Context) (int64, error) {
	var resp struct {
		Header struct {
			Revision string `json:"revision"`
		} `json:"header"`
	}
	key := base64.StdEncoding.EncodeToString([]byte("/kcm-testenv/revision-probe"))
	if err := e.call(ctx, http.MethodPost, "/v3/kv/range", map[string]any{"key": key}, &resp); err != nil {
		return 0, err
	}
	rev, err := strconv.ParseInt(resp.Header.Revision, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("etcd range: bad revision %q: %w", resp.Header.Revision, err)
	}
	return rev, nil
}

// compact compacts the key-value history up to and including rev,
// physically (the call returns once the old revisions are gone). Compacting
// at a revision that is already compacted is not an error.
func (e *etcdServer) compact(ctx context.Context, rev int64) error {
	body := map[string]any{"revision": strconv.FormatInt(rev, 10), "physical": true}
	err := e.call(ctx, http.MethodPost, "/v3/kv/compaction", body, nil)
	var ge *gatewayError
	if errors.As(err, &ge) && strings.Contains(ge.Message, "required revision has been compacted") {
		return nil
	}
	return err
}

// gatewayError is an error answer of etcd's JSON gateway.
type gatewayError struct {
	Status  int
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *gatewayError) Error() string {
	return fmt.Sprintf("etcd: HTTP %d, code %d: %s", e.Status, e.Code, e.Message)
}

// call sends one request to etcd's JSON gateway and decodes the answer.
func (e *etcdServer) call(ctx context.Context, method, path string, in, out any) error {
	req, err := newJSONRequest(ctx, method, e.clientURL+path, in)
	if err != nil {
		return err
	}
	resp, err := e.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		ge := &gatewayError{Status: resp.StatusCode}
		if json.Unmarshal(data, ge) != nil || ge.Message == "" {
			ge.Message = strings.TrimSpace(string(data))
		}
		return ge
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("etcd %s: decode answer: %w", path, err)
	}
	return nil
}
