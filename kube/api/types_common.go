package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// This file holds the small value types that several API kinds share:
// condition status, resource lists, label selectors, IntOrString, and the
// container and volume sub-structs of every pod template. Field names and json tags follow k8s.io/api v1.34 so that
// objects decode from, and encode to, exactly what kube-apiserver speaks.

// ConditionStatus is the status of a condition: True, False or Unknown.
type ConditionStatus string

// The three condition statuses the API allows.
const (
	ConditionTrue    ConditionStatus = "True"
	ConditionFalse   ConditionStatus = "False"
	ConditionUnknown ConditionStatus = "Unknown"
)

// ResourceList maps a resource name ("cpu", "memory", "ephemeral-storage",
// ...) to a quantity. Quantities stay in their wire form ("100m", "1Gi"):
// kcm's controllers copy them, they never do arithmetic on them, and a string
// is both smaller and faster to decode than a parsed quantity.
type ResourceList map[string]string

// LabelSelector is the structured selector of meta/v1: an object matches when
// it carries every label in MatchLabels and satisfies every expression in
// MatchExpressions. Compile it with LabelSelectorAsSelector before matching.
//
// A nil *LabelSelector selects nothing; an empty one selects everything.
type LabelSelector struct {
	MatchLabels      map[string]string          `json:"matchLabels,omitempty"`
	MatchExpressions []LabelSelectorRequirement `json:"matchExpressions,omitempty"`
}

// LabelSelectorRequirement is one expression of a LabelSelector.
type LabelSelectorRequirement struct {
	Key      string                `json:"key"`
	Operator LabelSelectorOperator `json:"operator"`
	// Values must be non-empty for In and NotIn and empty for Exists and
	// DoesNotExist.
	Values []string `json:"values,omitempty"`
}

// LabelSelectorOperator is the operator of a LabelSelectorRequirement.
type LabelSelectorOperator string

// The operators a LabelSelectorRequirement may use.
const (
	LabelSelectorOpIn           LabelSelectorOperator = "In"
	LabelSelectorOpNotIn        LabelSelectorOperator = "NotIn"
	LabelSelectorOpExists       LabelSelectorOperator = "Exists"
	LabelSelectorOpDoesNotExist LabelSelectorOperator = "DoesNotExist"
)

// ErrInvalidIntOrString is wrapped by the errors of IntOrString conversions.
var ErrInvalidIntOrString = errors.New("invalid IntOrString")

// IntOrString holds either a 32-bit integer or a string, and marshals to a
// JSON number or a JSON string accordingly (util/intstr IntOrString). The
// zero value is the integer 0. Values are comparable with ==.
type IntOrString struct {
	str   string // the value when isStr
	num   int32  // the value when !isStr
	isStr bool
}

// IntOrStringFromInt returns an IntOrString holding the integer i.
func IntOrStringFromInt(i int32) IntOrString { return IntOrString{num: i} }

// IntOrStringFromString returns an IntOrString holding the string s,
// typically a percentage such as "25%".
func IntOrStringFromString(s string) IntOrString { return IntOrString{str: s, isStr: true} }

// IsString reports whether v holds a string.
func (v IntOrString) IsString() bool { return v.isStr }

// IntValue returns the integer, or for a string its decimal value (0 when the
// string is not an integer, as in Kubernetes).
func (v IntOrString) IntValue() int {
	if v.isStr {
		i, _ := strconv.Atoi(v.str)
		return i
	}
	return int(v.num)
}

// StrValue returns the string held, or "" when v holds an integer.
func (v IntOrString) StrValue() string { return v.str }

// String returns the string held or the decimal form of the integer.
func (v IntOrString) String() string {
	if v.isStr {
		return v.str
	}
	return strconv.Itoa(int(v.num))
}

// ScaledValue resolves v against total: an integer is returned as is; a
// percentage "N%" becomes N*total/100, rounded up when roundUp is set and down
// otherwise. A string that is not a percentage is an error. This is
// Kubernetes' GetScaledValueFromIntOrPercent, computed in exact integer
// arithmetic.
func (v IntOrString) ScaledValue(total int, roundUp bool) (int, error) {
	if !v.isStr {
		return int(v.num), nil
	}
	digits, ok := strings.CutSuffix(v.str, "%")
	if !ok {
		return 0, fmt.Errorf("%w: %q is not a percentage", ErrInvalidIntOrString, v.str)
	}
	pct, err := strconv.Atoi(digits)
	if err != nil {
		return 0, fmt.Errorf("%w: %q: %w", ErrInvalidIntOrString, v.str, err)
	}
	if roundUp {
		return ceilDiv(pct*total, 100), nil
	}
	return floorDiv(pct*total, 100), nil
}

