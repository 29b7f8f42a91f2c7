package deltafifo_test

import (
	"context"
	"fmt"

	"github.com/kcmlab/kcm/deltafifo"
	"github.com/kcmlab/kcm/kube/api"
)

// Pod is a stand-in object: metadata only.
type Pod struct {
	api.TypeMeta
	api.ObjectMeta
}

func pod(name, rv string) *Pod {
	p := &Pod{}
	p.Namespace, p.Name, p.ResourceVersion = "default", name, rv
	return p
}

// mapStore is the smallest store an apply loop could write.
type mapStore map[string]*Pod

func (s mapStore) ListKeys() []string {
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	return keys
}

func (s mapStore) GetByKey(key string) (*Pod, bool) { p, ok := s[key]; return p, ok }

// The life of an informer's FIFO: an initial list streamed in, watch events,
// then a relist that finds an object gone.
func Example() {
	store := mapStore{}
	fifo := deltafifo.New(deltafifo.Options[*Pod]{Known: store})

	// The apply loop: write each delta into the store, print it.
	apply := func() {
		_ = fifo.Pop(context.Background(), 100, func(batch []deltafifo.Delta[*Pod]) error {
			for _, d := range batch {
				fmt.Printf("%-8s %s@%s tombstone=%v initial=%v\n",
					d.Type, d.Key, d.Object.ResourceVersion, d.FinalStateUnknown, d.InitialList)
				if d.Type == deltafifo.Deleted {
					delete(store, d.Key)
				} else {
					store[d.Key] = d.Object
				}
			}
			return nil
		})
	}

	// The reflector streams the initial LIST item by item.
	r := fifo.StartReplace("10")
	_ = r.Add(pod("a", "5"))
	_ = r.Add(pod("b", "7"))
	_ = r.Finish()
	fmt.Println("synced before apply:", fifo.HasSynced())
	apply()
	fmt.Println("synced after apply:", fifo.HasSynced())

	// WATCH events. The second Delete of b merges into the first; the
	// Delete of a pod nobody knows is ignored.
	_ = fifo.Update(pod("a", "11"))
	_ = fifo.Delete(pod("b", "12"))
	_ = fifo.Delete(pod("b", "12"))
	_ = fifo.Delete(pod("ghost", "13"))
	fmt.Println("pending:", fifo.Len())
	apply()

	// The watch broke; the relist no longer has a: it gets a tombstone
	// carrying its last known state.
	_ = fifo.Replace([]*Pod{pod("c", "20")}, "20")
	apply()
	fmt.Println("store:", len(store), "pods")

	// Output:
	// synced before apply: false
	// Replaced default/a@5 tombstone=false initial=true
	// Replaced default/b@7 tombstone=false initial=true
	// synced after apply: true
	// pending: 2
	// Updated  default/a@11 tombstone=false initial=false
	// Deleted  default/b@12 tombstone=false initial=false
	// Replaced default/c@20 tombstone=false initial=false
	// Deleted  default/a@11 tombstone=true initial=false
	// store: 1 pods
}
