package testenv

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Audit: Options.AuditWrites has kube-apiserver write an audit log of
// every write request, and AuditEvents reads it back, so that a test can
// say who wrote what — which identity, through which client (User-Agent),
// with which answer. The differential tests use it to check that each
// controller writes as its own ServiceAccount under
// --use-service-account-credentials.

// auditPolicyName and auditLogName are the audit policy and log, in the
// cluster's directory.
const (
	auditPolicyName = "audit-policy.yaml"
	auditLogName    = "audit.log"
)

// writeAuditPolicy records the metadata of every write (who, what, the
// answer's code) once its response is complete, and nothing of reads.
const writeAuditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived, ResponseStarted]
rules:
  - level: Metadata
    verbs: [create, update, patch, delete, deletecollection]
  - level: None
`

// AuditEvent is what tests read of an audit.k8s.io/v1 Event.
type AuditEvent struct {
	Verb      string `json:"verb"`
	UserAgent string `json:"userAgent"`
	User      struct {
		Username string `json:"username"`
	} `json:"user"`
	ObjectRef struct {
		Resource, Namespace, Name, Subresource string
	} `json:"objectRef"`
	ResponseStatus struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
}

// auditFlags writes the policy into dir and returns kube-apiserver's flags
// for it. The log is written in blocking mode: a request's event is in the
// file before its response is sent, so a client that has its answer finds
// the event.
func auditFlags(dir string) ([]string, error) {
	policy := filepath.Join(dir, auditPolicyName)
	if err := os.WriteFile(policy, []byte(writeAuditPolicy), 0o600); err != nil {
		return nil, fmt.Errorf("testenv: audit policy: %w", err)
	}
	return []string{"--audit-policy-file=" + policy, "--audit-log-path=" + filepath.Join(dir, auditLogName),
		"--audit-log-mode=blocking"}, nil
}

// AuditLogPath returns the audit log's path, or "" when the cluster was
// started without Options.AuditWrites.
func (c *Cluster) AuditLogPath() string {
	if !c.opts.AuditWrites {
		return ""
	}
	return filepath.Join(c.dir, auditLogName)
}

// AuditEvents reads the audit log written so far (Options.AuditWrites),
// in the order kube-apiserver wrote it.
func (c *Cluster) AuditEvents() ([]AuditEvent, error) {
	path := c.AuditLogPath()
	if path == "" {
		return nil, fmt.Errorf("testenv: the cluster was started without Options.AuditWrites")
	}
	return ReadAuditLog(path)
}

// ReadAuditLog parses an audit log of JSON lines (kube-apiserver's
// --audit-log-format=json, the default).
func ReadAuditLog(path string) ([]AuditEvent, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("testenv: audit log: %w", err)
	}
	defer f.Close()
	var out []AuditEvent
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 1<<20), 1<<24)
	for n := 1; s.Scan(); n++ {
		var e AuditEvent
		if err := json.Unmarshal(s.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("testenv: audit log %s line %d: %w", path, n, err)
		}
		out = append(out, e)
	}
	if err := s.Err(); err != nil {
		return nil, fmt.Errorf("testenv: audit log: %w", err)
	}
	return out, nil
}