// GetScaledValueFromIntOrPercent is ScaledValue for an optional value; nil
// is an error, as in Kubernetes.
func GetScaledValueFromIntOrPercent(v *IntOrString, total int, roundUp bool) (int, error) {
	if v == nil {
		return 0, fmt.Errorf("%w: nil value", ErrInvalidIntOrString)
	}
	return v.ScaledValue(total, roundUp)
}

// floorDiv divides rounding towards negative infinity (d > 0).
func floorDiv(n, d int) int {
	q := n / d
	if n%d != 0 && n < 0 {
		q--
	}
	return q
}

// ceilDiv divides rounding towards positive infinity (d > 0).
func ceilDiv(n, d int) int {
	q := n / d
	if n%d != 0 && n > 0 {
		q++
	}
	return q
}

// MarshalJSON implements json.Marshaler: a number or a string.
func (v IntOrString) MarshalJSON() ([]byte, error) {
	if v.isStr {
		return json.Marshal(v.str)
	}
	return strconv.AppendInt(nil, int64(v.num), 10), nil
}

// UnmarshalJSON implements json.Unmarshaler. It accepts a JSON string or an
// integer that fits in 32 bits; null leaves the integer 0, as in Kubernetes.
func (v *IntOrString) UnmarshalJSON(b []byte) error {
	if len(b) >= 2 && b[0] == '"' {
		if b[len(b)-1] == '"' && bytes.IndexByte(b, '\\') < 0 {
			*v = IntOrStringFromString(string(b[1 : len(b)-1]))
			return nil
		}
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return fmt.Errorf("%w: %w", ErrInvalidIntOrString, err)
		}
		*v = IntOrStringFromString(s)
		return nil
	}
	if string(b) == "null" {
		*v = IntOrString{}
		return nil
	}
	n, err := strconv.ParseInt(string(b), 10, 32)
	if err != nil {
		return fmt.Errorf("%w: %s is not a 32-bit integer", ErrInvalidIntOrString, b)
	}
	*v = IntOrStringFromInt(int32(n))
	return nil
}

// The container and volume sub-structs below are shared by Pod and by the pod
// templates of every workload kind (ReplicaSet, Deployment, ...).

// Container is one container of a pod. Lifecycle hooks, security context,
// resize policy and volume devices are not modelled.
type Container struct {
	Name                     string               `json:"name"`
	Image                    string               `json:"image,omitempty"`
	Command                  []string             `json:"command,omitempty"`
	Args                     []string             `json:"args,omitempty"`
	WorkingDir               string               `json:"workingDir,omitempty"`
	Ports                    []ContainerPort      `json:"ports,omitempty"`
	EnvFrom                  []EnvFromSource      `json:"envFrom,omitempty"`
	Env                      []EnvVar             `json:"env,omitempty"`
	Resources                ResourceRequirements `json:"resources,omitempty"`
	RestartPolicy            *string              `json:"restartPolicy,omitempty"`
	VolumeMounts             []VolumeMount        `json:"volumeMounts,omitempty"`
	LivenessProbe            *Probe               `json:"livenessProbe,omitempty"`
	ReadinessProbe           *Probe               `json:"readinessProbe,omitempty"`
	StartupProbe             *Probe               `json:"startupProbe,omitempty"`
	TerminationMessagePath   string               `json:"terminationMessagePath,omitempty"`
	TerminationMessagePolicy string               `json:"terminationMessagePolicy,omitempty"`
	ImagePullPolicy          PullPolicy           `json:"imagePullPolicy,omitempty"`
}

// PullPolicy says when the kubelet pulls a container image.
type PullPolicy string

// The image pull policies.
const (
	PullAlways       PullPolicy = "Always"
	PullNever        PullPolicy = "Never"
	PullIfNotPresent PullPolicy = "IfNotPresent"
)

// ContainerPort is a port a container exposes.
type ContainerPort struct {
	Name          string `json:"name,omitempty"`
	HostPort      int32  `json:"hostPort,omitempty"`
	ContainerPort int32  `json:"containerPort"`
	Protocol      string `json:"protocol,omitempty"`
	HostIP        string `json:"hostIP,omitempty"`
}

// EnvVar is one environment variable: a literal Value or a ValueFrom source.
type EnvVar struct {
	Name      string        `json:"name"`
	Value     string        `json:"value,omitempty"`
	ValueFrom *EnvVarSource `json:"valueFrom,omitempty"`
}

