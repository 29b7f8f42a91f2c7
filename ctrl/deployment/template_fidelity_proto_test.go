package deployment

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/api/protocodec"
)

// The rule of template_fidelity_test.go on protobuf: a template read as
// protobuf is its PodTemplateSpec message, copied byte for byte into the
// ReplicaSet (the hash label added) and back into the Deployment on a
// rollback (the label taken out), and compared by its bytes, so fields
// kcm does not model and empty messages (a container's securityContext
// {}) are part of the template.

// pbBytes is a length-delimited field: num, payload.
func pbBytes(num int, p []byte) []byte {
	b := []byte{byte(num<<3 | 2)}
	if num > 15 {
		b = []byte{byte(num<<3|2) | 0x80, byte(num >> 4)}
	}
	return append(append(b, byte(len(p))), p...)
}

// protoOpts says which fields kcm does not model protoTemplate adds.
type protoOpts struct {
	image          string
	noContainerSC  bool // no container securityContext {}
	noPodSC        bool // no pod securityContext {}
	noDNSConfig    bool // no dnsConfig
	emptyDNSConfig bool // dnsConfig {} instead of its options
	noServiceLinks bool // enableServiceLinks (modelled) unset instead of false
}

// protoTemplate is emptyObjectsTemplate as kube-apiserver sends it in
// protobuf: kcm's struct of it encoded (upstream's encoding of the
// fields kcm models), plus, where upstream's encoding puts them, fields
// kcm does not model: the pod's securityContext {} (PodSpec 14) and
// dnsConfig (26), the container's lifecycle (12: preStop sleep 0) and
// securityContext {} (15).
func protoTemplate(t testing.TB, o protoOpts) []byte {
	t.Helper()
	js := emptyObjectsTemplate
	if o.image != "" {
		js = strings.Replace(js, `"nginx:1"`, `"`+o.image+`"`, 1)
	}
	if o.noServiceLinks {
		js = strings.Replace(js, `"enableServiceLinks":false,`, ``, 1)
	}
	d := compactDecode[api.Deployment](t, deploymentJSON(js))
	msg, err := protocodec.Marshal(&d.Spec.Template)
	if err != nil {
		t.Fatal(err)
	}
	set := func(m, p []byte, path ...int32) []byte {
		out, err := protocodec.SetField(m, p, path...)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	c, _, err := protocodec.Field(msg, 2, 2) // the one container
	if err != nil {
		t.Fatal(err)
	}
	c = set(c, pbBytes(2, pbBytes(4, []byte{0x08, 0x00})), 12) // lifecycle.preStop.sleep.seconds 0
	if !o.noContainerSC {
		c = set(c, nil, 15)
	}
	msg = set(msg, c, 2, 2)
	if !o.noPodSC {
		msg = set(msg, nil, 2, 14)
	}
	switch {
	case o.emptyDNSConfig:
		msg = set(msg, nil, 2, 26)
	case !o.noDNSConfig:
		msg = set(msg, pbBytes(3, append(pbBytes(1, []byte("ndots")), pbBytes(2, []byte("2"))...)), 2, 26)
	}
	return msg
}

// protoObject decodes the message of typed with spec.template replaced by
// tmpl as the informer caches a typed object read as protobuf.
func protoObject[S any, P api.TypedPtr[S]](t testing.TB, typed P, tmpl []byte) P {
	t.Helper()
	msg, err := protocodec.Marshal(typed)
	if err != nil {
		t.Fatal(err)
	}
	if msg, err = protocodec.SetField(msg, tmpl, 2, 3); err != nil {
		t.Fatal(err)
	}
	p, ok := decode.AsProto(decode.StrippingManagedFields(decode.Compact[S, P]()))
	if !ok {
		t.Fatalf("%T is not read as protobuf", typed)
	}
	obj, err := p.DecodeProto(*typed.GetTypeMeta(), msg)
	if err != nil {
		t.Fatal(err)
	}
	if !obj.GetObjectMeta().IsProto() {
		t.Fatal("not held as protobuf")
	}
	return obj
}

// protoDeployment is web (deploymentJSON) read as protobuf, with template
// tmpl; edit changes its JSON first.
func protoDeployment(t testing.TB, tmpl []byte, edit func(string) string) *api.Deployment {
	t.Helper()
	js := deploymentJSON(emptyObjectsTemplate)
	if edit != nil {
		js = edit(js)
	}
	return protoObject(t, compactDecode[api.Deployment](t, js), tmpl)
}

// protoReplicaSet is web-<hash> (replicaSetJSON) read as protobuf, its
// template tmpl with the hash label added.
func protoReplicaSet(t *testing.T, hash string, rev int, replicas int32, tmpl []byte) *api.ReplicaSet {
	t.Helper()
	labelled, err := templateLabel(tmpl, PodTemplateHashLabel, hash, false)
	if err != nil {
		t.Fatal(err)
	}
	js := replicaSetJSON(hash, rev, replicas, emptyObjectsTemplate)
	return protoObject(t, compactDecode[api.ReplicaSet](t, js), labelled)
}

// templateMessage is spec.template of a message.
func templateMessage(t *testing.T, msg []byte) []byte {
	t.Helper()
	tm, found, err := protocodec.Field(msg, 2, 3)
	if err != nil || !found {
		t.Fatalf("no spec.template (%v)", err)
	}
	return tm
}

// TestNewReplicaSetCopiesTheTemplateAsWrittenProto: the ReplicaSet made
// from a Deployment read as protobuf is a protobuf message whose
// spec.template is the Deployment's template message byte for byte, the
// hash label added as upstream's Marshal adds it; the rest of it is what
// the JSON path writes.
func TestNewReplicaSetCopiesTheTemplateAsWrittenProto(t *testing.T) {
	tmpl := protoTemplate(t, protoOpts{})
	d := protoDeployment(t, tmpl, nil)
	body, err := NewReplicaSetFor(d, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !body.IsProto() {
		t.Fatal("the ReplicaSet of a Deployment read as protobuf is not a protobuf body")
	}
	msg := body.Proto()
	got := templateMessage(t, msg)
	hash := body.Labels[PodTemplateHashLabel]
	if hash == "" {
		t.Fatalf("no hash label: %v", body.Labels)
	}
	want, err := templateLabel(tmpl, PodTemplateHashLabel, hash, false)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the ReplicaSet's template is not the Deployment's:\n got %x\nwant %x", got, want)
	}
	back, err := withoutHashProto(got)
	if err != nil || !bytes.Equal(back, tmpl) {
		t.Fatalf("without its label the template is not the Deployment's (%v)", err)
	}
	// The label, as upstream's Marshal writes the label map, on a template
	// kcm models whole.
	var typed api.PodTemplateSpec
	if err := protocodec.Unmarshal(got, &typed); err != nil {
		t.Fatal(err)
	}
	if typed.Labels["app"] != "web" || typed.Labels[PodTemplateHashLabel] != hash {
		t.Fatalf("template labels %v", typed.Labels)
	}
	var rs api.ReplicaSet
	if err := protocodec.Unmarshal(msg, &rs); err != nil {
		t.Fatal(err)
	}
	if rs.Name != "web-"+hash || *rs.Spec.Replicas != 3 || rs.Spec.Selector.MatchLabels[PodTemplateHashLabel] != hash ||
		!rs.IsControlledBy("uid-web") || rs.Annotations[RevisionAnnotation] != "1" {
		t.Fatalf("ReplicaSet %+v", rs.ObjectMeta)
	}
	// Replicas 0 is written (a value, not an absence).
	zero, err := NewReplicaSetFor(d, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if spec, _, _ := protocodec.Field(zero.Proto(), 2); !bytes.HasPrefix(spec, []byte{0x08, 0x00}) {
		t.Fatalf("replicas 0 not written: spec %x", spec[:min(8, len(spec))])
	}
}

// TestTemplatesWithEmptyObjectsMatchProto: TestTemplatesWithEmptyObjectsMatch
// on protobuf: a ReplicaSet whose template message is the Deployment's
// (hash label aside) is current; one lacking an empty message or a field
// kcm does not model is not.
func TestTemplatesWithEmptyObjectsMatchProto(t *testing.T) {
	dTmpl := protoTemplate(t, protoOpts{})
	d := protoDeployment(t, dTmpl, nil)
	dt, err := templateOf(d, &d.Spec.Template)
	if err != nil || dt.form != formProto {
		t.Fatalf("Deployment template %v (%v)", dt.form, err)
	}
	for _, tc := range []struct {
		name    string
		rs      protoOpts
		current bool
	}{
		{"same template", protoOpts{}, true},
		{"container securityContext dropped", protoOpts{noContainerSC: true}, false},
		{"pod securityContext dropped", protoOpts{noPodSC: true}, false},
		{"unmodelled field dropped", protoOpts{noDNSConfig: true}, false},
		{"empty unmodelled message", protoOpts{emptyDNSConfig: true}, false},
		{"explicit false dropped", protoOpts{noServiceLinks: true}, false},
		{"other image", protoOpts{image: "nginx:2"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := protoReplicaSet(t, "5d8f9c7b6", 1, 3, protoTemplate(t, tc.rs))
			rt, err := templateOf(rs, &rs.Spec.Template)
			if err != nil {
				t.Fatal(err)
			}
			got, err := findNewReplicaSet(dt, []owned{{rs: rs, template: rt}})
			if err != nil {
				t.Fatal(err)
			}
			if (got != nil) != tc.current {
				t.Errorf("found as current: %v, want %v", got != nil, tc.current)
			}
		})
	}
}

// TestTemplateEncodingsMix: a template read as JSON and one read as
// protobuf are not compared (ErrMixedEncodings); a template built in
// code compares with either, through the encoding of the other.
func TestTemplateEncodingsMix(t *testing.T) {
	plain := `{"metadata":{"creationTimestamp":null,"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx:1","resources":{}}]}}`
	jsonD := compactDecode[api.Deployment](t, deploymentJSON(plain))
	typedT := jsonD.Spec.Template
	codeRS := &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Name: "web-x", Namespace: "ns"},
		Spec: api.ReplicaSetSpec{Template: typedT}}
	codeRS.Spec.Template.Spec.Containers = slices.Clone(typedT.Spec.Containers)
	codeRS.Spec.Template.Labels = map[string]string{"app": "web", PodTemplateHashLabel: "x"}
	pbTmpl, err := protocodec.Marshal(&typedT)
	if err != nil {
		t.Fatal(err)
	}
	protoD := protoDeployment(t, pbTmpl, func(string) string { return deploymentJSON(plain) })
	of := func(obj api.Object, tp *api.PodTemplateSpec) podTemplate {
		pt, err := templateOf(obj, tp)
		if err != nil {
			t.Fatal(err)
		}
		return pt
	}
	jt, pt, ct := of(jsonD, &jsonD.Spec.Template), of(protoD, &protoD.Spec.Template), of(codeRS, &codeRS.Spec.Template)
	if _, err := jt.equalIgnoreHash(pt); !errors.Is(err, ErrMixedEncodings) {
		t.Errorf("JSON against protobuf: %v", err)
	}
	if _, err := findNewReplicaSet(pt, []owned{{rs: codeRS, template: jt}}); !errors.Is(err, ErrMixedEncodings) {
		t.Errorf("findNewReplicaSet of mixed encodings: %v", err)
	}
	for name, other := range map[string]podTemplate{"JSON": jt, "protobuf": pt} {
		if eq, err := ct.equalIgnoreHash(other); err != nil || !eq {
			t.Errorf("built in code against %s: %v %v", name, eq, err)
		}
	}
	codeRS.Spec.Template.Spec.Containers[0].Image = "nginx:2"
	ct = of(codeRS, &codeRS.Spec.Template)
	for name, other := range map[string]podTemplate{"JSON": jt, "protobuf": pt} {
		if eq, err := ct.equalIgnoreHash(other); err != nil || eq {
			t.Errorf("changed, built in code against %s: %v %v", name, eq, err)
		}
	}
}

