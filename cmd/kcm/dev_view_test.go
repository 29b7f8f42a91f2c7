package main

import (
	"errors"
	"testing"
)

// kcm dev serves the view over plain HTTP, so --view must name this
// machine's loopback; anything else is refused before listening.
func TestViewListensOnLoopbackOnly(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", "192.0.2.1:8080", "example.com:80", ":0"} {
		ln, err := listenLoopback(addr)
		if err == nil {
			ln.Close()
			t.Errorf("--view=%s accepted", addr)
		} else if !errors.Is(err, errNotLoopback) {
			t.Errorf("--view=%s: %v, want %v", addr, err, errNotLoopback)
		}
	}
	if _, err := listenLoopback("127.0.0.1"); err == nil {
		t.Error("--view without a port accepted")
	}
	for _, addr := range []string{"127.0.0.1:0", "localhost:0"} {
		ln, err := listenLoopback(addr)
		if err != nil {
			t.Errorf("--view=%s: %v", addr, err)
			continue
		}
		ln.Close()
	}
}
