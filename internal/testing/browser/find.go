package browser

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// ErrNotFound: no Chromium on this machine.
var ErrNotFound = errors.New("browser: no Chromium found")

// EnvPath names the variable that points at a Chromium binary.
const EnvPath = "KCM_CHROMIUM"

// candidates are the names looked for on $PATH, in order.
var candidates = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// Find returns the path of the Chromium to drive: $KCM_CHROMIUM when set
// (it must exist), else the first candidate on $PATH.
func Find() (string, error) {
	return find(os.Getenv(EnvPath), exec.LookPath)
}

func find(env string, look func(string) (string, error)) (string, error) {
	if env != "" {
		if st, err := os.Stat(env); err != nil || st.IsDir() {
			return "", fmt.Errorf("%w: $%s=%q is not a file", ErrNotFound, EnvPath, env)
		}
		return env, nil
	}
	for _, c := range candidates {
		if p, err := look(c); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w: $%s is unset and none of %s is on $PATH; install one "+
		"(Debian: apt-get install chromium — `make test` does this when run as root) or set $%s",
		ErrNotFound, EnvPath, strings.Join(candidates, ", "), EnvPath)
}

// Flags are the command-line flags a test browser starts with: headless,
// no sandbox (tests may run as root), no GPU, and none of the background
// traffic (updates, sync, field trials) that a closed network refuses.
func Flags(profileDir string) []string {
	return []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
		"--no-first-run", "--no-default-browser-check", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--disable-extensions", "--hide-scrollbars",
		"--mute-audio", "--user-data-dir=" + profileDir, "--remote-debugging-port=0", "--remote-allow-origins=*",
	}
}
