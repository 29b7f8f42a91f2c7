package controllerref

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/labels"
	"github.com/kcmlab/kcm/kube/rest"
)

type patchCall struct{ name, patch string }

type fakePatcher struct {
	calls []patchCall
	err   error
}

func (f *fakePatcher) patch(_ context.Context, name string, patch []byte) error {
	f.calls = append(f.calls, patchCall{name, string(patch)})
	return f.err
}

var now = api.Time{}

func pod(name, ns string, lbl map[string]string, ctrlUID string, deleting bool) *api.Pod {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: ns, UID: "uid-" + name, Labels: lbl}}
	if ctrlUID != "" {
		p.OwnerReferences = []api.OwnerReference{NewControllerRef(&api.ObjectMeta{Name: "rs", UID: ctrlUID}, "apps/v1", "ReplicaSet")}
	}
	if deleting {
		p.DeletionTimestamp = &now
	}
	return p
}

func owner(deleting bool) Owner {
	return Owner{Ref: NewControllerRef(&api.ObjectMeta{Name: "rs", UID: "me"}, "apps/v1", "ReplicaSet"),
		Namespace: "ns", Deleting: deleting}
}

var app = map[string]string{"app": "web"}

// TestClaimRules steps every branch of Kubernetes' ClaimObject.
func TestClaimRules(t *testing.T) {
	sel := labels.SelectorFromSet(app)
	cases := []struct {
		name          string
		pod           *api.Pod
		ownerDeleting bool
		want          bool
		patch         string // "", "adopt", "release"
	}{
		{"owned and matching stays owned", pod("a", "ns", app, "me", false), false, true, ""},
		{"another controller's pod is never touched", pod("a", "ns", app, "other", false), false, false, ""},
		{"owned but not matching is released", pod("a", "ns", nil, "me", false), false, false, "release"},
		{"owned, not matching, owner deleting: left to the GC", pod("a", "ns", nil, "me", false), true, false, ""},
		{"matching orphan is adopted", pod("a", "ns", app, "", false), false, true, "adopt"},
		{"orphan not matching is ignored", pod("a", "ns", nil, "", false), false, false, ""},
		{"deleting orphan is not adopted", pod("a", "ns", app, "", true), false, false, ""},
		{"orphan in another namespace is not adopted", pod("a", "other", app, "", false), false, false, ""},
		{"a deleting owner adopts nothing", pod("a", "ns", app, "", false), true, false, ""},
		{"owned and deleting pod still counts", pod("a", "ns", app, "me", true), false, true, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fp := &fakePatcher{}
			m := NewManager[*api.Pod](owner(tc.ownerDeleting), sel, fp.patch, nil)
			got, err := m.Claim(context.Background(), []*api.Pod{tc.pod})
			if err != nil {
				t.Fatal(err)
			}
			if (len(got) == 1) != tc.want {
				t.Fatalf("claimed %d, want claimed=%v", len(got), tc.want)
			}
			var kind string
			if len(fp.calls) == 1 {
				kind = "adopt"
				if strings.Contains(fp.calls[0].patch, "$patch") {
					kind = "release"
				}
			} else if len(fp.calls) > 1 {
				t.Fatalf("patched %d times", len(fp.calls))
			}
			if kind != tc.patch {
				t.Fatalf("patch %q, want %q (%v)", kind, tc.patch, fp.calls)
			}
		})
	}
}

func TestPatchesCarryTheDependentUID(t *testing.T) {
	fp := &fakePatcher{}
	m := NewManager[*api.Pod](owner(false), labels.SelectorFromSet(app), fp.patch, nil)
	if _, err := m.Claim(context.Background(), []*api.Pod{pod("a", "ns", app, "", false), pod("b", "ns", nil, "me", false)}); err != nil {
		t.Fatal(err)
	}
	want := []patchCall{
		{"a", `{"metadata":{"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"me","controller":true,"blockOwnerDeletion":true}],"uid":"uid-a"}}`},
		{"b", `{"metadata":{"ownerReferences":[{"$patch":"delete","uid":"me"}],"uid":"uid-b"}}`},
	}
	if fmt.Sprint(fp.calls) != fmt.Sprint(want) {
		t.Fatalf("patches\n%v\nwant\n%v", fp.calls, want)
	}
}

