package manager

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/kcmlab/kcm/authdelegate"
	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/kube/rest"
)

// kcmV137Defaults are kube-controller-manager v1.37.2's flag defaults as
// its FlagSet prints them (pflag's DefValue), for the flags kcm shares
// (read from its --help; none changed since v1.34.4).
var kcmV137Defaults = map[string]string{
	"kubeconfig": "", "master": "", "controllers": "[*]",
	"kube-api-qps": "20", "kube-api-burst": "30", "use-service-account-credentials": "false",
	"kube-api-content-type":       "application/vnd.kubernetes.protobuf",
	"concurrent-replicaset-syncs": "5", "concurrent-deployment-syncs": "5", "concurrent-statefulset-syncs": "5",
	"concurrent-namespace-syncs": "10", "namespace-sync-period": "5m0s",
	"concurrent-gc-syncs": "20", "concurrent-endpoint-syncs": "5", "endpoint-updates-batch-period": "0s",
	"concurrent-service-endpoint-syncs": "5", "max-endpoints-per-slice": "100", "endpointslice-updates-batch-period": "0s", "enable-garbage-collector": "true",
	"node-monitor-period": "5s", "node-monitor-grace-period": "50s", "node-startup-grace-period": "1m0s",
	"node-eviction-rate": "0.1", "secondary-node-eviction-rate": "0.01", "large-cluster-size-threshold": "50",
	"unhealthy-zone-threshold":                    "0.55",
	"mirroring-concurrent-service-endpoint-syncs": "5", "mirroring-max-endpoints-per-subset": "1000",
	"mirroring-endpointslice-updates-batch-period": "0s", "terminated-pod-gc-threshold": "12500",
	"concurrent-resource-quota-syncs": "5", "resource-quota-sync-period": "5m0s",
	"root-ca-file": "",
	"leader-elect": "true", "leader-elect-lease-duration": "15s", "leader-elect-renew-deadline": "10s",
	"leader-elect-retry-period": "2s", "leader-elect-resource-lock": "leases",
	"leader-elect-resource-namespace": "kube-system", "leader-elect-resource-name": "kube-controller-manager",
	"secure-port": "10257", "bind-address": "0.0.0.0", "cert-dir": "", "tls-cert-file": "", "tls-private-key-file": "",
	"logging-format": "text", "v": "0", "version": "false", "profiling": "true",
	"authentication-kubeconfig": "", "authentication-skip-lookup": "false", "authentication-token-webhook-cache-ttl": "10s",
	"authentication-tolerate-lookup-failure": "false", "client-ca-file": "", "requestheader-allowed-names": "[]",
	"requestheader-client-ca-file": "", "requestheader-extra-headers-prefix": "[x-remote-extra-]",
	"requestheader-group-headers": "[x-remote-group]", "requestheader-uid-headers": "[]",
	"requestheader-username-headers":   "[x-remote-user]",
	"authorization-always-allow-paths": "[/healthz,/readyz,/livez]", "authorization-kubeconfig": "",
	"authorization-webhook-cache-authorized-ttl": "10s", "authorization-webhook-cache-unauthorized-ttl": "10s",
	"concurrent-serviceaccount-token-syncs": "5", "service-account-private-key-file": "",
	"legacy-service-account-token-clean-up-period": "8760h0m0s",
}

// TestDefaultsAreKubeControllerManagers: every flag kcm shares with
// kube-controller-manager v1.37 has its default, and every flag kcm has
// is one of kube-controller-manager's (so a typo in a name cannot pass),
// but for --log-format, kcm's short spelling of --logging-format.
func TestDefaultsAreKubeControllerManagers(t *testing.T) {
	cmd := NewControllerManagerCommand(NewControllerDescriptors())
	seen := map[string]bool{}
	cmd.all.VisitAll(func(f *pflag.Flag) {
		seen[f.Name] = true
		if f.Name == "log-format" || f.Name == "enable-pipeline-view" {
			return
		}
		if !IsKubeControllerManagerFlag(f.Name) {
			t.Errorf("--%s is not a kube-controller-manager v1.37 flag", f.Name)
		}
		want, ok := kcmV137Defaults[f.Name]
		if !ok {
			t.Errorf("--%s: no kube-controller-manager default on record in this test", f.Name)
			return
		}
		if f.DefValue != want {
			t.Errorf("--%s default %q, kube-controller-manager's is %q", f.Name, f.DefValue, want)
		}
	})
	for name := range kcmV137Defaults {
		if !seen[name] {
			t.Errorf("kcm lost its --%s flag", name)
		}
	}
	if got := NewOptions(NewControllerDescriptors()).KubeAPIContentType; got != rest.ContentTypeProtobuf {
		t.Errorf("NewOptions: KubeAPIContentType %q, want %q (kube-controller-manager's default)", got, rest.ContentTypeProtobuf)
	}
	if sh := cmd.all.Lookup("v").Shorthand; sh != "v" {
		t.Errorf("-v shorthand %q, want v", sh)
	}
}