// TestTemplateLabelIsMarshal: adding and removing a label on a template
// message gives the bytes Marshal gives for the template with that label
// map — entries in key order, the labels field gone with its last entry.
func TestTemplateLabelIsMarshal(t *testing.T) {
	for _, labels := range []map[string]string{nil, {"app": "web"}, {"a": "1", "z": "2"}, {"pod-template-hash": "old"}} {
		tp := api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: labels}, Spec: api.PodSpec{Containers: []api.Container{{Name: "c"}}}}
		msg, err := protocodec.Marshal(&tp)
		if err != nil {
			t.Fatal(err)
		}
		with := api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: withLabel(labels, PodTemplateHashLabel, "h")}, Spec: tp.Spec}
		want, _ := protocodec.Marshal(&with)
		got, err := templateLabel(msg, PodTemplateHashLabel, "h", false)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%v: label added: %x (%v), want %x", labels, got, err, want)
		}
		without := tp
		without.Labels = withLabel(labels, "x", "x")
		delete(without.Labels, "x")
		delete(without.Labels, PodTemplateHashLabel)
		want, _ = protocodec.Marshal(&without)
		if got, err = withoutHashProto(got); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%v: label removed: %x (%v), want %x", labels, got, err, want)
		}
	}
}

// TestComputeHashProto: the hash of a template read as protobuf is its
// canonical message's: the hash label does not change it, collisionCount
// and any other byte do.
func TestComputeHashProto(t *testing.T) {
	tmpl := protoTemplate(t, protoOpts{})
	h, err := ComputeHashProto(tmpl, nil)
	if err != nil {
		t.Fatal(err)
	}
	labelled, _ := templateLabel(tmpl, PodTemplateHashLabel, "zzz", false)
	if h2, _ := ComputeHashProto(labelled, nil); h2 != h {
		t.Errorf("the hash label changes the hash: %s, %s", h, h2)
	}
	one := int32(1)
	if h2, _ := ComputeHashProto(tmpl, &one); h2 == h {
		t.Error("collisionCount does not change the hash")
	}
	if h2, _ := ComputeHashProto(protoTemplate(t, protoOpts{noContainerSC: true}), nil); h2 == h {
		t.Error("an empty securityContext does not change the hash")
	}
	if _, err := ComputeHashProto([]byte{0x0a, 0x05}, nil); !errors.Is(err, ErrTemplate) {
		t.Errorf("malformed template: %v", err)
	}
}

