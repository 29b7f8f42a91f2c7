package pipeview

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kcmlab/kcm/lease"
	"github.com/kcmlab/kcm/tap"
)

// view is one update's picture of the whole pipeline, the same for every
// browser: bounded by the number of stages, never by the number of
// objects or events.
type view struct {
	Now         int64            `json:"now"`    // Unix milliseconds
	Period      int64            `json:"period"` // milliseconds between updates
	Informers   []informerView   `json:"informers"`
	Controllers []controllerView `json:"controllers"`
	Writers     []*stageView     `json:"writers"`
	Lease       *leaseView       `json:"lease,omitempty"`
	// Resources are the informers' resources, for the follow box.
	Resources []string `json:"resources"`
}

type informerView struct {
	Name     string       `json:"name"`
	Resource string       `json:"resource"`
	Socket   *stageView   `json:"socket,omitempty"`
	FIFO     *stageView   `json:"fifo,omitempty"`
	Store    *stageView   `json:"store,omitempty"`
	Handlers []*stageView `json:"handlers"`
}

type controllerView struct {
	Name    string     `json:"name"`
	Enqueue *stageView `json:"enqueue,omitempty"`
	Sync    *stageView `json:"sync,omitempty"`
}

// stageView is one stage: its counters, depths and newest events.
type stageView struct {
	ID      string      `json:"id"`
	Stage   string      `json:"stage"`
	Source  string      `json:"source"`
	Handler string      `json:"handler,omitempty"`
	Total   uint64      `json:"total"`
	Rate    float64     `json:"rate"` // events per second
	Gauges  []gaugeView `json:"gauges"`
	Recent  []eventView `json:"recent"`
}

type gaugeView struct {
	Name  string `json:"name"`
	Value int64  `json:"value"`
}

// eventView is one event as the page shows it: metadata and a line of
// detail, never an object's body.
type eventView struct {
	T      int64  `json:"t"` // Unix milliseconds
	Op     string `json:"op"`
	Res    string `json:"res,omitempty"` // the resource Key belongs to, when known
	Key    string `json:"key,omitempty"`
	RV     string `json:"rv,omitempty"`
	Detail string `json:"detail,omitempty"`
}

type leaseView struct {
	Lease       string `json:"lease"` // namespace/name
	Identity    string `json:"identity"`
	Holder      string `json:"holder"`
	Leading     bool   `json:"leading"`
	LastRenew   int64  `json:"lastRenew,omitempty"`  // Unix ms; this candidate's last renewal
	RenewAgo    int64  `json:"renewAgo,omitempty"`   // ms
	ExpiresIn   int64  `json:"expiresIn"`            // ms until others may take over (negative: past)
	StepDownIn  int64  `json:"stepDownIn,omitempty"` // ms until a leader that cannot renew stops
	Transitions int32  `json:"transitions"`
	Duration    int64  `json:"leaseDuration"` // ms
	Deadline    int64  `json:"renewDeadline"` // ms
}

// stageID is the page's name for a point.
func stageID(id pointID) string {
	s := id.stage.String() + ":" + id.source
	if id.handler != "" {
		s += ":" + id.handler
	}
	return s
}

