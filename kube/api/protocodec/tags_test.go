package protocodec

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

// upstreamField is one line of testdata/pbtags.txt: a JSON member of a
// k8s.io/api type with its protobuf field path, wire type and Go type.
type upstreamField struct{ path, wire, goType string }

// loadUpstream reads testdata/pbtags.txt, which testdata/pbgen/tags.go.txt
// prints from the protobuf struct tags of k8s.io/api and
// k8s.io/apimachinery v0.37.2.
func loadUpstream(t *testing.T) map[string]map[string]upstreamField {
	t.Helper()
	f, err := os.Open("testdata/pbtags.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	up := map[string]map[string]upstreamField{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		w := strings.Fields(line)
		if len(w) != 6 {
			t.Fatalf("bad line %q", line)
		}
		if up[w[0]] == nil {
			up[w[0]] = map[string]upstreamField{}
		}
		up[w[0]][w[1]] = upstreamField{path: w[2], wire: w[3], goType: w[5]}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return up
}

// protoRoots are the kinds kcm models that have a protobuf form, with
// their k8s.io/api types.
var protoRoots = []struct {
	typ      reflect.Type
	upstream string
}{
	{reflect.TypeFor[api.Pod](), "core/v1.Pod"},
	{reflect.TypeFor[api.Namespace](), "core/v1.Namespace"},
	{reflect.TypeFor[api.ServiceAccount](), "core/v1.ServiceAccount"},
	{reflect.TypeFor[api.ConfigMap](), "core/v1.ConfigMap"},
	{reflect.TypeFor[api.Secret](), "core/v1.Secret"},
	{reflect.TypeFor[api.Node](), "core/v1.Node"},
	{reflect.TypeFor[api.Service](), "core/v1.Service"},
	{reflect.TypeFor[api.Endpoints](), "core/v1.Endpoints"},
	{reflect.TypeFor[api.CoreEvent](), "core/v1.Event"},
	{reflect.TypeFor[api.PersistentVolumeClaim](), "core/v1.PersistentVolumeClaim"},
	{reflect.TypeFor[api.ResourceQuota](), "core/v1.ResourceQuota"},
	{reflect.TypeFor[api.EndpointSlice](), "discovery/v1.EndpointSlice"},
	{reflect.TypeFor[api.ReplicaSet](), "apps/v1.ReplicaSet"},
	{reflect.TypeFor[api.Deployment](), "apps/v1.Deployment"},
	{reflect.TypeFor[api.StatefulSet](), "apps/v1.StatefulSet"},
	{reflect.TypeFor[api.ControllerRevision](), "apps/v1.ControllerRevision"},
	{reflect.TypeFor[api.Lease](), "coordination/v1.Lease"},
	{reflect.TypeFor[api.ResourceClaim](), "resource/v1.ResourceClaim"},
	{reflect.TypeFor[api.DeviceClass](), "resource/v1.DeviceClass"},
}

// upstreamKinds maps the element type names of pbtags.txt that are not
// structs walked field by field to the kind kcm must encode them as.
var upstreamKinds = map[string]kind{
	"string": kString, "bool": kBool, "int32": kInt32, "int64": kInt64, "[]byte": kBytes,
	"meta/v1.Time": kTime, "meta/v1.MicroTime": kMicroTime, "util/intstr.IntOrString": kIntOrString,
	"runtime.RawExtension": kRawExt, "api/resource.Quantity": kQuantity,
}

// shape splits an upstream Go type into its cardinality and element type.
func shape(goType string) (card, string) {
	switch {
	case strings.HasPrefix(goType, "*"):
		return cPtr, goType[1:]
	case strings.HasPrefix(goType, "[]") && goType != "[]byte":
		return cSlice, goType[2:]
	case strings.HasPrefix(goType, "map[string]"):
		return cMap, strings.TrimPrefix(goType, "map[string]")
	}
	return cOne, goType
}

// TestTagsMatchUpstream walks every kind kcm models alongside its
// k8s.io/api type and checks each JSON member of kcm's structs: its pb tag
// is the upstream field path (absent exactly where upstream's member is not
// in the message, like TypeMeta's), and its Go type encodes with
// upstream's cardinality, wire type and element kind (Time, Quantity,
// IntOrString, ...).
func TestTagsMatchUpstream(t *testing.T) {
	up := loadUpstream(t)
	seen := map[string]bool{}
	var walk func(kt reflect.Type, ut string)
	walk = func(kt reflect.Type, ut string) {
		key := kt.String() + "=" + ut
		if seen[key] {
			return
		}
		seen[key] = true
		fields, ok := up[ut]
		if !ok {
			t.Errorf("%v: no upstream type %s in pbtags.txt", kt, ut)
			return
		}
		for i := 0; i < kt.NumField(); i++ {
			sf := kt.Field(i)
			jsonName, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
			tag := tagOf(kt, i)
			if sf.Anonymous && jsonName == "" {
				if tag != "" {
					t.Errorf("%v.%s: inline embedded field with pb tag %q", kt, sf.Name, tag)
				}
				if sf.Type.Kind() == reflect.Struct {
					for j := 0; j < sf.Type.NumField(); j++ {
						name, _, _ := strings.Cut(sf.Type.Field(j).Tag.Get("json"), ",")
						if u, ok := fields[name]; !ok || u.path != "-" {
							t.Errorf("%v.%s.%s: json %q is in upstream's %s message (%+v)", kt, sf.Name, sf.Type.Field(j).Name, name, ut, u)
						}
					}
				}
				continue
			}
			if !sf.IsExported() || jsonName == "" || jsonName == "-" {
				if tag != "" {
					t.Errorf("%v.%s: pb tag %q on a field without a json name", kt, sf.Name, tag)
				}
				continue
			}
			u, ok := fields[jsonName]
			if !ok {
				t.Errorf("%v.%s: json %q is no member of upstream %s", kt, sf.Name, jsonName, ut)
				continue
			}
			if u.path == "-" {
				if tag != "" {
					t.Errorf("%v.%s: pb tag %q, but upstream's %s.%s is not in the message", kt, sf.Name, tag, ut, jsonName)
				}
				continue
			}
			if tag == "" {
				t.Errorf("%v.%s: json %q has no pb tag; upstream's field path is %s", kt, sf.Name, jsonName, u.path)
				continue
			}
			numbers, opts, _ := strings.Cut(tag, ",")
			if numbers != u.path {
				t.Errorf("%v.%s: pb tag %q, upstream %s.%s is field %s", kt, sf.Name, tag, ut, jsonName, u.path)
			}
			f, err := compileField(sf, i, opts == "quantity", map[reflect.Type]*message{})
			if err != nil {
				t.Errorf("%v.%s: %v", kt, sf.Name, err)
				continue
			}
			uc, elem := shape(u.goType)
			if f.card != uc {
				t.Errorf("%v.%s: cardinality %d, upstream %s is %s", kt, sf.Name, f.card, jsonName, u.goType)
			}
			wire := "bytes"
			if f.card != cMap && f.kind.wireOf() == wireVarint {
				wire = "varint"
			}
			if wire != u.wire {
				t.Errorf("%v.%s: wire type %s, upstream %s", kt, sf.Name, wire, u.wire)
			}
			if k, ok := upstreamKinds[elem]; ok {
				if f.kind != k {
					t.Errorf("%v.%s: kind %d, upstream element %s wants %d", kt, sf.Name, f.kind, elem, k)
				}
				continue
			}
			if f.kind != kMessage {
				t.Errorf("%v.%s: kind %d, upstream element %s is a message", kt, sf.Name, f.kind, elem)
				continue
			}
			et := sf.Type
			for et.Kind() == reflect.Pointer || et.Kind() == reflect.Slice {
				et = et.Elem()
			}
			walk(et, elem)
		}
	}
	for _, r := range protoRoots {
		walk(r.typ, r.upstream)
		if _, err := messageOf(r.typ); err != nil {
			t.Errorf("%v: %v", r.typ, err)
		}
	}
	if len(seen) < 80 {
		t.Errorf("walked %d struct types; the walk is broken", len(seen))
	}
	// Every struct of package api with pb tags must have been checked: a
	// kind missing from protoRoots would otherwise escape.
	walked := map[string]bool{}
	for key := range seen {
		kt, _, _ := strings.Cut(key, "=")
		walked[strings.TrimPrefix(kt, "api.")] = true
	}
	for _, name := range taggedStructs(t) {
		if !walked[name] {
			t.Errorf("api.%s has pb tags but is reachable from no kind of protoRoots", name)
		}
	}
	t.Logf("checked %d kcm struct types against k8s.io/api", len(seen))
}

// taggedStructs lists the structs of package api's types_*.go files that
// have a field with a pb tag.
func taggedStructs(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../types_*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no types files: %v", err)
	}
	var names []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				return false
			}
			for _, fl := range st.Fields.List {
				if fl.Tag != nil && strings.Contains(fl.Tag.Value, `pb:"`) {
					names = append(names, ts.Name.Name)
					break
				}
			}
			return false
		})
	}
	if len(names) < 80 {
		t.Fatalf("found %d tagged structs; the parse is broken", len(names))
	}
	return names
}
