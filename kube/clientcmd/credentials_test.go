package clientcmd

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kcmlab/kcm/clock"
)

// kcT0 is when the fake clocks of these tests start.
var kcT0 = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

// TestTokenFileRotation: the kubelet rotates projected service-account
// tokens in place; a TokenFile picks up the new one within MaxAge, at once
// after Invalidate, and keeps the last good one when a re-read fails.
func TestTokenFileRotation(t *testing.T) {
	dir := t.TempDir()
	path := kcWriteFile(t, dir, "token", []byte("one\n"))
	clk := clock.NewFake(kcT0)
	tf, err := NewTokenFile(path, TokenFileOptions{Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name   string
		action func()
		want   string
	}{
		{"first read, trimmed", func() {}, "one"},
		{"rotated but cache fresh", func() { kcWriteFile(t, dir, "token", []byte("two")); clk.Step(59 * time.Second) }, "one"},
		{"cache one minute old", func() { clk.Step(time.Second) }, "two"},
		{"rotated again, Invalidate", func() { kcWriteFile(t, dir, "token", []byte("three")); tf.Invalidate() }, "three"},
		{"file gone: keep last good", func() { os.Remove(path); clk.Step(2 * time.Minute) }, "three"},
		{"file empty: keep last good", func() { kcWriteFile(t, dir, "token", []byte(" \n")); tf.Invalidate() }, "three"},
		{"file back", func() { kcWriteFile(t, dir, "token", []byte("four")); tf.Invalidate() }, "four"},
	}
	for _, s := range steps {
		s.action()
		got, err := tf.Authorization(t.Context())
		if err != nil || got != "Bearer "+s.want {
			t.Fatalf("%s: got %q, %v; want Bearer %s", s.name, got, err, s.want)
		}
	}
	if c, err := tf.ClientCertificate(t.Context()); c != nil || err != nil {
		t.Errorf("ClientCertificate = %v, %v", c, err)
	}
}

func TestTokenFileInitialErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := NewTokenFile(filepath.Join(dir, "missing"), TokenFileOptions{}); !os.IsNotExist(err) {
		t.Errorf("missing: %v", err)
	}
	empty := kcWriteFile(t, dir, "empty", []byte("\n\n"))
	if _, err := NewTokenFile(empty, TokenFileOptions{}); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("empty: %v", err)
	}
}

// TestTokenFileConcurrent exercises the lock under -race: readers, a
// rotating writer and Invalidate at once.
func TestTokenFileConcurrent(t *testing.T) {
	dir := t.TempDir()
	path := kcWriteFile(t, dir, "token", []byte("t0"))
	tf, err := NewTokenFile(path, TokenFileOptions{MaxAge: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 50 {
				if tok := tf.Token(); !strings.HasPrefix(tok, "t") {
					t.Errorf("token %q", tok)
					return
				}
			}
		})
	}
	wg.Go(func() {
		for i := range 50 {
			tmp := path + ".tmp"
			_ = os.WriteFile(tmp, []byte("t"+strings.Repeat("x", i)), 0o600)
			_ = os.Rename(tmp, path) // atomic, like the kubelet's symlink swap
			tf.Invalidate()
		}
	})
	wg.Wait()
}

func TestBasicAuth(t *testing.T) {
	b := BasicAuth{Username: "alice", Password: "open sesame"}
	got, err := b.Authorization(t.Context())
	// RFC 7617: base64 of "user:password".
	if err != nil || got != "Basic YWxpY2U6b3BlbiBzZXNhbWU=" {
		t.Errorf("got %q, %v", got, err)
	}
	if s := b.String() + b.GoString(); strings.Contains(s, "sesame") || !strings.Contains(s, "alice") {
		t.Errorf("String = %q", s)
	}
}