// The fresh read runs once per Manager, before the first adoption only,
// and a failing one adopts nothing (RecheckDeletionTimestamp).
func TestRecheckOnceBeforeAdopting(t *testing.T) {
	deleted := api.Time{}
	cases := []struct {
		name    string
		fresh   *api.ObjectMeta
		getErr  error
		adopted int
	}{
		{"same owner", &api.ObjectMeta{Name: "rs", Namespace: "ns", UID: "me"}, nil, 2},
		{"replaced under the same name", &api.ObjectMeta{Name: "rs", Namespace: "ns", UID: "new"}, nil, 0},
		{"being deleted", &api.ObjectMeta{Name: "rs", Namespace: "ns", UID: "me", DeletionTimestamp: &deleted}, nil, 0},
		{"read fails", nil, errors.New("boom"), 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			reads := 0
			get := func(context.Context) (*api.ObjectMeta, error) { reads++; return tc.fresh, tc.getErr }
			fp := &fakePatcher{}
			m := NewManager[*api.Pod](owner(false), labels.SelectorFromSet(app), fp.patch, RecheckDeletionTimestamp("me", get))
			got, err := m.Claim(context.Background(), []*api.Pod{
				pod("owned", "ns", app, "me", false), pod("a", "ns", app, "", false), pod("b", "ns", app, "", false)})
			if reads != 1 {
				t.Fatalf("owner read %d times, want 1", reads)
			}
			if len(fp.calls) != tc.adopted || len(got) != 1+tc.adopted {
				t.Fatalf("adopted %d, claimed %d; want %d adoptions", len(fp.calls), len(got), tc.adopted)
			}
			if tc.adopted == 0 && !errors.Is(err, ErrCannotAdopt) {
				t.Fatalf("err %v, want ErrCannotAdopt", err)
			}
			if tc.adopted > 0 && err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestNoOwnerReadWithoutOrphans(t *testing.T) {
	get := func(context.Context) (*api.ObjectMeta, error) { t.Fatal("owner read"); return nil, nil }
	m := NewManager[*api.Pod](owner(false), labels.SelectorFromSet(app), (&fakePatcher{}).patch, RecheckDeletionTimestamp("me", get))
	if _, err := m.Claim(context.Background(), []*api.Pod{pod("owned", "ns", app, "me", false)}); err != nil {
		t.Fatal(err)
	}
}

func statusErr(code int) error {
	return rest.StatusErrorFrom("PATCH", "/x", rest.Status{Code: int32(code), Reason: reasonOf(code)})
}

func reasonOf(code int) string {
	switch code {
	case http.StatusNotFound:
		return "NotFound"
	case http.StatusUnprocessableEntity:
		return "Invalid"
	}
	return "InternalError"
}

// A dependent that is gone or no longer carries the ref is not an error
// of the sync; anything else is returned, joined, with the rest claimed.
func TestPatchErrors(t *testing.T) {
	cases := []struct {
		name    string
		pod     *api.Pod
		err     error
		wantErr bool
	}{
		{"adopt: gone", pod("a", "ns", app, "", false), statusErr(404), false},
		{"adopt: invalid is an error", pod("a", "ns", app, "", false), statusErr(422), true},
		{"adopt: server error", pod("a", "ns", app, "", false), statusErr(500), true},
		{"release: gone", pod("a", "ns", nil, "me", false), statusErr(404), false},
		{"release: ref already gone", pod("a", "ns", nil, "me", false), statusErr(422), false},
		{"release: server error", pod("a", "ns", nil, "me", false), statusErr(500), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fp := &fakePatcher{err: tc.err}
			m := NewManager[*api.Pod](owner(false), labels.SelectorFromSet(app), fp.patch, nil)
			got, err := m.Claim(context.Background(), []*api.Pod{tc.pod, pod("owned", "ns", app, "me", false)})
			if (err != nil) != tc.wantErr {
				t.Fatalf("err %v, want error %v", err, tc.wantErr)
			}
			if len(got) != 1 || got[0].Name != "owned" {
				t.Fatalf("claimed %v, want only the owned pod", got)
			}
		})
	}
}

func TestFiltersRestrictMatching(t *testing.T) {
	fp := &fakePatcher{}
	m := NewManager[*api.Pod](owner(false), labels.SelectorFromSet(app), fp.patch, nil)
	notB := func(p *api.Pod) bool { return p.Name != "b" }
	got, err := m.Claim(context.Background(), []*api.Pod{pod("a", "ns", app, "me", false), pod("b", "ns", app, "me", false)}, notB)
	if err != nil || len(got) != 1 || got[0].Name != "a" || len(fp.calls) != 1 || fp.calls[0].name != "b" {
		t.Fatalf("claimed %v err %v patches %v; want a claimed and b released", got, err, fp.calls)
	}
}

// A 404 of the owner's fresh read fails the claim; only a 404 of the
// adoption patch means "the dependent is gone".
func TestOwnerGoneIsAnError(t *testing.T) {
	get := func(context.Context) (*api.ObjectMeta, error) { return nil, statusErr(404) }
	fp := &fakePatcher{}
	m := NewManager[*api.Pod](owner(false), labels.SelectorFromSet(app), fp.patch, RecheckDeletionTimestamp("me", get))
	got, err := m.Claim(context.Background(), []*api.Pod{pod("a", "ns", app, "", false)})
	if !errors.Is(err, ErrCannotAdopt) || len(got) != 0 || len(fp.calls) != 0 {
		t.Fatalf("claimed %v, err %v, patches %v; want ErrCannotAdopt and nothing adopted", got, err, fp.calls)
	}
}