// TestKubeControllerManagerFlagTable: the table is sorted (the lookup is a
// binary search) and has no duplicates.
func TestKubeControllerManagerFlagTable(t *testing.T) {
	if !slices.IsSorted(kubeControllerManagerFlags) {
		t.Fatal("kubeControllerManagerFlags is not sorted")
	}
	if len(slices.Compact(slices.Clone(kubeControllerManagerFlags))) != len(kubeControllerManagerFlags) {
		t.Fatal("kubeControllerManagerFlags has duplicates")
	}
	for name, want := range map[string]bool{
		"allocate-node-cidrs": true, "concurrent_rc_syncs": true, "concurrent-rc-syncs": true, "vmodule": true,
		"feature-gates": true, "zzz-last": false,
		// Added in 1.35-1.37.
		"concurrent-disruption-syncs": true, "concurrent-device-taint-eviction-syncs": true,
		"concurrent-resourceclaim-syncs": true, "controller-shutdown-timeout": true,
		"min-compatibility-version": true, "tls-curve-preferences": true,
		// Gone in 1.37: the service-lb-controller's flag.
		"concurrent-service-syncs": false,
	} {
		if got := IsKubeControllerManagerFlag(name); got != want {
			t.Errorf("IsKubeControllerManagerFlag(%q) = %v, want %v", name, got, want)
		}
	}
}

func parse(t *testing.T, args ...string) (*Options, error) {
	t.Helper()
	cmd := NewControllerManagerCommand(NewControllerDescriptors())
	err := cmd.Parse(args)
	return cmd.Options, err
}

// TestParseValues: kube-controller-manager's spellings of each value parse
// into the options.
func TestParseValues(t *testing.T) {
	o, err := parse(t, "--kubeconfig=/etc/kcm.conf", "--master", "https://10.0.0.1:6443",
		"--controllers=-serviceaccount,*", "--leader-elect=false", "--leader-elect-lease-duration=30s",
		"--leader-elect-renew-deadline=20s", "--leader-elect-retry-period=4s",
		"--leader-elect-resource-namespace=kcm", "--leader-elect-resource-name=mine",
		"--kube-api-qps=50", "--kube-api-burst=100", "--kube-api-content-type="+ContentTypeJSON,
		"--secure-port=0", "--bind-address=127.0.0.1", "--cert-dir=/tmp/certs",
		"--tls-cert-file=/c.pem", "--tls-private-key-file=/k.pem", "--logging-format=json", "-v=4", "--profiling=false",
		"--authentication-kubeconfig=/etc/authn.conf", "--authorization-kubeconfig=/etc/authz.conf",
		"--client-ca-file=/ca.pem", "--authentication-token-webhook-cache-ttl=30s",
		"--authorization-webhook-cache-authorized-ttl=1m", "--authorization-webhook-cache-unauthorized-ttl=5s",
		"--authorization-always-allow-paths=/healthz,/metrics", "--requestheader-allowed-names=front-proxy",
		"--requestheader-client-ca-file=/proxy-ca.pem", "--requestheader-username-headers=X-User",
		"--requestheader-group-headers=X-Group", "--requestheader-extra-headers-prefix=X-Extra-",
		"--requestheader-uid-headers=X-Uid", "--authentication-skip-lookup", "--authentication-tolerate-lookup-failure")
	if err != nil {
		t.Fatal(err)
	}
	want := Options{
		Kubeconfig: "/etc/kcm.conf", Master: "https://10.0.0.1:6443",
		KubeAPIQPS: 50, KubeAPIBurst: 100, KubeAPIContentType: ContentTypeJSON,
		LeaderElection: LeaderElectionOptions{LeaderElect: false, LeaseDuration: 30 * time.Second,
			RenewDeadline: 20 * time.Second, RetryPeriod: 4 * time.Second, ResourceLock: "leases",
			ResourceNamespace: "kcm", ResourceName: "mine"},
		Serving: ServingOptions{BindAddress: "127.0.0.1", SecurePort: 0, CertDir: "/tmp/certs",
			TLSCertFile: "/c.pem", TLSPrivateKeyFile: "/k.pem"},
		Auth: authdelegate.Options{AuthenticationKubeconfig: "/etc/authn.conf", TokenCacheTTL: 30 * time.Second,
			SkipLookup: true, TolerateLookupFailure: true, ClientCAFile: "/ca.pem",
			RequestHeader: authdelegate.RequestHeaderOptions{ClientCAFile: "/proxy-ca.pem", AllowedNames: []string{"front-proxy"},
				UsernameHeaders: []string{"X-User"}, UIDHeaders: []string{"X-Uid"}, GroupHeaders: []string{"X-Group"},
				ExtraHeaderPrefixes: []string{"X-Extra-"}},
			AuthorizationKubeconfig: "/etc/authz.conf", AlwaysAllowPaths: []string{"/healthz", "/metrics"},
			AuthorizedTTL: time.Minute, UnauthorizedTTL: 5 * time.Second},
		LogFormat: LogFormatJSON, Verbosity: 4,
	}
	got := *o
	got.Controllers = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("options\n got %+v\nwant %+v", got, want)
	}
	if !slices.Equal(o.Controllers.Controllers, []string{"-serviceaccount", "*"}) {
		t.Errorf("--controllers = %q", o.Controllers.Controllers)
	}
	for _, args := range [][]string{{"-v", "5"}, {"--v=5"}, {"-v5"}} {
		if o, err := parse(t, args...); err != nil || o.Verbosity != 5 {
			t.Errorf("%q: verbosity %d, %v; want 5", args, o.Verbosity, err)
		}
	}
	if o, err := parse(t, "--log-format=json"); err != nil || o.LogFormat != LogFormatJSON {
		t.Errorf("--log-format=json: %q, %v", o.LogFormat, err)
	}
}

