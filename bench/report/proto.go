package report

import "math"

// protoRows: the protobuf prototype's micro-benchmarks (BenchmarkProtoDecodePod,
// BenchmarkProtoHeap, issue 13). Their decoders are not the table's
// engines, so each row names what its kcm and client-go columns hold:
// protobuf rows compare kube/api/protowire's metadata scan with client-go's
// generated Unmarshal of a v1.Pod, JSON rows kcm's RawObject codec with
// client-go's JSON decode, and the last rows protowire (its plain scan,
// and with Options.FamilyDelta) with kcm's JSON RawObject (in the
// client-go column). No targets: it is a prototype.
func protoRows(s *Set) []Row {
	pair := func(figure, unit, bench, metricUnit, kcmSub, cgSub string) Row {
		p := procsOf(s, bench)
		r := Row{Figure: figure, Unit: unit, Values: map[string]float64{}}
		if v, ok := s.Median(bench+"/"+kcmSub, p, metricUnit); ok {
			r.Values[KCM] = v
		}
		if v, ok := s.Median(bench+"/"+cgSub, p, metricUnit); ok {
			r.Values[ClientGo] = v
		}
		r.Ratio, r.RatioStrip = ratio(r.Values, KCM, ClientGo), math.NaN()
		return r
	}
	const (
		dec, heap = "ProtoDecodePod", "ProtoHeap"
		scan, raw = "protowire-scan", "kcm-json-raw"
		family    = "protowire-family"
		cgp, cgj  = "client-go-proto", "client-go-json"
	)
	return []Row{
		pair("pod decode CPU, protobuf (kcm: protowire scan; client-go: protobuf Unmarshal)", "ns", dec, "cpu-ns/op", scan, cgp),
		pair("pod decode allocations, protobuf (kcm: protowire scan; client-go: protobuf Unmarshal)", "allocs/op", dec, "allocs/op", scan, cgp),
		pair("pod decode CPU, JSON (kcm: RawObject codec; client-go: JSON decode)", "ns", dec, "cpu-ns/op", raw, cgj),
		pair("pod decode allocations, JSON (kcm: RawObject codec; client-go: JSON decode)", "allocs/op", dec, "allocs/op", raw, cgj),
		pair("pod decode CPU, protowire scan (kcm) vs kcm's JSON RawObject (client-go column)", "ns", dec, "cpu-ns/op", scan, raw),
		pair("heap per decoded pod, protobuf (kcm: protowire; client-go: v1.Pod, managedFields dropped)", "B", heap, "B/pod", scan, cgp),
		pair("heap per decoded pod, JSON (kcm: RawObject; client-go: v1.Pod, managedFields dropped)", "B", heap, "B/pod", raw, cgj),
		pair("heap per decoded pod, protowire (kcm) vs kcm's JSON RawObject (client-go column)", "B", heap, "B/pod", scan, raw),
		pair("pod decode CPU, protowire with family deltas (kcm) vs kcm's JSON RawObject (client-go column)", "ns", dec, "cpu-ns/op", family, raw),
		pair("heap per decoded pod, protowire with family deltas (kcm) vs kcm's JSON RawObject (client-go column)", "B", heap, "B/pod", family, raw),
	}
}
