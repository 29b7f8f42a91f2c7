package testenv

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rs/zerolog"
)

// EnvCache names the environment variable that overrides where built
// binaries are cached (default: os.UserCacheDir()/kcm/testenv).
const EnvCache = "KCM_TESTENV_CACHE"

// CacheDir returns the directory that holds the built binaries, one
// sub-directory per name and version (".../kube-apiserver-v1.37.2/").
func CacheDir() (string, error) {
	if d := os.Getenv(EnvCache); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory (set %s): %w", EnvCache, err)
	}
	return filepath.Join(d, "kcm", "testenv"), nil
}

// Binaries are the paths of the two programs a cluster runs.
type Binaries struct {
	Etcd      string
	APIServer string
	// Release is the release they were built at; empty for binaries a
	// caller supplied (Options.Binaries) without saying.
	Release Release
}

// EnsureBinaries returns the cached etcd and kube-apiserver of the release
// EnvKubeVersion selects (the reference release by default), building each
// one first if it is not cached yet. progress receives the human-readable
// build progress (nil: os.Stderr).
func EnsureBinaries(ctx context.Context, progress io.Writer, log zerolog.Logger) (Binaries, error) {
	rel, err := SelectedRelease()
	if err != nil {
		return Binaries{}, err
	}
	return EnsureRelease(ctx, rel, progress, log)
}

// EnsureRelease returns the cached etcd and kube-apiserver of rel, building
// each one first if it is not cached yet (each release and etcd version has
// its own cache directory).
func EnsureRelease(ctx context.Context, rel Release, progress io.Writer, log zerolog.Logger) (Binaries, error) {
	b, err := newBuilder(progress, log)
	if err != nil {
		return Binaries{}, err
	}
	etcd, err := b.ensure(ctx, etcdRecipe(rel.Etcd))
	if err != nil {
		return Binaries{}, err
	}
	api, err := b.ensure(ctx, apiserverRecipe(rel.Kubernetes))
	if err != nil {
		return Binaries{}, err
	}
	return Binaries{Etcd: etcd, APIServer: api, Release: rel}, nil
}

// EnsureControllerManager returns the cached kube-controller-manager,
// building it first if it is not cached yet. It is separate from
// EnsureBinaries because only the tests that compare kcm with
// kube-controller-manager need it: every other test starts without
// waiting for its first build. It is always the reference release's
// (KubernetesVersion), whatever EnvKubeVersion says: kcm's controllers are
// compared with that release's.
func EnsureControllerManager(ctx context.Context, progress io.Writer, log zerolog.Logger) (string, error) {
	b, err := newBuilder(progress, log)
	if err != nil {
		return "", err
	}
	return b.ensure(ctx, controllerManagerRecipe())
}

// newBuilder returns a builder for the cache directory; progress nil means
// os.Stderr.
func newBuilder(progress io.Writer, log zerolog.Logger) (*builder, error) {
	dir, err := CacheDir()
	if err != nil {
		return nil, err
	}
	if progress == nil {
		progress = os.Stderr
	}
	return &builder{cacheDir: dir, progress: progress, log: log}, nil
}

// builder builds recipes into the cache directory.
type builder struct {
	cacheDir string
	progress io.Writer
	log      zerolog.Logger
}

// ensure returns the path of r's binary, building it under an exclusive
// lock when it is missing. The binary appears in its final place only by
// an atomic rename, so a path that exists is always a complete binary.
func (b *builder) ensure(ctx context.Context, r recipe) (string, error) {
	dir := r.cacheDir(b.cacheDir)
	final := filepath.Join(dir, r.name)
	if isCurrent(final, r) {
		return final, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create cache dir: %w", err)
	}
	unlock, err := lockExclusive(ctx, filepath.Join(dir, ".lock"), func() {
		fmt.Fprintf(b.progress, "testenv: waiting for another process to finish building %s %s in %s\n", r.name, r.version, dir)
	})
	if err != nil {
		return "", err
	}
	defer unlock()
	if isCurrent(final, r) { // built by whoever held the lock before us
		return final, nil
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, buildTimeout)
		defer cancel()
	}
	if err := b.build(ctx, r, dir, final); err != nil {
		return "", fmt.Errorf("build %s %s: %w", r.name, r.version, err)
	}
	return final, nil
}

// build runs r in a throw-away module under dir and renames the result to
// final. The go command's output goes to dir/build.log.
func (b *builder) build(ctx context.Context, r recipe, dir, final string) error {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("the go command is needed to build test binaries: %w", err)
	}
	work, err := os.MkdirTemp(dir, "build-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	logPath := filepath.Join(dir, "build.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logFile.Close()

	start := time.Now()
	sink := &buildSink{log: logFile, progress: newBuildProgress(r, dir, start)}
	fmt.Fprintln(b.progress, sink.progress.banner())
	b.log.Info().Str("binary", r.name).Str("version", r.version).Str("dir", dir).Msg("building")
	stopTicker := b.tick(sink)
	defer stopTicker()

	g := &goTool{bin: goBin, dir: work, out: sink}
	if err := r.setup(ctx, g); err != nil {
		return withTail(err, logPath, sink)
	}
	if args := r.compileArgs(); args != nil {
		if err := g.run(ctx, args...); err != nil {
			return withTail(err, logPath, sink)
		}
	}
	tmp := filepath.Join(dir, "."+r.name+".tmp-"+filepath.Base(work))
	defer os.Remove(tmp) // a no-op after the rename
	if err := g.run(ctx, r.buildArgs(tmp)...); err != nil {
		return withTail(err, logPath, sink)
	}
	if r.finish != nil {
		if err := r.finish(ctx, g, dir); err != nil {
			return withTail(err, logPath, sink)
		}
	}
	if err := install(tmp, final, r); err != nil {
		return err
	}
	stopTicker()
	fmt.Fprintln(b.progress, sink.doneLine(time.Now()))
	return nil
}

