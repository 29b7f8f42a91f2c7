package fakeapi_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/internal/testing/fakeapi"
)

// Each bad-content fault, alone and always striking, on a watch from rv 11
// of a store where a@11, b@12 and a@13 were written (history kept): what
// the stream carries.
func TestBadWatchContent(t *testing.T) {
	for _, tc := range []struct {
		fault fakeapi.Fault
		query string
		n     int
		want  []string
	}{
		{fakeapi.Duplicate, "", 4, []string{"ADDED b@12", "ADDED b@12", "MODIFIED a@13", "MODIFIED a@13"}},
		{fakeapi.OutOfOrder, "", 2, []string{"MODIFIED a@13", "ADDED b@12"}},
		// Nothing is older than 11 when b@12 comes; a@11 is, before a@13.
		{fakeapi.Stale, "", 3, []string{"ADDED b@12", "ADDED a@11", "MODIFIED a@13"}},
		{fakeapi.LowBookmark, "&allowWatchBookmarks=true", 4, []string{"BOOKMARK lower", "ADDED b@12", "BOOKMARK lower", "MODIFIED a@13"}},
		{fakeapi.GhostDelete, "", 4, []string{"DELETED ghost-@11", "ADDED b@12", "DELETED ghost-@12", "MODIFIED a@13"}},
		{fakeapi.ReAdd, "", 4, []string{"ADDED b@12", "ADDED b@12", "MODIFIED a@13", "ADDED a@13"}},
		{fakeapi.ErrorOther, "", 1, []string{"ERROR"}},
	} {
		t.Run(tc.fault.String(), func(t *testing.T) {
			inj := fakeapi.NewInjector(1, fakeapi.Rates{tc.fault: 1}, 0)
			inj.SetEnabled(false)
			s := newServer(t, fakeapi.Options{StartRV: 10, Faults: inj, BookmarkInterval: 1 << 40})
			must(t)(s.Create(pods, pod("ns", "a", "0"))) // 11
			must(t)(s.Create(pods, pod("ns", "b", "0"))) // 12
			must(t)(s.Update(pods, pod("ns", "a", "1"))) // 13
			inj.SetEnabled(true)
			got := watchEvents(t, s.URL()+"/api/v1/pods?watch=true&resourceVersion=11"+tc.query, tc.n)
			for i := range got { // ghost names are random
				if strings.HasPrefix(got[i], "DELETED ghost-") {
					got[i] = "DELETED ghost-@" + got[i][strings.LastIndex(got[i], "@")+1:]
				}
				if strings.HasPrefix(got[i], "ERROR ") && got[i] != "ERROR 410 Expired" {
					got[i] = "ERROR"
				}
			}
			last := 11 // the watch's position, then each event's resourceVersion
			for i := range got {
				rv, _ := strconv.Atoi(got[i][strings.LastIndex(got[i], "@")+1:])
				if strings.HasPrefix(got[i], "BOOKMARK @") {
					if rv < last {
						got[i] = "BOOKMARK lower"
					}
					continue
				}
				last = rv
			}
			equal(t, got, tc.want...)
		})
	}
}

// An OutOfOrder pair is never split by a frame fault: a watch cut after
// the later event of a pair would lose the earlier one for good (the
// client resumes after the later), so whatever a watch delivers before it
// breaks holds every change up to the newest one delivered (found by the
// chaos suite, seed 882262: a Drop between the two).
func TestOutOfOrderPairIsNeverSplit(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		inj := fakeapi.NewInjector(seed, fakeapi.Rates{fakeapi.OutOfOrder: 1, fakeapi.Drop: 0.3, fakeapi.Truncated: 0.1}, 0)
		inj.SetEnabled(false)
		s := newServer(t, fakeapi.Options{StartRV: 10, Faults: inj, MaxWatch: 50 * time.Millisecond})
		for _, n := range []string{"a", "b", "c", "d", "e", "f"} {
			must(t)(s.Create(pods, pod("ns", n, "0"))) // 11..16
		}
		inj.SetEnabled(true)
		resp, err := http.Get(s.URL() + "/api/v1/pods?watch=true&resourceVersion=10")
		if err != nil {
			t.Fatal(err)
		}
		got := map[int]bool{}
		top := 10
		dec := json.NewDecoder(resp.Body)
		for {
			var ev struct {
				Object object `json:"object"`
			}
			if dec.Decode(&ev) != nil {
				break
			}
			rv, _ := strconv.Atoi(ev.Object.Metadata.ResourceVersion)
			got[rv], top = true, max(top, rv)
		}
		resp.Body.Close()
		for rv := 11; rv <= top; rv++ {
			if !got[rv] {
				t.Fatalf("seed %d: the watch delivered %d but not %d before it broke (faults %v)", seed, top, rv, inj.Counts())
			}
		}
	}
}
