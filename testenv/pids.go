package testenv

// PIDs returns the process ids of the running kube-apiserver and etcd, so
// that a benchmark can read what they spend from /proc/<pid>/stat and
// /proc/<pid>/status. A stopped kube-apiserver has pid 0 until
// StartAPIServer; after RestartAPIServer it has a new one.
func (c *Cluster) PIDs() (apiserver, etcd int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.api != nil && c.api.proc != nil {
		apiserver = c.api.proc.pid()
	}
	if c.etcd != nil && c.etcd.proc != nil {
		etcd = c.etcd.proc.pid()
	}
	return apiserver, etcd
}
