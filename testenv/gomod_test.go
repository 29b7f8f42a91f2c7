package testenv

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseModFile(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		want    modFile
		wantErr string
	}{
		{
			name: "block of staging replaces, like k8s.io/kubernetes",
			text: `module k8s.io/kubernetes

go 1.24.0

godebug default=go1.24

require (
	k8s.io/api v0.0.0
	k8s.io/klog/v2 v2.130.1
)

replace (
	k8s.io/client-go => ./staging/src/k8s.io/client-go
	k8s.io/api => ./staging/src/k8s.io/api // the API types
)
`,
			want: modFile{Go: "1.24.0", Godebug: []string{"default=go1.24"}, Staging: []string{"k8s.io/api", "k8s.io/client-go"}},
		},
		{
			name: "single-line replaces; only ./staging targets count",
			text: `module m
replace k8s.io/api => ./staging/src/k8s.io/api
replace github.com/x/y v1.0.0 => github.com/x/y v1.0.1
replace example.com/local => ../local
replace "k8s.io/apimachinery" v0.0.0 => "./staging/src/k8s.io/apimachinery"
`,
			want: modFile{Staging: []string{"k8s.io/api", "k8s.io/apimachinery"}},
		},
		{
			name: "godebug block, comments and blank lines",
			text: `// leading comment
module m // trailing
godebug (
	default=go1.23
	x509sha1 = 1
)
`,
			want: modFile{Godebug: []string{"default=go1.23", "x509sha1=1"}},
		},
		{
			name: "no replaces at all",
			text: "module m\n\ngo 1.22\n",
			want: modFile{Go: "1.22"},
		},
		{
			name:    "replace without arrow",
			text:    "module m\nreplace k8s.io/api ./staging/src/k8s.io/api\n",
			wantErr: "line 2: replace without =>",
		},
		{
			name:    "unclosed block",
			text:    "module m\nreplace (\n\tk8s.io/api => ./staging/src/k8s.io/api\n",
			wantErr: "replace block not closed",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseModFile(tt.text)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestStagingVersion(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"v1.34.4", "v0.34.4", true},
		{"v1.35.0-alpha.1", "v0.35.0-alpha.1", true},
		{"v2.0.0", "", false},
		{"v1.", "", false},
		{"1.34.4", "", false},
	}
	for _, tt := range tests {
		got, err := stagingVersion(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("stagingVersion(%q) = %q, %v; want %q, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestThrowAwayGoMod(t *testing.T) {
	mf := modFile{Go: "1.24.0", Godebug: []string{"default=go1.24"}, Staging: []string{"k8s.io/api", "k8s.io/client-go"}}
	got, err := throwAwayGoMod(mf, "v1.34.4")
	if err != nil {
		t.Fatal(err)
	}
	want := `module kcm.local/testenv-build

go 1.24.0

godebug default=go1.24

require k8s.io/kubernetes v1.34.4

replace (
	k8s.io/api => k8s.io/api v0.34.4
	k8s.io/client-go => k8s.io/client-go v0.34.4
)
`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	// The rendered file must itself parse, with no staging replaces left.
	back, err := parseModFile(got)
	if err != nil || len(back.Staging) != 0 || back.Go != "1.24.0" {
		t.Errorf("re-parse = %+v, %v", back, err)
	}
	if _, err := throwAwayGoMod(modFile{}, "v1.34.4"); err == nil {
		t.Error("a go.mod without staging replaces must be refused: the build would fail later and less clearly")
	}
}