// TestParseRejects: each bad command line is refused with a message that
// names the flag, the rule and, where it helps, the alternatives.
func TestParseRejects(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		is     error
		substr []string
	}{
		{"a kube-controller-manager flag kcm lacks", []string{"--allocate-node-cidrs"}, ErrUnsupportedFlag,
			[]string{"kcm does not support kube-controller-manager's flag --allocate-node-cidrs; see kcm --help"}},
		{"with a value", []string{"--cluster-cidr=10.0.0.0/8"}, ErrUnsupportedFlag, []string{"flag --cluster-cidr;"}},
		{"with a separate value", []string{"--concurrent-job-syncs", "20"}, ErrUnsupportedFlag, []string{"--concurrent-job-syncs"}},
		{"an old underscore name", []string{"--concurrent_rc_syncs=5"}, ErrUnsupportedFlag, []string{"--concurrent_rc_syncs"}},
		{"a flag new in 1.37", []string{"--controller-shutdown-timeout=30s"}, ErrUnsupportedFlag, []string{"--controller-shutdown-timeout"}},
		{"a flag gone in 1.37", []string{"--concurrent-service-syncs=2"}, nil, []string{"unknown flag: --concurrent-service-syncs"}},
		{"after a supported flag", []string{"--leader-elect=false", "--feature-gates=A=true"}, ErrUnsupportedFlag, []string{"--feature-gates"}},
		{"a flag nobody has", []string{"--no-such-flag"}, nil, []string{"unknown flag: --no-such-flag"}},
		{"an unknown shorthand", []string{"-x"}, nil, []string{"unknown shorthand flag: 'x'"}},
		{"unknown controller", []string{"--controllers=*,-tokencleaner,ttl"}, ctrl.ErrUnknownController,
			[]string{`"tokencleaner", "ttl"`, "known controllers: deployment-controller, endpoints-controller, endpointslice-controller, endpointslice-mirroring-controller, garbage-collector-controller, legacy-serviceaccount-token-cleaner-controller, namespace-controller, node-lifecycle-controller, pod-garbage-collector-controller, replicaset-controller, resourcequota-controller, root-ca-certificate-publisher-controller, serviceaccount-controller, serviceaccount-token-controller, statefulset-controller, taint-eviction-controller"}},
		{"bad log format", []string{"--logging-format=xml"}, ErrInvalidOptions, []string{`--logging-format "xml": want "text" or "json"`}},
		{"endpoints lock", []string{"--leader-elect-resource-lock=endpoints"}, ErrInvalidOptions,
			[]string{`--leader-elect-resource-lock "endpoints": kcm supports only "leases"`}},
		{"configmapsleases lock", []string{"--leader-elect-resource-lock=configmapsleases"}, ErrInvalidOptions, []string{"only \"leases\""}},
		{"renew deadline not below lease duration", []string{"--leader-elect-renew-deadline=15s"}, ErrInvalidOptions,
			[]string{"--leader-elect-lease-duration > --leader-elect-renew-deadline", "RenewDeadline"}},
		{"retry period too close to renew deadline", []string{"--leader-elect-retry-period=9s"}, ErrInvalidOptions, []string{"1.2 × RetryPeriod"}},
		{"zero lease duration", []string{"--leader-elect-lease-duration=0"}, ErrInvalidOptions, []string{"--leader-elect-lease-duration 0s must be positive"}},
		{"empty lease name", []string{"--leader-elect-resource-name="}, ErrInvalidOptions, []string{"must not be empty"}},
		{"port out of range", []string{"--secure-port=70000"}, ErrInvalidOptions, []string{"--secure-port 70000"}},
		{"negative port", []string{"--secure-port=-1"}, ErrInvalidOptions, []string{"--secure-port -1"}},
		{"bind address not an IP", []string{"--bind-address=localhost"}, ErrInvalidOptions, []string{`--bind-address "localhost"`}},
		{"cert without key", []string{"--tls-cert-file=/c.pem"}, ErrInvalidOptions, []string{"go together"}},
		{"content type", []string{"--kube-api-content-type=application/yaml"}, ErrInvalidOptions,
			[]string{`--kube-api-content-type "application/yaml": want application/json or application/vnd.kubernetes.protobuf`}},
		{"content type with parameters", []string{"--kube-api-content-type=application/json;charset=utf-8"}, ErrInvalidOptions,
			[]string{`--kube-api-content-type "application/json;charset=utf-8"`}},
		{"empty content type", []string{"--kube-api-content-type="}, ErrInvalidOptions, []string{`--kube-api-content-type ""`}},
		{"negative burst", []string{"--kube-api-burst=-1"}, ErrInvalidOptions, []string{"--kube-api-burst -1"}},
		{"negative verbosity", []string{"-v=-1"}, ErrInvalidOptions, []string{"-v -1"}},
		{"positional", []string{"serviceaccount"}, nil, []string{`unexpected arguments ["serviceaccount"]`}},
		{"help", []string{"--help"}, pflag.ErrHelp, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(t, tt.args...)
			if err == nil {
				t.Fatalf("Parse(%q) accepted", tt.args)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("Parse(%q) = %v, want errors.Is %v", tt.args, err, tt.is)
			}
			if tt.is == nil && (errors.Is(err, ErrUnsupportedFlag) || errors.Is(err, ErrInvalidOptions)) {
				t.Errorf("Parse(%q) = %v: reported as unsupported or invalid", tt.args, err)
			}
			for _, s := range tt.substr {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("Parse(%q) = %q, want it to contain %q", tt.args, err, s)
				}
			}
		})
	}
}

