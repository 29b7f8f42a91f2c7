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
	MatchLabels      map[string]string          `json:"matchLabels,omitempty" pb:"1"`
	MatchExpressions []LabelSelectorRequirement `json:"matchExpressions,omitempty" pb:"2"`
}

// LabelSelectorRequirement is one expression of a LabelSelector.
type LabelSelectorRequirement struct {
	Key      string                `json:"key" pb:"1"`
	Operator LabelSelectorOperator `json:"operator" pb:"2"`
	// Values must be non-empty for In and NotIn and empty for Exists and
	// DoesNotExist.
	Values []string `json:"values,omitempty" pb:"3"`
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
	Name                     string               `json:"name" pb:"1"`
	Image                    string               `json:"image,omitempty" pb:"2"`
	Command                  []string             `json:"command,omitempty" pb:"3"`
	Args                     []string             `json:"args,omitempty" pb:"4"`
	WorkingDir               string               `json:"workingDir,omitempty" pb:"5"`
	Ports                    []ContainerPort      `json:"ports,omitempty" pb:"6"`
	EnvFrom                  []EnvFromSource      `json:"envFrom,omitempty" pb:"19"`
	Env                      []EnvVar             `json:"env,omitempty" pb:"7"`
	Resources                ResourceRequirements `json:"resources,omitempty" pb:"8"`
	RestartPolicy            *string              `json:"restartPolicy,omitempty" pb:"24"`
	VolumeMounts             []VolumeMount        `json:"volumeMounts,omitempty" pb:"9"`
	LivenessProbe            *Probe               `json:"livenessProbe,omitempty" pb:"10"`
	ReadinessProbe           *Probe               `json:"readinessProbe,omitempty" pb:"11"`
	StartupProbe             *Probe               `json:"startupProbe,omitempty" pb:"22"`
	TerminationMessagePath   string               `json:"terminationMessagePath,omitempty" pb:"13"`
	TerminationMessagePolicy string               `json:"terminationMessagePolicy,omitempty" pb:"20"`
	ImagePullPolicy          PullPolicy           `json:"imagePullPolicy,omitempty" pb:"14"`
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
	Name          string `json:"name,omitempty" pb:"1"`
	HostPort      int32  `json:"hostPort,omitempty" pb:"2"`
	ContainerPort int32  `json:"containerPort" pb:"3"`
	Protocol      string `json:"protocol,omitempty" pb:"4"`
	HostIP        string `json:"hostIP,omitempty" pb:"5"`
}

// EnvVar is one environment variable: a literal Value or a ValueFrom source.
type EnvVar struct {
	Name      string        `json:"name" pb:"1"`
	Value     string        `json:"value,omitempty" pb:"2"`
	ValueFrom *EnvVarSource `json:"valueFrom,omitempty" pb:"3"`
}

// EnvVarSource says where an environment variable's value comes from.
type EnvVarSource struct {
	FieldRef         *ObjectFieldSelector   `json:"fieldRef,omitempty" pb:"1"`
	ResourceFieldRef *ResourceFieldSelector `json:"resourceFieldRef,omitempty" pb:"2"`
	ConfigMapKeyRef  *KeySelector           `json:"configMapKeyRef,omitempty" pb:"3"`
	SecretKeyRef     *KeySelector           `json:"secretKeyRef,omitempty" pb:"4"`
}

// ObjectFieldSelector selects a field of the pod, e.g. metadata.name.
type ObjectFieldSelector struct {
	APIVersion string `json:"apiVersion,omitempty" pb:"1"`
	FieldPath  string `json:"fieldPath" pb:"2"`
}

// ResourceFieldSelector selects a container resource, e.g. limits.cpu.
// Divisor is a quantity in wire form (the apiserver defaults it to "0").
type ResourceFieldSelector struct {
	ContainerName string `json:"containerName,omitempty" pb:"1"`
	Resource      string `json:"resource" pb:"2"`
	Divisor       string `json:"divisor,omitempty" pb:"3,quantity"`
}

// KeySelector selects one key of a ConfigMap or Secret (core/v1
// ConfigMapKeySelector and SecretKeySelector, which are identical on the
// wire).
type KeySelector struct {
	Name     string `json:"name,omitempty" pb:"1.1"`
	Key      string `json:"key" pb:"2"`
	Optional *bool  `json:"optional,omitempty" pb:"3"`
}

// EnvFromSource imports every key of a ConfigMap or Secret as variables.
type EnvFromSource struct {
	Prefix       string            `json:"prefix,omitempty" pb:"1"`
	ConfigMapRef *OptionalLocalRef `json:"configMapRef,omitempty" pb:"2"`
	SecretRef    *OptionalLocalRef `json:"secretRef,omitempty" pb:"3"`
}

