package fakeapi_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/kcmlab/kcm/internal/fakeapi"
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