// TestParseBoundaries: the edges of each range are accepted.
func TestParseBoundaries(t *testing.T) {
	for _, args := range [][]string{{"--secure-port=0"}, {"--secure-port=65535"}, {"--kube-api-burst=0"},
		{"-v=0"}, {"--leader-elect-lease-duration=1s", "--leader-elect-renew-deadline=500ms", "--leader-elect-retry-period=400ms"}} {
		if _, err := parse(t, args...); err != nil {
			t.Errorf("Parse(%q) = %v, want accepted", args, err)
		}
	}
}

// TestLeaderElectionOffSkipsItsChecks: with --leader-elect=false the lease
// flags are not checked (kube-controller-manager ignores them then).
func TestLeaderElectionOffSkipsItsChecks(t *testing.T) {
	if _, err := parse(t, "--leader-elect=false", "--leader-elect-resource-lock=endpoints"); err != nil {
		t.Fatal(err)
	}
}

// TestValidateReportsAll: every problem is reported at once.
func TestValidateReportsAll(t *testing.T) {
	_, err := parse(t, "--logging-format=xml", "--secure-port=-1", "--controllers=nope")
	for _, s := range []string{"--logging-format", "--secure-port", `"nope"`} {
		if err == nil || !strings.Contains(err.Error(), s) {
			t.Errorf("error %v does not mention %s", err, s)
		}
	}
}
