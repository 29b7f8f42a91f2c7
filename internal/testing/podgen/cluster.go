package podgen

// The shape of the generated cluster: Deployments spread over Namespaces,
// each with one current ReplicaSet whose pods are running on Nodes.

// Namespaces is the number of namespaces objects are spread over.
const Namespaces = 50

// ReplicasPerSet is how many pods each ReplicaSet owns: pod i belongs to
// ReplicaSet i/ReplicasPerSet.
const ReplicasPerSet = 4

// Nodes is the number of nodes pods are scheduled onto.
const Nodes = 240

// BaseResourceVersion is the resourceVersion of pod 0: pod i was last
// written at BaseResourceVersion+i. ReplicaSets were written before their
// pods, at resourceVersions below it.
const BaseResourceVersion = 100000

var teams = [...]string{"payments", "checkout", "search", "catalog", "identity",
	"billing", "ledger", "media", "notify", "growth"}

var stages = [...]string{"prod", "staging", "canary", "dev", "qa"}

// namespace returns the name of namespace k (0 <= k < Namespaces).
func namespace(k int) string {
	return teams[k%len(teams)] + "-" + stages[(k/len(teams))%len(stages)]
}

// apps are workload names; a cluster reuses them across namespaces.
var apps = [...]string{"api", "web", "worker", "gateway", "indexer", "scheduler",
	"frontend", "cache-warmer", "exporter", "reconciler", "auth-proxy", "feed",
	"thumbnailer", "mailer", "webhook", "router", "aggregator", "sync"}

// workload describes one Deployment and its current ReplicaSet.
type workload struct {
	set       int    // ReplicaSet index
	namespace string // its namespace
	app       string // value of the app label and Deployment name
	hash      string // pod-template-hash
	rsName    string // <app>-<hash>
	rsUID     string
	image     string
	port      int
	sidecar   bool // pods carry a log-shipping sidecar container
	cpuReq    string
	memReq    string
	memLimit  string
	envCount  int // number of plain env vars
}

var images = [...]string{
	"registry.k8s.io/pause:3.10",
	"ghcr.io/kcmlab/api:v1.42.3",
	"docker.io/library/nginx:1.27",
	"quay.io/acme/worker:v2.8.1",
	"docker.io/library/redis:7.4",
	"docker.io/library/python:3.13",
}

var cpuRequests = [...]string{"50m", "100m", "250m", "500m", "1"}
var memRequests = [...]string{"64Mi", "128Mi", "256Mi", "512Mi", "1Gi"}
var memLimits = [...]string{"128Mi", "256Mi", "512Mi", "1Gi", "2Gi"}

// workloadOf returns ReplicaSet set's workload.
func workloadOf(set int) workload {
	s := uint64(set)
	ns := set % Namespaces
	app := apps[(set/Namespaces)%len(apps)]
	if round := set / (Namespaces * len(apps)); round > 0 {
		app += "-" + itoa(round)
	}
	hash := safeString(mix(s, saltHash), 10)
	sz := mix(s, saltSize)
	return workload{
		set:       set,
		namespace: namespace(ns),
		app:       app,
		hash:      hash,
		rsName:    app + "-" + hash,
		rsUID:     uid(mix(s, saltRSUID)),
		image:     images[set%len(images)],
		port:      []int{8080, 8443, 9090, 3000, 80}[set%5],
		sidecar:   set%4 == 0,
		cpuReq:    cpuRequests[sz%5],
		memReq:    memRequests[(sz>>8)%5],
		memLimit:  memLimits[(sz>>8)%5],
		envCount:  1 + int((sz>>16)%2),
	}
}

// nodeName returns the name of node k.
func nodeName(k int) string {
	return "worker-" + itoa(1000 + k)[1:]
}

// nodeIP returns node k's InternalIP.
func nodeIP(k int) string { return "10.0." + itoa(k/250) + "." + itoa(4+k%250) }