// tick prints the progress report every progressInterval until the returned
// function is called (which may happen more than once).
func (b *builder) tick(sink *buildSink) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(progressInterval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case now := <-t.C:
				fmt.Fprintln(b.progress, sink.report(now))
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(done); wg.Wait() }) }
}

// withTail wraps a failed go command's error with the last lines it printed.
func withTail(err error, logPath string, sink *buildSink) error {
	return fmt.Errorf("%w\nlast lines of %s:\n%s", err, logPath, sink.tail())
}

// goTool runs the go command in one directory, sending its stderr (and the
// stdout of run) to out.
type goTool struct {
	bin string
	dir string
	out io.Writer
}

// run runs `go args...`.
func (g *goTool) run(ctx context.Context, args ...string) error {
	_, err := g.exec(ctx, g.out, args)
	return err
}

// output runs `go args...` and returns its stdout.
func (g *goTool) output(ctx context.Context, args ...string) ([]byte, error) {
	var stdout bytes.Buffer
	_, err := g.exec(ctx, &stdout, args)
	return stdout.Bytes(), err
}

func (g *goTool) exec(ctx context.Context, stdout io.Writer, args []string) (*exec.Cmd, error) {
	cmd := exec.CommandContext(ctx, g.bin, args...)
	cmd.Dir = g.dir
	// The flags must match how the project builds these binaries elsewhere,
	// so that the Go build cache is shared: CGO_ENABLED=0, GOFLAGS inherited.
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOWORK=off", "GO111MODULE=on")
	cmd.Stdout = stdout
	cmd.Stderr = g.out
	// The go command starts compilers and linkers; cancel kills them all.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Run(); err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return cmd, fmt.Errorf("go %s: %w", strings.Join(args, " "), ctxErr)
		}
		return cmd, fmt.Errorf("go %s: %w", strings.Join(args, " "), err)
	}
	return cmd, nil
}

// buildSink is the io.Writer the go command writes to: it copies every byte
// to the build log, feeds complete lines to the progress state machine and
// keeps the last lines for error messages. The go command and the progress
// ticker use it from different goroutines, hence the mutex.
type buildSink struct {
	log io.Writer

	mu       sync.Mutex
	progress *buildProgress // guarded by mu
	partial  []byte         // an unterminated last line; guarded by mu
	last     []string       // at most tailLines recent lines; guarded by mu
}

const tailLines = 40

func (s *buildSink) Write(p []byte) (int, error) {
	if _, err := s.log.Write(p); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.partial = append(s.partial, p...)
	for {
		i := bytes.IndexByte(s.partial, '\n')
		if i < 0 {
			break
		}
		s.lineLocked(string(s.partial[:i]))
		s.partial = s.partial[i+1:]
	}
	return len(p), nil
}

func (s *buildSink) lineLocked(line string) {
	s.progress.observe(line)
	s.last = append(s.last, line)
	if len(s.last) > tailLines {
		s.last = s.last[len(s.last)-tailLines:]
	}
}

func (s *buildSink) report(now time.Time) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.progress.report(now)
}

func (s *buildSink) doneLine(now time.Time) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.progress.done(now)
}

func (s *buildSink) tail() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	lines := append([]string(nil), s.last...)
	if len(s.partial) > 0 {
		lines = append(lines, string(s.partial))
	}
	return strings.Join(lines, "\n")
}

// cacheDir is the directory under the cache root that holds r's binary:
// one per binary name and version ("kube-apiserver-v1.36.3").
func (r recipe) cacheDir(root string) string { return filepath.Join(root, r.name+"-"+r.version) }

// stampPath is where the stamp of the binary at path is kept.
func stampPath(binary string) string { return binary + ".stamp" }

// isCurrent reports whether path is an executable built by recipe r as it
// is now (its stamp matches) and the recipe's extra files are beside it.
func isCurrent(path string, r recipe) bool {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return false
	}
	for _, name := range r.extras {
		if fi, err := os.Stat(filepath.Join(filepath.Dir(path), name)); err != nil || !fi.Mode().IsRegular() {
			return false
		}
	}
	stamp, err := os.ReadFile(stampPath(path))
	return err == nil && string(stamp) == r.stamp()
}

// install moves the freshly built binary tmp to final, then records its
// stamp. Both steps are renames, so readers never see a partial file; a
// crash between them leaves a stale stamp, which only causes a rebuild.
func install(tmp, final string, r recipe) error {
	if err := os.Rename(tmp, final); err != nil {
		return fmt.Errorf("install binary: %w", err)
	}
	stampTmp := tmp + ".stamp"
	if err := os.WriteFile(stampTmp, []byte(r.stamp()), 0o644); err != nil {
		return fmt.Errorf("write stamp: %w", err)
	}
	if err := os.Rename(stampTmp, stampPath(final)); err != nil {
		return fmt.Errorf("install stamp: %w", err)
	}
	return nil
}