// TestRollbackRestoresTheTemplateAsWrittenProto: rolling back a
// Deployment read as protobuf writes its message with the revision's
// template message, less the hash label, byte for byte, and every other
// field as read.
func TestRollbackRestoresTheTemplateAsWrittenProto(t *testing.T) {
	current := protoTemplate(t, protoOpts{image: "nginx:2"})
	old := protoTemplate(t, protoOpts{})
	d := protoDeployment(t, current, func(js string) string {
		return strings.Replace(js, `"generation":1,`,
			`"generation":1,"annotations":{"deployment.kubernetes.io/revision":"2","deprecated.deployment.rollback.to":"1"},`, 1)
	})
	rs := protoReplicaSet(t, "one", 1, 0, old)
	rt, err := templateOf(rs, &rs.Spec.Template)
	if err != nil {
		t.Fatal(err)
	}
	out, err := rollbackMessage(d, &rollbackSource{rs: rs, template: rt})
	if err != nil {
		t.Fatal(err)
	}
	if got := templateMessage(t, out); !bytes.Equal(got, old) {
		t.Fatalf("the rolled-back template is not revision 1's:\n got %x\nwant %x", got, old)
	}
	orig, _ := d.OriginalProto()
	if back, err := protocodec.SetField(out, current, 2, 3); err != nil || !bytes.Equal(back, orig) {
		t.Fatalf("the rollback changed more than the template (%v)", err)
	}
	// A ReplicaSet read as JSON has no message to copy.
	jsonRS := compactDecode[api.ReplicaSet](t, replicaSetJSON("one", 1, 0, emptyObjectsTemplate))
	jt, err := templateOf(jsonRS, &jsonRS.Spec.Template)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rollbackMessage(d, &rollbackSource{rs: jsonRS, template: jt}); !errors.Is(err, ErrMixedEncodings) {
		t.Fatalf("rollback of a protobuf Deployment to a JSON template: %v", err)
	}
}
