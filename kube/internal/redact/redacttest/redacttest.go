// Package redacttest checks that values never print their secrets: Leaks
// renders a value every way a log line or an error might, and ExportedTypes
// lists what a package must have checked.
package redacttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/rs/zerolog"
)

// Verbs are the fmt verbs Leaks tries.
var Verbs = []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d", "%t", "%T %v"}

// Leaks renders v every way a log line or an error might, and returns a
// description of each rendering that contains one of secrets: each of
// Verbs, of v itself and of a struct and a slice that hold it;
// json.Marshal; zerolog's Interface, Any and Fields, and Object and Stringer
// when v implements them.
func Leaks(v any, secrets ...string) []string {
	var out []string
	check := func(how, s string) {
		for _, sec := range secrets {
			if strings.Contains(s, sec) {
				out = append(out, fmt.Sprintf("%s: %s", how, s))
				return
			}
		}
	}
	holder := struct{ V any }{v}
	for _, verb := range Verbs {
		check(verb, fmt.Sprintf(verb, v))
		check(verb+" in a struct", fmt.Sprintf(verb, holder))
		check(verb+" in a slice", fmt.Sprintf(verb, []any{v}))
	}
	check("fmt.Sprint", fmt.Sprint(v))
	check("fmt.Sprintln", fmt.Sprintln(v))
	b, err := json.Marshal(v)
	if err != nil {
		check("json.Marshal error", err.Error())
	}
	check("json.Marshal", string(b))
	b, err = json.Marshal(holder)
	if err != nil {
		check("json.Marshal error in a struct", err.Error())
	}
	check("json.Marshal in a struct", string(b))
	var buf bytes.Buffer
	log := zerolog.New(&buf)
	log.Log().Interface("v", v).Msg("")
	log.Log().Any("v", v).Msg("")
	log.Log().Fields(map[string]any{"v": v}).Msg("")
	if o, ok := v.(zerolog.LogObjectMarshaler); ok {
		log.Log().Object("v", o).Msg("")
		log.Log().EmbedObject(o).Msg("")
	}
	if s, ok := v.(fmt.Stringer); ok {
		log.Log().Stringer("v", s).Msg("")
	}
	if e, ok := v.(error); ok {
		log.Log().Err(e).Msg("")
	}
	check("zerolog", buf.String())
	return out
}

// ExportedTypes lists the exported type names declared in the non-test Go
// files of dir, interfaces and function types excepted (nothing in them
// prints).
func ExportedTypes(dir string) (map[string]bool, error) {
	fset := token.NewFileSet()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, s := range g.Specs {
				ts := s.(*ast.TypeSpec)
				switch ts.Type.(type) {
				case *ast.InterfaceType, *ast.FuncType:
					continue
				}
				if ts.Name.IsExported() {
					names[ts.Name.Name] = true
				}
			}
		}
	}
	return names, nil
}

// TypeName is the declared name of v's type: a pointer's element, a
// generic type without its arguments.
func TypeName(v any) string {
	ty := reflect.TypeOf(v)
	for ty.Kind() == reflect.Pointer {
		ty = ty.Elem()
	}
	name, _, _ := strings.Cut(ty.Name(), "[")
	return name
}

// Uncovered returns the exported types of dir (ExportedTypes) of which
// values holds no value.
func Uncovered(dir string, values []any) ([]string, error) {
	names, err := ExportedTypes(dir)
	if err != nil {
		return nil, err
	}
	covered := map[string]bool{}
	for _, v := range values {
		covered[TypeName(v)] = true
	}
	var out []string
	for n := range names {
		if !covered[n] {
			out = append(out, n)
		}
	}
	return out, nil
}
