package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kcmlab/kcm/testenv"
)

// Shape is the population of the real-apiserver benchmark: Namespaces
// namespaces, each with Deployments Deployments of Replicas replicas. The
// pods are made by kube-controller-manager's Deployment and ReplicaSet
// controllers, so they are exactly what a cluster holds (owner
// references, pod-template-hash, the ServiceAccount admission's token
// volume, kube-controller-manager's managedFields). No kubelet and no
// scheduler run: the pods stay Pending, unbound, and nothing writes to
// them once they exist.
type Shape struct {
	Namespaces, Deployments, Replicas int
	// Small makes minimal pods (smallDeployment: one container with a
	// name and an image, no service-account token volume), about 1.7 KB
	// of JSON with managedFields, instead of the realistic ones
	// (benchDeployment, about 4.4 KB).
	Small bool
}

// Pods is how many pods the shape makes.
func (s Shape) Pods() int { return s.Namespaces * s.Deployments * s.Replicas }

// ShapeFor returns the shape used for n pods: Deployments of 1000
// replicas (one of n when n < 1000), four to a namespace when they divide
// by four, else one.
func ShapeFor(n int) (Shape, error) {
	if n <= 0 {
		return Shape{}, fmt.Errorf("bench: %d pods: want at least one", n)
	}
	replicas := min(n, 1000)
	if n%replicas != 0 {
		return Shape{}, fmt.Errorf("bench: %d pods: want fewer than 1000 or a multiple of 1000", n)
	}
	d := n / replicas
	if d%4 == 0 {
		return Shape{Namespaces: d / 4, Deployments: 4, Replicas: replicas}, nil
	}
	return Shape{Namespaces: d, Deployments: 1, Replicas: replicas}, nil
}

// populateQPS is kube-controller-manager's request rate while it makes the
// pods: high, so that the population is bound by the apiserver's speed and
// not by kube-controller-manager's default 20 qps.
const populateQPS = 2000

// Populate makes the shape's pods on cluster: namespaces bench-0..,
// their "default" ServiceAccount (which pod admission needs and no
// controller makes here), the Deployments, then kube-controller-manager
// with only the deployment and replicaset controllers until every pod
// exists, and stops it. Once it returns nothing writes to the pods.
// progress, if not nil, gets a line now and then.
func Populate(ctx context.Context, cluster *testenv.Cluster, cs kubernetes.Interface, s Shape, progress io.Writer) error {
	if progress == nil {
		progress = io.Discard
	}
	for ns := range s.Namespaces {
		name := fmt.Sprintf("bench-%d", ns)
		if err := createNamespace(ctx, cs, name); err != nil {
			return err
		}
		for d := range s.Deployments {
			dep := benchDeployment(name, fmt.Sprintf("app-%d", d), int32(s.Replicas))
			if s.Small {
				dep = smallDeployment(name, fmt.Sprintf("app-%d", d), int32(s.Replicas))
			}
			if _, err := cs.AppsV1().Deployments(name).Create(ctx, dep, metav1.CreateOptions{}); err != nil {
				return fmt.Errorf("bench: create Deployment %s/%s: %w", name, dep.Name, err)
			}
		}
	}
	began := time.Now()
	cm, err := cluster.StartKubeControllerManager(ctx, testenv.KCMOptions{
		Controllers: []string{"deployment", "replicaset"},
		Args: []string{fmt.Sprintf("--kube-api-qps=%d", populateQPS), fmt.Sprintf("--kube-api-burst=%d", populateQPS),
			"--concurrent-replicaset-syncs=10", "--concurrent-deployment-syncs=10"},
		Progress: progress,
	})
	if err != nil {
		return err
	}
	err = waitPods(ctx, cs, s.Pods(), progress, began)
	if stopErr := cm.Stop(); err == nil && stopErr != nil {
		err = fmt.Errorf("bench: stop kube-controller-manager: %w", stopErr)
	}
	if err != nil {
		return fmt.Errorf("%w (kube-controller-manager log: %s)", err, cm.LogTail(20))
	}
	return nil
}

func createNamespace(ctx context.Context, cs kubernetes.Interface, name string) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("bench: create namespace %s: %w", name, err)
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: name}}
	if _, err := cs.CoreV1().ServiceAccounts(name).Create(ctx, sa, metav1.CreateOptions{}); err != nil &&
		!apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("bench: create ServiceAccount %s/default: %w", name, err)
	}
	return nil
}

// countPods returns how many pods exist (a consistent LIST of one item;
// the rest is in remainingItemCount).
func countPods(ctx context.Context, cs kubernetes.Interface) (int, error) {
	l, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		return 0, fmt.Errorf("bench: count pods: %w", err)
	}
	n := len(l.Items)
	if l.RemainingItemCount != nil {
		n += int(*l.RemainingItemCount)
	}
	return n, nil
}

// ErrPopulate reports pods that did not all appear in time.
var ErrPopulate = errors.New("bench: pods did not all appear")

// populatePoll is how often Populate counts the pods.
const populatePoll = 2 * time.Second