// buildView reads every point (and its gauges) at now. selected names
// the stages some browser asked details of: they carry Detail events.
func (h *Hub) buildView(now time.Time, selected map[string]bool) view {
	v := view{Now: now.UnixMilli(), Period: h.o.Period.Milliseconds()}
	h.wants.cool(now)
	informers := map[string]*informerView{}
	controllers := map[string]*controllerView{}
	for _, p := range h.pointList() {
		id := stageID(p.id)
		n := h.o.Recent
		if selected[id] {
			n = h.o.Detail
		}
		total, gauges, recent := p.state(n)
		p.resample(total - p.lastTotal)
		p.lastTotal = total
		sv := &stageView{ID: id, Stage: p.id.stage.String(), Source: p.id.source, Handler: p.id.handler, Total: total,
			Rate: p.rate.add(now, total), Gauges: []gaugeView{}, Recent: []eventView{}}
		for _, g := range gauges {
			sv.Gauges = append(sv.Gauges, gaugeView{Name: g.name, Value: g.read()})
		}
		for _, e := range recent {
			if e.Stage == tap.Socket && e.by == nil { // its write may have been reported after it
				e.by = h.writes.find(e.Event)
			}
			sv.Recent = append(sv.Recent, render(e))
		}
		switch p.id.stage {
		case tap.Socket, tap.FIFO, tap.Store, tap.Handler:
			iv := informers[p.id.source]
			if iv == nil {
				iv = &informerView{Name: p.id.source, Resource: tap.ResourceOf(p.id.source), Handlers: []*stageView{}}
				informers[p.id.source] = iv
			}
			switch p.id.stage {
			case tap.Socket:
				iv.Socket = sv
			case tap.FIFO:
				iv.FIFO = sv
			case tap.Store:
				iv.Store = sv
			default:
				iv.Handlers = append(iv.Handlers, sv)
			}
		case tap.Enqueue, tap.Sync:
			cv := controllers[p.id.source]
			if cv == nil {
				cv = &controllerView{Name: p.id.source}
				controllers[p.id.source] = cv
			}
			if p.id.stage == tap.Enqueue {
				cv.Enqueue = sv
			} else {
				cv.Sync = sv
			}
		case tap.Write:
			v.Writers = append(v.Writers, sv)
		}
	}
	v.Informers, v.Controllers = []informerView{}, []controllerView{}
	for _, iv := range informers {
		slices.SortFunc(iv.Handlers, func(a, b *stageView) int { return strings.Compare(a.Handler, b.Handler) })
		v.Informers = append(v.Informers, *iv)
		if !slices.Contains(v.Resources, iv.Resource) {
			v.Resources = append(v.Resources, iv.Resource)
		}
	}
	slices.SortFunc(v.Informers, func(a, b informerView) int { return strings.Compare(a.Name, b.Name) })
	slices.Sort(v.Resources)
	for _, cv := range controllers {
		v.Controllers = append(v.Controllers, *cv)
	}
	slices.SortFunc(v.Controllers, func(a, b controllerView) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(v.Writers, func(a, b *stageView) int { return strings.Compare(a.Source, b.Source) })
	if v.Writers == nil {
		v.Writers = []*stageView{}
	}
	if status := h.leaseStatus(); status != nil {
		v.Lease = leaseOf(status(), now)
	}
	return v
}

// leaseOf is the leader-election panel at now.
func leaseOf(s lease.Status, now time.Time) *leaseView {
	lv := &leaseView{Lease: s.Namespace + "/" + s.Name, Identity: s.Identity, Holder: s.Holder, Leading: s.Leading,
		Transitions: s.Transitions, Duration: s.LeaseDuration.Milliseconds(), Deadline: s.RenewDeadline.Milliseconds()}
	if exp := s.Expiry(); !exp.IsZero() {
		lv.ExpiresIn = exp.Sub(now).Milliseconds()
	}
	if s.Leading {
		lv.LastRenew = s.LastRenew.UnixMilli()
		lv.RenewAgo = now.Sub(s.LastRenew).Milliseconds()
		lv.StepDownIn = s.StepDownAt().Sub(now).Milliseconds()
	}
	return lv
}

// render is how the page shows one event.
func render(e entry) eventView {
	return eventView{T: e.At.UnixMilli(), Op: e.Op, Res: e.Resource, Key: e.Key, RV: e.RV, Detail: detail(e)}
}

// detail is the line under an event: what the stage adds to its key.
func detail(e entry) string {
	var parts []string
	add := func(format string, a ...any) { parts = append(parts, fmt.Sprintf(format, a...)) }
	switch e.Stage {
	case tap.Socket:
		if e.Bytes > 0 {
			add("%d bytes", e.Bytes)
		}
		if e.by != nil {
			add("← %s", writeText(e.by))
		}
	case tap.FIFO:
		add("fifo depth %d", e.Depth)
	case tap.Store:
		if len(e.Index) > 0 {
			add("index %s", strings.Join(e.Index, " "))
		}
		add("fifo depth %d", e.Depth)
	case tap.Handler:
		add("took %s, %d pending", ms(e.Took), e.Depth)
	case tap.Enqueue:
		if e.Delay > 0 {
			add("in %s", ms(e.Delay))
		}
		if e.Retries > 0 {
			add("%d retries", e.Retries)
		}
		add("%d ready", e.Depth)
		if e.cause != nil {
			add("← %s %s", e.cause.Resource, e.cause.Key)
		}
	case tap.Sync:
		add("#%d", e.Sync.Seq)
		if e.Op != tap.OpBegin {
			add("took %s", ms(e.Took))
		}
		if e.Delay > 0 {
			add("again in %s", ms(e.Delay))
		}
		if e.Retries > 0 {
			add("%d retries before", e.Retries)
		}
	case tap.Write:
		add("%s took %s", e.Resource, ms(e.Took))
		if e.Sync.Seq != 0 {
			add("in sync #%d of %s", e.Sync.Seq, e.Sync.Key)
		}
	}
	if e.Err != "" {
		add("error: %s", clip(e.Err, 300))
	}
	return strings.Join(parts, ", ")
}

// writeText names a write: "POST by kcm/v0 (replicaset-controller), sync #4
// of ns/web".
func writeText(w *writeRef) string {
	s := w.Op + " by " + w.Client
	if w.Sync.Seq != 0 {
		s += fmt.Sprintf(", sync #%d of %s", w.Sync.Seq, w.Sync.Key)
	}
	return s
}

// ms renders a duration in milliseconds with up to three decimals.
func ms(d time.Duration) string {
	return fmt.Sprintf("%.3gms", float64(d)/float64(time.Millisecond))
}

// clip shortens s to at most n bytes, on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && (s[n]&0xC0) == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// jsonMarshal encodes an update's parts.
func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
