package fidelity

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"sort"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/randfill"
)

// Generator makes random Deployments: k8s.io/api values filled at random,
// some of their parts then emptied, and their JSON with members no Go
// type models. One Generator is one reproducible stream for its seed.
type Generator struct {
	r      *rand.Rand
	filler *randfill.Filler
	// Empty is the chance that a filled pointer, slice or map is made
	// empty instead (a pointer to an empty struct or a zero scalar, an
	// empty slice or map): the shapes issue 25 found lost.
	Empty float64
	// Unknown is the chance that a JSON object gets a member that no Go
	// type models.
	Unknown float64
}

// NewGenerator returns a Generator whose stream is fixed by seed.
func NewGenerator(seed int64) *Generator {
	r := rand.New(rand.NewSource(seed))
	f := randfill.NewWithSeed(seed).NilChance(0.55).NumElements(0, 2).MaxDepth(12).Funcs(
		fillObjectMeta, fillQuantity, fillIntOrString, fillTime, fillString,
	)
	return &Generator{r: r, filler: f, Empty: 0.25, Unknown: 0.05}
}

// Deployment returns a random Deployment named name in namespace ns, with
// the identity and metadata the apiserver gives a stored object.
func (g *Generator) Deployment(ns, name string) *appsv1.Deployment {
	d := &appsv1.Deployment{}
	g.filler.Fill(&d.Spec)
	g.filler.Fill(&d.Status)
	g.empty(reflect.ValueOf(&d.Spec).Elem(), 0)
	g.empty(reflect.ValueOf(&d.Status).Elem(), 0)
	g.filler.Fill(&d.ObjectMeta)
	d.TypeMeta = metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"}
	d.Name, d.Namespace, d.UID = name, ns, types.UID("uid-"+typesUID(g.r))
	d.GenerateName, d.DeletionTimestamp, d.DeletionGracePeriodSeconds = "", nil, nil
	d.ResourceVersion = fmt.Sprint(1 + g.r.Intn(1<<20))
	d.Generation = int64(1 + g.r.Intn(100))
	d.CreationTimestamp = metav1.NewTime(time.Unix(1700000000+g.r.Int63n(1<<24), 0).UTC())
	return d
}

// Template returns a random pod template.
func (g *Generator) Template() *corev1.PodTemplateSpec {
	t := &corev1.PodTemplateSpec{}
	g.filler.Fill(t)
	g.empty(reflect.ValueOf(t).Elem(), 0)
	return t
}

// JSON encodes v as the apiserver encodes what it serves (from the Go
// value), then adds members no Go type models at random places.
func (g *Generator) JSON(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if g.Unknown == 0 {
		return b, nil
	}
	var m any
	if err := unmarshalNumbers(b, &m); err != nil {
		return nil, err
	}
	g.addUnknown(m, reflect.TypeOf(v), 0)
	return json.Marshal(m)
}

// unknownValues are what a member no one models holds.
var unknownValues = []func() any{
	func() any { return map[string]any{} },
	func() any { return []any{} },
	func() any { return json.Number("0") },
	func() any { return false },
	func() any { return "" },
	func() any { return nil },
	func() any { return map[string]any{"a": []any{json.Number("1"), nil, map[string]any{}}} },
}

// addUnknown walks the JSON value v of Go type t and gives the objects
// that are structs (not maps), with chance g.Unknown each, a member named
// "kcmUnknown<depth>" with a random JSON value. Keys are visited in order,
// so the stream stays reproducible.
func (g *Generator) addUnknown(v any, t reflect.Type, depth int) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if opaque(t) {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		switch t.Kind() {
		case reflect.Map:
			for _, k := range keys {
				g.addUnknown(x[k], t.Elem(), depth+1)
			}
		case reflect.Struct:
			fields := jsonFields(t)
			for _, k := range keys {
				if ft, ok := fields[k]; ok {
					g.addUnknown(x[k], ft, depth+1)
				}
			}
			if g.r.Float64() < g.Unknown {
				x[fmt.Sprintf("kcmUnknown%d", depth)] = unknownValues[g.r.Intn(len(unknownValues))]()
			}
		}
	case []any:
		if t.Kind() == reflect.Slice {
			for _, e := range x {
				g.addUnknown(e, t.Elem(), depth+1)
			}
		}
	}
}

