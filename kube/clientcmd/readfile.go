package clientcmd

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// Limits on the files clientcmd reads. They are far above what real files
// hold (a kubeconfig of hundreds of contexts is a few hundred KiB, a CA
// bundle with every public root about 200 KiB, a service-account token
// about 1 KiB) and keep a wrong path (--kubeconfig=/dev/zero, a log file, a
// FIFO fed by something else) from growing memory without end: reading
// stops one byte past the limit with an error naming the file and the
// limit.
const (
	// MaxKubeconfigBytes bounds one kubeconfig file.
	MaxKubeconfigBytes = 16 << 20
	// MaxPEMFileBytes bounds a CA bundle, client certificate or key file.
	MaxPEMFileBytes = 16 << 20
	// MaxTokenFileBytes bounds a bearer-token file.
	MaxTokenFileBytes = 1 << 20
)

// ErrFileTooLarge is wrapped by the error for a file over its limit.
var ErrFileTooLarge = errors.New("file too large")

// readFileLimited reads the file at path, or fails once it holds more than
// limit bytes (what names the kind of file in the error: "kubeconfig",
// "token file"). A regular file is refused on its size before any read.
func readFileLimited(path, what string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tooLarge := fmt.Errorf("%s %s: %w: more than %d bytes (%d MiB), the limit for a %s", what, path, ErrFileTooLarge,
		limit, limit>>20, what)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > limit {
		return nil, tooLarge
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, tooLarge
	}
	return data, nil
}