// EnvVarSource says where an environment variable's value comes from.
type EnvVarSource struct {
	FieldRef         *ObjectFieldSelector   `json:"fieldRef,omitempty"`
	ResourceFieldRef *ResourceFieldSelector `json:"resourceFieldRef,omitempty"`
	ConfigMapKeyRef  *KeySelector           `json:"configMapKeyRef,omitempty"`
	SecretKeyRef     *KeySelector           `json:"secretKeyRef,omitempty"`
}

// ObjectFieldSelector selects a field of the pod, e.g. metadata.name.
type ObjectFieldSelector struct {
	APIVersion string `json:"apiVersion,omitempty"`
	FieldPath  string `json:"fieldPath"`
}

// ResourceFieldSelector selects a container resource, e.g. limits.cpu.
// Divisor is a quantity in wire form (the apiserver defaults it to "0").
type ResourceFieldSelector struct {
	ContainerName string `json:"containerName,omitempty"`
	Resource      string `json:"resource"`
	Divisor       string `json:"divisor,omitempty"`
}

// KeySelector selects one key of a ConfigMap or Secret (core/v1
// ConfigMapKeySelector and SecretKeySelector, which are identical on the
// wire).
type KeySelector struct {
	Name     string `json:"name,omitempty"`
	Key      string `json:"key"`
	Optional *bool  `json:"optional,omitempty"`
}

// EnvFromSource imports every key of a ConfigMap or Secret as variables.
type EnvFromSource struct {
	Prefix       string            `json:"prefix,omitempty"`
	ConfigMapRef *OptionalLocalRef `json:"configMapRef,omitempty"`
	SecretRef    *OptionalLocalRef `json:"secretRef,omitempty"`
}

// OptionalLocalRef names an object in the pod's namespace that may be
// missing when Optional is true (ConfigMapEnvSource, SecretEnvSource).
type OptionalLocalRef struct {
	Name     string `json:"name,omitempty"`
	Optional *bool  `json:"optional,omitempty"`
}

// ResourceRequirements holds a container's requests and limits.
type ResourceRequirements struct {
	Limits   ResourceList `json:"limits,omitempty"`
	Requests ResourceList `json:"requests,omitempty"`
}

// VolumeMount mounts a pod volume into a container.
type VolumeMount struct {
	Name        string `json:"name"`
	ReadOnly    bool   `json:"readOnly,omitempty"`
	MountPath   string `json:"mountPath"`
	SubPath     string `json:"subPath,omitempty"`
	SubPathExpr string `json:"subPathExpr,omitempty"`
}

// Probe is a periodic health check. Exactly one of Exec, HTTPGet, TCPSocket
// and GRPC is set.
type Probe struct {
	Exec                          *ExecAction      `json:"exec,omitempty"`
	HTTPGet                       *HTTPGetAction   `json:"httpGet,omitempty"`
	TCPSocket                     *TCPSocketAction `json:"tcpSocket,omitempty"`
	GRPC                          *GRPCAction      `json:"grpc,omitempty"`
	InitialDelaySeconds           int32            `json:"initialDelaySeconds,omitempty"`
	TimeoutSeconds                int32            `json:"timeoutSeconds,omitempty"`
	PeriodSeconds                 int32            `json:"periodSeconds,omitempty"`
	SuccessThreshold              int32            `json:"successThreshold,omitempty"`
	FailureThreshold              int32            `json:"failureThreshold,omitempty"`
	TerminationGracePeriodSeconds *int64           `json:"terminationGracePeriodSeconds,omitempty"`
}

// ExecAction runs a command in the container.
type ExecAction struct {
	Command []string `json:"command,omitempty"`
}

// HTTPGetAction performs an HTTP GET; Port is a number or a port name.
type HTTPGetAction struct {
	Path        string       `json:"path,omitempty"`
	Port        IntOrString  `json:"port"`
	Host        string       `json:"host,omitempty"`
	Scheme      string       `json:"scheme,omitempty"`
	HTTPHeaders []HTTPHeader `json:"httpHeaders,omitempty"`
}

// HTTPHeader is one header of an HTTPGetAction.
type HTTPHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// TCPSocketAction opens a TCP connection; Port is a number or a port name.
type TCPSocketAction struct {
	Port IntOrString `json:"port"`
	Host string      `json:"host,omitempty"`
}

// GRPCAction calls the gRPC health service. Service is serialised even
// when nil, as upstream does.
type GRPCAction struct {
	Port    int32   `json:"port"`
	Service *string `json:"service"`
}