// OptionalLocalRef names an object in the pod's namespace that may be
// missing when Optional is true (ConfigMapEnvSource, SecretEnvSource).
type OptionalLocalRef struct {
	Name     string `json:"name,omitempty" pb:"1.1"`
	Optional *bool  `json:"optional,omitempty" pb:"2"`
}

// ResourceRequirements holds a container's requests and limits.
type ResourceRequirements struct {
	Limits   ResourceList `json:"limits,omitempty" pb:"1"`
	Requests ResourceList `json:"requests,omitempty" pb:"2"`
}

// VolumeMount mounts a pod volume into a container.
type VolumeMount struct {
	Name        string `json:"name" pb:"1"`
	ReadOnly    bool   `json:"readOnly,omitempty" pb:"2"`
	MountPath   string `json:"mountPath" pb:"3"`
	SubPath     string `json:"subPath,omitempty" pb:"4"`
	SubPathExpr string `json:"subPathExpr,omitempty" pb:"6"`
}

// Probe is a periodic health check. Exactly one of Exec, HTTPGet, TCPSocket
// and GRPC is set.
type Probe struct {
	Exec                          *ExecAction      `json:"exec,omitempty" pb:"1.1"`
	HTTPGet                       *HTTPGetAction   `json:"httpGet,omitempty" pb:"1.2"`
	TCPSocket                     *TCPSocketAction `json:"tcpSocket,omitempty" pb:"1.3"`
	GRPC                          *GRPCAction      `json:"grpc,omitempty" pb:"1.4"`
	InitialDelaySeconds           int32            `json:"initialDelaySeconds,omitempty" pb:"2"`
	TimeoutSeconds                int32            `json:"timeoutSeconds,omitempty" pb:"3"`
	PeriodSeconds                 int32            `json:"periodSeconds,omitempty" pb:"4"`
	SuccessThreshold              int32            `json:"successThreshold,omitempty" pb:"5"`
	FailureThreshold              int32            `json:"failureThreshold,omitempty" pb:"6"`
	TerminationGracePeriodSeconds *int64           `json:"terminationGracePeriodSeconds,omitempty" pb:"7"`
}

// ExecAction runs a command in the container.
type ExecAction struct {
	Command []string `json:"command,omitempty" pb:"1"`
}

// HTTPGetAction performs an HTTP GET; Port is a number or a port name.
type HTTPGetAction struct {
	Path        string       `json:"path,omitempty" pb:"1"`
	Port        IntOrString  `json:"port" pb:"2"`
	Host        string       `json:"host,omitempty" pb:"3"`
	Scheme      string       `json:"scheme,omitempty" pb:"4"`
	HTTPHeaders []HTTPHeader `json:"httpHeaders,omitempty" pb:"5"`
}

// HTTPHeader is one header of an HTTPGetAction.
type HTTPHeader struct {
	Name  string `json:"name" pb:"1"`
	Value string `json:"value" pb:"2"`
}

// TCPSocketAction opens a TCP connection; Port is a number or a port name.
type TCPSocketAction struct {
	Port IntOrString `json:"port" pb:"1"`
	Host string      `json:"host,omitempty" pb:"2"`
}

// GRPCAction calls the gRPC health service. Service is serialised even
// when nil, as upstream does.
type GRPCAction struct {
	Port    int32   `json:"port" pb:"1"`
	Service *string `json:"service" pb:"2"`
}

// Volume is a named volume of a pod. Only the common sources are modelled;
// a volume of another kind (csi, ephemeral, nfs, ...) decodes with every
// source nil, and its definition survives updates through the raw merge.
type Volume struct {
	Name                  string                             `json:"name" pb:"1"`
	HostPath              *HostPathVolumeSource              `json:"hostPath,omitempty" pb:"2.1"`
	EmptyDir              *EmptyDirVolumeSource              `json:"emptyDir,omitempty" pb:"2.2"`
	Secret                *SecretVolumeSource                `json:"secret,omitempty" pb:"2.6"`
	PersistentVolumeClaim *PersistentVolumeClaimVolumeSource `json:"persistentVolumeClaim,omitempty" pb:"2.10"`
	DownwardAPI           *DownwardAPIVolumeSource           `json:"downwardAPI,omitempty" pb:"2.16"`
	ConfigMap             *ConfigMapVolumeSource             `json:"configMap,omitempty" pb:"2.19"`
	Projected             *ProjectedVolumeSource             `json:"projected,omitempty" pb:"2.26"`
}

