package reflector_test

import (
	"fmt"
	"net/http"
	"time"

	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/reflector"
)

// Stepping the machine through a list, an event, a dropped watch and an
// expired resourceVersion — no goroutines, no clock.
func ExampleMachine() {
	b := reflector.DefaultBackoff()
	b.Jitter = 0
	m := reflector.NewMachine(reflector.Settings{PageSize: 500, Backoff: b})
	show := func() {
		a := m.Next()
		switch a.Kind {
		case reflector.DoList:
			fmt.Printf("%-9s LIST rv=%q limit=%d\n", m.Phase(), a.Options.ResourceVersion, a.Options.Limit)
		case reflector.DoWatch:
			fmt.Printf("%-9s WATCH rv=%q\n", m.Phase(), a.Options.ResourceVersion)
		case reflector.DoWait:
			fmt.Printf("%-9s WAIT %v\n", m.Phase(), a.Wait)
		}
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

	show()
	m.ListDone("100")
	show()
	route := m.Route(rest.Modified, "105", false) // ToUpdate: the shell calls sink.Update
	m.Accepted(route, "105")                      // the sink took it: a watch resumes after 105
	m.WatchEnded(fmt.Errorf("connection reset"), now)
	show()
	m.WaitDone()
	show()
	m.WatchEnded(&rest.StatusError{Status: rest.Status{Code: http.StatusGone, Reason: "Expired"}}, now)
	show()
	// Output:
	// listing   LIST rv="" limit=500
	// watching  WATCH rv="100"
	// backing-off WAIT 800ms
	// watching  WATCH rv="105"
	// listing   LIST rv="105" limit=500
}