// jsonFields maps the JSON names of struct type t's members to their
// types, members of inlined (embedded or ",inline") structs included.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if (f.Anonymous && name == "") || strings.Contains(opts, "inline") {
			for k, v := range jsonFields(f.Type) {
				out[k] = v
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// empty walks v and, with chance g.Empty at each filled pointer, slice
// or map, empties it: a pointer to a struct points at the struct's zero
// value, a pointer to a scalar at the scalar's zero, a slice or map
// becomes empty but not nil. What is not emptied is walked further.
// Types with their own JSON form (quantities, times, IntOrStrings) are
// left as filled.
func (g *Generator) empty(v reflect.Value, depth int) {
	if depth > 40 || opaque(v.Type()) {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		if g.r.Float64() < g.Empty && !opaque(v.Type().Elem()) {
			v.Set(reflect.New(v.Type().Elem()))
			return
		}
		g.empty(v.Elem(), depth+1)
	case reflect.Slice:
		if v.IsNil() || v.Type().Elem().Kind() == reflect.Uint8 {
			return
		}
		if g.r.Float64() < g.Empty {
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
			return
		}
		for i := 0; i < v.Len(); i++ {
			g.empty(v.Index(i), depth+1)
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		if g.r.Float64() < g.Empty {
			v.Set(reflect.MakeMap(v.Type()))
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				g.empty(v.Field(i), depth+1)
			}
		}
	}
}

// opaque reports types whose JSON is their own (a string or a number),
// which emptying would only make invalid.
func opaque(t reflect.Type) bool {
	switch t {
	case reflect.TypeFor[resource.Quantity](), reflect.TypeFor[metav1.Time](), reflect.TypeFor[metav1.MicroTime](),
		reflect.TypeFor[intstr.IntOrString](), reflect.TypeFor[metav1.Duration]():
		return true
	}
	return false
}

// fillObjectMeta fills what a pod template's or a stored object's
// metadata carries: labels, annotations, finalizers and a name now and
// then — never managedFields (a format of its own) or timestamps.
func fillObjectMeta(m *metav1.ObjectMeta, c randfill.Continue) {
	*m = metav1.ObjectMeta{}
	if c.Intn(4) > 0 {
		m.Labels = map[string]string{"app": "a" + c.String(4)}
		for i := c.Intn(3); i > 0; i-- {
			m.Labels["l"+c.String(3)] = c.String(6)
		}
	}
	if c.Intn(2) == 0 {
		m.Annotations = map[string]string{}
		for i := c.Intn(3); i >= 0; i-- {
			m.Annotations["example.com/"+c.String(4)] = c.String(12)
		}
	}
	if c.Intn(8) == 0 {
		m.Finalizers = []string{"example.com/f" + c.String(3)}
	}
	if c.Intn(8) == 0 {
		m.Name = "n" + c.String(5)
	}
}

// quantities are spellings the apiserver writes back as they are
// (canonical forms).
var quantities = []string{"0", "1", "100m", "250m", "1500m", "64Mi", "1Gi", "2G", "10k", "1e3", "128974848", "5"}

func fillQuantity(q *resource.Quantity, c randfill.Continue) {
	*q = resource.MustParse(quantities[c.Intn(len(quantities))])
	_ = q.String() // cache the canonical form, as a decoded quantity has it
}

func fillIntOrString(v *intstr.IntOrString, c randfill.Continue) {
	if c.Intn(2) == 0 {
		*v = intstr.FromInt32(c.Int31n(100))
		return
	}
	*v = intstr.FromString(fmt.Sprintf("%d%%", c.Intn(101)))
}

func fillTime(t *metav1.Time, c randfill.Continue) {
	if c.Intn(3) == 0 {
		*t = metav1.Time{}
		return
	}
	*t = metav1.NewTime(time.Unix(1600000000+c.Int63n(1<<28), 0).UTC())
}

// fillString writes short strings of printable ASCII, quotes and
// backslashes among them, and now and then a non-ASCII letter.
func fillString(s *string, c randfill.Continue) {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789-._/:= \"\\"
	n := c.Intn(10)
	b := make([]rune, n)
	for i := range b {
		if c.Intn(30) == 0 {
			b[i] = []rune("éß☃😀")[c.Intn(4)]
			continue
		}
		b[i] = rune(alphabet[c.Intn(len(alphabet))])
	}
	*s = string(b)
}

func typesUID(r *rand.Rand) string { return fmt.Sprintf("%08x-%04x", r.Uint32(), r.Intn(1<<16)) }

// jsonMarshal encodes v as encoding/json does (what k8s.io/api's types
// are written with).
func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

// unmarshalNumbers decodes JSON keeping numbers as json.Number.
func unmarshalNumbers(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	return d.Decode(v)
}

// jsonNumber is n as decoded JSON (numbers as json.Number).
func jsonNumber[N int | int32 | int64](n N) json.Number { return json.Number(fmt.Sprint(n)) }

// Perturb returns a copy of t with one random change of the kinds that
// matter to template equality: a pointer set to nil, or from nil to an
// empty value; a slice or map between nil and empty, or given one more
// zero element; a string, integer or bool changed; the hash label added.
// Some of these Kubernetes holds equal (a nil and an empty slice), others
// not (a nil and an empty pointer): CheckCompare asks both sides.
func (g *Generator) Perturb(t *corev1.PodTemplateSpec) *corev1.PodTemplateSpec {
	out := t.DeepCopy()
	if g.r.Intn(10) == 0 {
		if out.Labels == nil {
			out.Labels = map[string]string{}
		}
		out.Labels["pod-template-hash"] = "h" + fmt.Sprint(g.r.Intn(1000))
		return out
	}
	var sites []reflect.Value
	collectSites(reflect.ValueOf(out).Elem(), &sites, 0)
	if len(sites) == 0 {
		return out
	}
	v := sites[g.r.Intn(len(sites))]
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		} else if g.r.Intn(2) == 0 || v.Elem().Kind() != reflect.Struct {
			v.Set(reflect.Zero(v.Type()))
		} else {
			v.Set(reflect.New(v.Type().Elem())) // a filled struct emptied
		}
	case reflect.Slice:
		switch {
		case v.IsNil():
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		case v.Len() == 0:
			v.Set(reflect.Zero(v.Type()))
		default:
			v.Set(reflect.Append(v, reflect.Zero(v.Type().Elem())))
		}
	case reflect.Map:
		if v.IsNil() {
			v.Set(reflect.MakeMap(v.Type()))
		} else {
			v.Set(reflect.Zero(v.Type()))
		}
	case reflect.String:
		v.SetString(v.String() + "x")
	case reflect.Int, reflect.Int32, reflect.Int64:
		v.SetInt(v.Int() + 1)
	case reflect.Bool:
		v.SetBool(!v.Bool())
	}
	return out
}

// collectSites appends every settable place under v that Perturb can
// change, except inside types with their own JSON form.
func collectSites(v reflect.Value, sites *[]reflect.Value, depth int) {
	if depth > 40 || opaque(v.Type()) {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if t := v.Type().Elem(); t == reflect.TypeFor[metav1.Time]() || t == reflect.TypeFor[metav1.MicroTime]() {
			return // a pointer to a zero time is null in JSON, as nil is: no JSON tells them apart
		}
		*sites = append(*sites, v)
		if !v.IsNil() && !opaque(v.Type().Elem()) {
			collectSites(v.Elem(), sites, depth+1)
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return
		}
		*sites = append(*sites, v)
		for i := 0; i < v.Len(); i++ {
			collectSites(v.Index(i), sites, depth+1)
		}
	case reflect.Map:
		*sites = append(*sites, v)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				collectSites(v.Field(i), sites, depth+1)
			}
		}
	case reflect.String, reflect.Int, reflect.Int32, reflect.Int64, reflect.Bool:
		*sites = append(*sites, v)
	}
}