// Volume is a named volume of a pod. Only the common sources are modelled;
// a volume of another kind (csi, ephemeral, nfs, ...) decodes with every
// source nil, and its definition survives updates through the raw merge.
type Volume struct {
	Name                  string                             `json:"name"`
	HostPath              *HostPathVolumeSource              `json:"hostPath,omitempty"`
	EmptyDir              *EmptyDirVolumeSource              `json:"emptyDir,omitempty"`
	Secret                *SecretVolumeSource                `json:"secret,omitempty"`
	PersistentVolumeClaim *PersistentVolumeClaimVolumeSource `json:"persistentVolumeClaim,omitempty"`
	DownwardAPI           *DownwardAPIVolumeSource           `json:"downwardAPI,omitempty"`
	ConfigMap             *ConfigMapVolumeSource             `json:"configMap,omitempty"`
	Projected             *ProjectedVolumeSource             `json:"projected,omitempty"`
}

// HostPathVolumeSource mounts a path of the node.
type HostPathVolumeSource struct {
	Path string  `json:"path"`
	Type *string `json:"type,omitempty"`
}

// EmptyDirVolumeSource is scratch space living as long as the pod.
// SizeLimit is a quantity in wire form.
type EmptyDirVolumeSource struct {
	Medium    string  `json:"medium,omitempty"`
	SizeLimit *string `json:"sizeLimit,omitempty"`
}

// SecretVolumeSource projects a Secret's keys as files.
type SecretVolumeSource struct {
	SecretName  string      `json:"secretName,omitempty"`
	Items       []KeyToPath `json:"items,omitempty"`
	DefaultMode *int32      `json:"defaultMode,omitempty"`
	Optional    *bool       `json:"optional,omitempty"`
}

// ConfigMapVolumeSource projects a ConfigMap's keys as files.
type ConfigMapVolumeSource struct {
	Name        string      `json:"name,omitempty"`
	Items       []KeyToPath `json:"items,omitempty"`
	DefaultMode *int32      `json:"defaultMode,omitempty"`
	Optional    *bool       `json:"optional,omitempty"`
}

// PersistentVolumeClaimVolumeSource mounts a claim of the pod's namespace.
type PersistentVolumeClaimVolumeSource struct {
	ClaimName string `json:"claimName"`
	ReadOnly  bool   `json:"readOnly,omitempty"`
}

// DownwardAPIVolumeSource exposes pod fields as files.
type DownwardAPIVolumeSource struct {
	Items       []DownwardAPIVolumeFile `json:"items,omitempty"`
	DefaultMode *int32                  `json:"defaultMode,omitempty"`
}

// DownwardAPIVolumeFile is one file of a downward API volume or projection.
type DownwardAPIVolumeFile struct {
	Path             string                 `json:"path"`
	FieldRef         *ObjectFieldSelector   `json:"fieldRef,omitempty"`
	ResourceFieldRef *ResourceFieldSelector `json:"resourceFieldRef,omitempty"`
	Mode             *int32                 `json:"mode,omitempty"`
}

// KeyToPath maps one key of a ConfigMap or Secret to a file path.
type KeyToPath struct {
	Key  string `json:"key"`
	Path string `json:"path"`
	Mode *int32 `json:"mode,omitempty"`
}

// ProjectedVolumeSource merges several sources into one directory; the
// apiserver adds one (kube-api-access-*) to every pod with a service account.
type ProjectedVolumeSource struct {
	Sources     []VolumeProjection `json:"sources"`
	DefaultMode *int32             `json:"defaultMode,omitempty"`
}

// VolumeProjection is one source of a projected volume. Cluster trust
// bundles and pod certificates are not modelled.
type VolumeProjection struct {
	Secret              *KeysProjection                `json:"secret,omitempty"`
	DownwardAPI         *DownwardAPIProjection         `json:"downwardAPI,omitempty"`
	ConfigMap           *KeysProjection                `json:"configMap,omitempty"`
	ServiceAccountToken *ServiceAccountTokenProjection `json:"serviceAccountToken,omitempty"`
}

// DownwardAPIProjection exposes pod fields as files of a projected volume.
type DownwardAPIProjection struct {
	Items []DownwardAPIVolumeFile `json:"items,omitempty"`
}

// KeysProjection projects keys of a ConfigMap or Secret (core/v1
// ConfigMapProjection and SecretProjection, identical on the wire).
type KeysProjection struct {
	Name     string      `json:"name,omitempty"`
	Items    []KeyToPath `json:"items,omitempty"`
	Optional *bool       `json:"optional,omitempty"`
}

// ServiceAccountTokenProjection projects a bound service account token.
type ServiceAccountTokenProjection struct {
	Audience          string `json:"audience,omitempty"`
	ExpirationSeconds *int64 `json:"expirationSeconds,omitempty"`
	Path              string `json:"path"`
}