func waitPods(ctx context.Context, cs kubernetes.Interface, want int, progress io.Writer, began time.Time) error {
	t := time.NewTicker(populatePoll)
	defer t.Stop()
	last := -1
	for {
		n, err := countPods(ctx, cs)
		if err != nil {
			return err
		}
		if n != last {
			fmt.Fprintf(progress, "bench: %d/%d pods after %v\n", n, want, time.Since(began).Round(time.Second))
			last = n
		}
		if n >= want {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: %d of %d: %w", ErrPopulate, n, want, ctx.Err())
		case <-t.C:
		}
	}
}

// benchDeployment is a Deployment whose pods look like a typical service's:
// labels, an annotation, one container with ports, env, resources, probes
// and a volume mount.
func benchDeployment(ns, name string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name, "tier": "backend", "team": "payments"}
	q := resource.MustParse
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels,
					Annotations: map[string]string{"prometheus.io/scrape": "true", "prometheus.io/port": "9090"}},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{
						Name:  "server",
						Image: "registry.example.com/payments/" + name + ":v1.24.3",
						Args:  []string{"--listen=:8080", "--metrics=:9090", "--log-level=info"},
						Ports: []corev1.ContainerPort{
							{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP},
							{Name: "metrics", ContainerPort: 9090, Protocol: corev1.ProtocolTCP},
						},
						Env: []corev1.EnvVar{
							{Name: "SERVICE_NAME", Value: name},
							{Name: "REGION", Value: "eu-west-1"},
							{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
							{Name: "POD_IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}},
						},
						Resources: corev1.ResourceRequirements{
							Requests: corev1.ResourceList{corev1.ResourceCPU: q("100m"), corev1.ResourceMemory: q("128Mi")},
							Limits:   corev1.ResourceList{corev1.ResourceCPU: q("500m"), corev1.ResourceMemory: q("256Mi")},
						},
						ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
							Path: "/healthz", Port: intstr.FromString("http")}}, PeriodSeconds: 5},
						VolumeMounts: []corev1.VolumeMount{{Name: "config", MountPath: "/etc/app"}},
					}},
					Volumes: []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{
						EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
				},
			},
		},
	}
}

// smallDeployment is a Deployment whose pods are as small as a pod made by
// kube-controller-manager gets: one label, one container with a name and
// an image, and no service-account token (whose projected volume and
// mount the ServiceAccount admission would add to every pod).
func smallDeployment(ns, name string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	no := false
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					AutomountServiceAccountToken: &no,
					Containers:                   []corev1.Container{{Name: "app", Image: "registry.example.com/" + name + ":v1"}},
				},
			},
		},
	}
}

// PodSize is the size of one of the cluster's pods in each encoding,
// managedFields included, as client-go's generated code encodes the pod
// it read: JSON, and the protobuf message (without the envelope).
type PodSize struct {
	Name              string
	JSON, Protobuf    int
	ManagedFieldsJSON int // the JSON of its managedFields alone
}

// MeasurePodSize reads one pod of the cluster and returns its sizes.
func MeasurePodSize(ctx context.Context, cs kubernetes.Interface) (PodSize, error) {
	l, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		return PodSize{}, fmt.Errorf("bench: read a pod: %w", err)
	}
	if len(l.Items) == 0 {
		return PodSize{}, errors.New("bench: read a pod: the cluster has none")
	}
	p := &l.Items[0]
	js, err := json.Marshal(p)
	if err != nil {
		return PodSize{}, fmt.Errorf("bench: pod to JSON: %w", err)
	}
	pb, err := p.Marshal()
	if err != nil {
		return PodSize{}, fmt.Errorf("bench: pod to protobuf: %w", err)
	}
	mf, err := json.Marshal(p.ManagedFields)
	if err != nil {
		return PodSize{}, fmt.Errorf("bench: managedFields to JSON: %w", err)
	}
	return PodSize{Name: p.Namespace + "/" + p.Name, JSON: len(js), Protobuf: len(pb), ManagedFieldsJSON: len(mf)}, nil
}

// StartPopulated starts a testenv cluster and makes s's pods in it through
// kube-controller-manager (Populate): the setup shared by the real-apiserver
// benchmarks and their tests. The clientset is unthrottled; took is the
// time Populate took (the cluster's start not included). The caller stops
// the cluster; on error nothing is left running.
func StartPopulated(ctx context.Context, s Shape, progress io.Writer) (cluster *testenv.Cluster, cs kubernetes.Interface, took time.Duration, err error) {
	cluster, err = testenv.Start(ctx, testenv.Options{Progress: progress})
	if err != nil {
		return nil, nil, 0, err
	}
	defer func() {
		if err != nil {
			cluster.Stop()
			cluster, cs = nil, nil
		}
	}()
	cfg, err := clientcmd.BuildConfigFromFlags("", cluster.KubeconfigPath())
	if err != nil {
		return nil, nil, 0, fmt.Errorf("bench: kubeconfig of the test cluster: %w", err)
	}
	cfg.QPS, cfg.Burst = -1, 0
	cs, err = kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("bench: clientset: %w", err)
	}
	if progress != nil {
		fmt.Fprintf(progress, "bench: making %d pods (%d namespaces × %d Deployments × %d replicas, small %v)\n",
			s.Pods(), s.Namespaces, s.Deployments, s.Replicas, s.Small)
	}
	began := time.Now()
	if err := Populate(ctx, cluster, cs, s, progress); err != nil {
		return nil, nil, 0, err
	}
	return cluster, cs, time.Since(began), nil
}
