package report

// listerRows: a controller's lister reads over 10k pods in 50 namespaces
// (BenchmarkLister): Lister.List(selector) over all pods and
// Pods(ns).List(selector), kcm's raw and typed listers against client-go's
// generated pod lister. Target: kcm's ns/op no more than client-go's;
// allocations reported beside.
func listerRows(s *Set) []Row {
	var rows []Row
	for _, q := range []struct{ bench, figure string }{
		{"Lister/All", "lister List(app=X) over all 10k pods"},
		{"Lister/Namespace", "lister Pods(ns).List(app=Y), 50 namespaces"},
	} {
		p := procsOf(s, q.bench)
		rows = both(rows, s, q.figure, "ns/op", metric(q.bench, p, "ns/op", nil), ratioAtMost(1))
		rows = both(rows, s, q.figure+": allocations", "allocs/op", metric(q.bench, p, "allocs/op", nil), none)
	}
	return rows
}
