package tour

import "fmt"

// How a chapter's link is checked: the text names a method, a function of
// the file's package, or nothing the file declares.
func Example() {
	pkg, names, err := declared("../../ctrl/loop.go")
	if err != nil {
		panic(err)
	}
	for _, text := range []string{"Loop.process", "ctrl.NewLoop", "Loop.reconcile"} {
		fmt.Println(text, resolves(text, "../../ctrl/loop.go", pkg, names))
	}
	// Output:
	// Loop.process true
	// ctrl.NewLoop true
	// Loop.reconcile false
}