// HostPathVolumeSource mounts a path of the node.
type HostPathVolumeSource struct {
	Path string  `json:"path" pb:"1"`
	Type *string `json:"type,omitempty" pb:"2"`
}

// EmptyDirVolumeSource is scratch space living as long as the pod.
// SizeLimit is a quantity in wire form.
type EmptyDirVolumeSource struct {
	Medium    string  `json:"medium,omitempty" pb:"1"`
	SizeLimit *string `json:"sizeLimit,omitempty" pb:"2,quantity"`
}

// SecretVolumeSource projects a Secret's keys as files.
type SecretVolumeSource struct {
	SecretName  string      `json:"secretName,omitempty" pb:"1"`
	Items       []KeyToPath `json:"items,omitempty" pb:"2"`
	DefaultMode *int32      `json:"defaultMode,omitempty" pb:"3"`
	Optional    *bool       `json:"optional,omitempty" pb:"4"`
}

// ConfigMapVolumeSource projects a ConfigMap's keys as files.
type ConfigMapVolumeSource struct {
	Name        string      `json:"name,omitempty" pb:"1.1"`
	Items       []KeyToPath `json:"items,omitempty" pb:"2"`
	DefaultMode *int32      `json:"defaultMode,omitempty" pb:"3"`
	Optional    *bool       `json:"optional,omitempty" pb:"4"`
}

// PersistentVolumeClaimVolumeSource mounts a claim of the pod's namespace.
type PersistentVolumeClaimVolumeSource struct {
	ClaimName string `json:"claimName" pb:"1"`
	ReadOnly  bool   `json:"readOnly,omitempty" pb:"2"`
}

// DownwardAPIVolumeSource exposes pod fields as files.
type DownwardAPIVolumeSource struct {
	Items       []DownwardAPIVolumeFile `json:"items,omitempty" pb:"1"`
	DefaultMode *int32                  `json:"defaultMode,omitempty" pb:"2"`
}

// DownwardAPIVolumeFile is one file of a downward API volume or projection.
type DownwardAPIVolumeFile struct {
	Path             string                 `json:"path" pb:"1"`
	FieldRef         *ObjectFieldSelector   `json:"fieldRef,omitempty" pb:"2"`
	ResourceFieldRef *ResourceFieldSelector `json:"resourceFieldRef,omitempty" pb:"3"`
	Mode             *int32                 `json:"mode,omitempty" pb:"4"`
}

// KeyToPath maps one key of a ConfigMap or Secret to a file path.
type KeyToPath struct {
	Key  string `json:"key" pb:"1"`
	Path string `json:"path" pb:"2"`
	Mode *int32 `json:"mode,omitempty" pb:"3"`
}

// ProjectedVolumeSource merges several sources into one directory; the
// apiserver adds one (kube-api-access-*) to every pod with a service account.
type ProjectedVolumeSource struct {
	Sources     []VolumeProjection `json:"sources" pb:"1"`
	DefaultMode *int32             `json:"defaultMode,omitempty" pb:"2"`
}

// VolumeProjection is one source of a projected volume. Cluster trust
// bundles and pod certificates are not modelled.
type VolumeProjection struct {
	Secret              *KeysProjection                `json:"secret,omitempty" pb:"1"`
	DownwardAPI         *DownwardAPIProjection         `json:"downwardAPI,omitempty" pb:"2"`
	ConfigMap           *KeysProjection                `json:"configMap,omitempty" pb:"3"`
	ServiceAccountToken *ServiceAccountTokenProjection `json:"serviceAccountToken,omitempty" pb:"4"`
}

// DownwardAPIProjection exposes pod fields as files of a projected volume.
type DownwardAPIProjection struct {
	Items []DownwardAPIVolumeFile `json:"items,omitempty" pb:"1"`
}

// KeysProjection projects keys of a ConfigMap or Secret (core/v1
// ConfigMapProjection and SecretProjection, identical on the wire).
type KeysProjection struct {
	Name     string      `json:"name,omitempty" pb:"1.1"`
	Items    []KeyToPath `json:"items,omitempty" pb:"2"`
	Optional *bool       `json:"optional,omitempty" pb:"4"`
}

// ServiceAccountTokenProjection projects a bound service account token.
type ServiceAccountTokenProjection struct {
	Audience          string `json:"audience,omitempty" pb:"1"`
	ExpirationSeconds *int64 `json:"expirationSeconds,omitempty" pb:"2"`
	Path              string `json:"path" pb:"3"`
}
