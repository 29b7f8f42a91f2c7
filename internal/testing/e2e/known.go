package e2e

// KwokNoContainers is the Kind of reasons about kwok's pods having no
// containers: kwok marks a scheduled pod Running and Ready without
// pulling an image or starting a process, so a spec that reads a
// container's output, executes in it, sends it traffic, or waits for an
// image that cannot be pulled to fail cannot pass, whichever manager runs.
const KwokNoContainers = "kwok: no real containers"

// Known are the checked reasons why specs fail under both managers on a
// cluster of kwok nodes. Each was read in the spec's source and seen in
// the failure message of both runs; Compare flags an entry whose spec no
// longer fails under both (Row.Stale), so the list cannot silently outlive
// its reason.
var Known = []Reason{
	{
		Spec: "[sig-apps] ReplicaSet should serve a basic image on each replica with a public image",
		Kind: KwokNoContainers,
		Text: "the spec GETs each replica through kube-apiserver's pods/proxy and expects the agnhost serve-hostname " +
			"server in it to answer with the pod's name (apps/replica_set.go, testReplicaSetServeImageOrFail); a kwok " +
			"pod has an IP but no server behind it, so the GET fails",
	},
	{
		Spec: "[sig-apps] Deployment deployment should support proportional scaling",
		Kind: KwokNoContainers,
		Text: "the spec updates the Deployment to the image webserver:404, which a kubelet can never pull, to leave the " +
			"rollout stuck half-way with the first ReplicaSet at 8 available replicas (apps/deployment.go, " +
			"testProportionalScalingDeployment); kwok makes the new pods Running and Ready without pulling anything, so " +
			"the rollout completes, the first ReplicaSet scales to 0 and never shows 8 available",
	},
}
