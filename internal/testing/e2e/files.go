package e2e

import (
	"fmt"
	"io"
	"net"
	"os"
)

// freePort asks the kernel for a free loopback TCP port. Another process
// could take it before kcm binds it; kcm then exits at once and the run
// reports that.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("e2e: free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// copyFile copies the file at from to to (a process's log, out of a
// cluster directory that is about to be removed).
func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return fmt.Errorf("e2e: %w", err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return fmt.Errorf("e2e: %w", err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("e2e: copy %s: %w", from, err)
	}
	return out.Close()
}
