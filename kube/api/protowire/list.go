package protowire

import (
	"fmt"

	"github.com/kcmlab/kcm/kube/api"
)

// A list (PodList, ReplicaSetList, ... in k8s.io/api's generated.proto)
// is the same message for every resource:
//
//	message PodList {
//	  optional ListMeta metadata = 1;
//	  repeated Pod items = 2;
//	}
//	message ListMeta {   // k8s.io/apimachinery/pkg/apis/meta/v1
//	  optional string selfLink = 1;
//	  optional string resourceVersion = 2;
//	  optional string continue = 3;
//	  optional int64 remainingItemCount = 4;
//	  optional ShardInfo shardInfo = 5;   // not read here
//	}
//
// Items are embedded messages without an envelope of their own: the
// list's envelope says "PodList", so each item is a Pod. Splitting a list
// costs one pass over the item headers; the items' bytes are not
// touched, and not copied.

// ListMeta is what a list says about itself.
type ListMeta struct {
	ResourceVersion string
	Continue        string
	// RemainingItemCount is nil unless the server sent it.
	RemainingItemCount *int64
}

// List is a list split into its items. Items alias the input.
type List struct {
	ListMeta
	Items [][]byte
}

// SplitList reads a list message (an Unknown's Raw for kind ...List).
func SplitList(raw []byte) (List, error) {
	var l List
	n, err := countItems(raw)
	if err != nil {
		return l, err
	}
	l.Items = make([][]byte, 0, n)
	r := NewReader(raw)
	for !r.Done() {
		f, err := r.Next()
		if err != nil {
			return l, fmt.Errorf("list: %w", err)
		}
		switch f.Num {
		case 1:
			m, err := f.Message()
			if err != nil {
				return l, fmt.Errorf("list: metadata: %w", err)
			}
			if err := readListMeta(m, &l.ListMeta); err != nil {
				return l, fmt.Errorf("list: metadata: %w", err)
			}
		case 2:
			item, err := f.Message()
			if err != nil {
				return l, fmt.Errorf("list: item %d: %w", len(l.Items), err)
			}
			l.Items = append(l.Items, item)
		}
	}
	return l, nil
}

// countItems counts the list's items, so that Items is allocated once, at
// its size. It stops at the first malformed field, which SplitList then
// reports.
func countItems(raw []byte) (int, error) {
	n := 0
	r := NewReader(raw)
	for !r.Done() {
		f, err := r.Next()
		if err != nil {
			return 0, fmt.Errorf("list: %w", err)
		}
		if f.Num == 2 {
			n++
		}
	}
	return n, nil
}

func readListMeta(m []byte, lm *ListMeta) error {
	return EachField(m, func(f Field) error {
		switch f.Num {
		case 2, 3:
			b, err := f.Message()
			if err != nil {
				return err
			}
			if f.Num == 2 {
				lm.ResourceVersion = string(b)
			} else {
				lm.Continue = string(b)
			}
		case 4:
			v, err := f.Int64()
			if err != nil {
				return err
			}
			lm.RemainingItemCount = &v
		}
		return nil
	})
}

// ItemKind is the kind of a list's items: kind without its "List" suffix
// (PodList → Pod), as the apiserver names list kinds.
func ItemKind(listKind string) string {
	if len(listKind) > 4 && listKind[len(listKind)-4:] == "List" {
		return listKind[:len(listKind)-4]
	}
	return listKind
}

// DecodeList reads a list body as kube-apiserver sends it (the envelope
// around a ...List) and calls fn with each item decoded by DecodeMessage,
// in order: items of kind ItemKind(list kind), in the list's apiVersion.
func DecodeList(body []byte, opt Options, fn func(*Object) error) (ListMeta, error) {
	u, err := Unwrap(body)
	if err != nil {
		return ListMeta{}, err
	}
	if err := u.Protobuf(); err != nil {
		return ListMeta{}, err
	}
	tm := api.TypeMeta{APIVersion: typeString(u.APIVersion), Kind: typeString([]byte(ItemKind(string(u.Kind))))}
	var lm ListMeta
	r := NewReader(u.Raw)
	for n := 0; !r.Done(); {
		f, err := r.Next()
		if err != nil {
			return lm, fmt.Errorf("list: %w", err)
		}
		switch f.Num {
		case 1:
			m, err := f.Message()
			if err != nil {
				return lm, fmt.Errorf("list: metadata: %w", err)
			}
			if err := readListMeta(m, &lm); err != nil {
				return lm, fmt.Errorf("list: metadata: %w", err)
			}
		case 2:
			item, err := f.Message()
			if err != nil {
				return lm, fmt.Errorf("list: item %d: %w", n, err)
			}
			o, err := DecodeMessage(tm, item, opt)
			if err != nil {
				return lm, fmt.Errorf("list: item %d: %w", n, err)
			}
			if err := fn(o); err != nil {
				return lm, err
			}
			n++
		}
	}
	return lm, nil
}
