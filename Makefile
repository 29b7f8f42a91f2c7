# kcm — the two commands are `make test` and `make dev`; see README.md.
SHELL    := /bin/bash
GO       ?= go
PKGS     ?= ./...
TESTARGS ?=

# The chaos suite's first seed: derived from the commit, so that every change explores other seeds; printed so
# that a failure reproduces with one command. Plain `go test` starts at seed 1.
CHAOS_SEED ?= $(shell h=$$(git rev-parse --short=8 HEAD 2>/dev/null) && echo $$((0x$$h % 1000000 + 1)) || echo 1)
CHAOS_SEEDS ?= 1000

# Mutation testing (gremlins, run from the module proxy so the root go.mod stays lean). The real-cluster tests carry
# the build tag !nocluster: each mutant reruns the package's tests, and a cluster per mutant would take hours.
GREMLINS       ?= github.com/go-gremlins/gremlins/cmd/gremlins@v0.6.0
MUTATE_PKGS    ?= ./reflector ./deltafifo ./store ./processor ./queue ./lease ./internal/ring ./ctrl ./ctrl/controllerref
PKG            ?= $(MUTATE_PKGS)
MUTATE_WORKERS ?= 1

.PHONY: test test-json dev vet prepare browser bench bench-manager fmt chaos mutate compat e2e

## test: vet, build the real test cluster (cached), run every test with -race, then the bench module's tests.
test: vet prepare browser
	@echo "chaos: 5 seeds from $(CHAOS_SEED); replay: KCM_CHAOS_SEED=$(CHAOS_SEED) KCM_CHAOS_SEEDS=5 go test -race -run TestChaos ./informer/"
	KCM_CHAOS_SEED=$(CHAOS_SEED) $(GO) test -race -count=1 -timeout 45m $(TESTARGS) $(PKGS)
	cd bench && $(GO) test -race -count=1 -run . -timeout 20m ./...

## test-json: the manager, controller and differential tests with the code under test on JSON
## (--kube-api-content-type=application/json; `make test` runs them on protobuf, the default). JSON_PKGS narrows it.
JSON_PKGS ?= ./manager/... ./ctrl/... ./internal/testing/difftest/...
test-json: prepare
	KCM_TEST_CONTENT_TYPE=application/json $(GO) test -race -count=1 -timeout 45m $(TESTARGS) $(JSON_PKGS)

## chaos: the chaos suite at depth (CHAOS_SEEDS seeds from CHAOS_SEED, -race).
chaos:
	set -o pipefail; KCM_CHAOS_SEED=$(CHAOS_SEED) KCM_CHAOS_SEEDS=$(CHAOS_SEEDS) $(GO) test -race -count=1 -timeout 120m -run 'TestChaos$$' -v ./informer/ | grep -v '^=== RUN\|^    --- PASS\|^--- PASS'

## mutate: mutation testing with gremlins, per package (PKG=./lease for one); fails below 95% efficacy or 90% coverage.
mutate:
	@set -e; for p in $(PKG); do echo "== gremlins $$p"; \
	  $(GO) run $(GREMLINS) unleash --tags nocluster --workers $(MUTATE_WORKERS) --timeout-coefficient 10 \
	    --threshold-efficacy 95 --threshold-mcover 90 $$p; done

## dev: start a local real etcd + kube-apiserver and run kcm against it.
dev:
	@mkdir -p bin && $(GO) build -o bin/kcm ./cmd/kcm
	@bin/kcm dev || test $$? -eq 130

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet $(PKGS)
	cd bench && $(GO) vet ./...

prepare:
	$(GO) run ./cmd/kcm dev --build-only

## browser: the browser tests (pipeview, cmd/kcm) drive headless Chromium: find it ($$KCM_CHROMIUM or on $$PATH), or
## install Debian's package when run as root; otherwise fail with the reason (the tests themselves fail, never skip).
browser:
	@test -n "$$KCM_CHROMIUM" || command -v chromium >/dev/null || command -v chromium-browser >/dev/null || \
	  command -v google-chrome >/dev/null || command -v google-chrome-stable >/dev/null || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing Chromium for the browser tests: apt-get install chromium"; \
	    export DEBIAN_FRONTEND=noninteractive; \
	    apt-get install -y -qq chromium >/dev/null || { apt-get update -qq && apt-get install -y -qq chromium >/dev/null; } || \
	      { echo "make test: could not install Chromium (apt-get install chromium failed; see above)"; exit 1; }; \
	  else \
	    echo "make test: the browser tests need Chromium: install it (Debian: apt-get install chromium, as root)" \
	      "or set KCM_CHROMIUM to a Chromium binary"; exit 1; \
	  fi; }

## bench: the side-by-side benchmarks (bench/ is its own module); `cd bench && go run ./cmd/report` tabulates them.
bench:
	cd bench && $(GO) test -run '^$$' -bench . -benchmem -timeout 60m

## bench-manager: kcm beside kube-controller-manager as processes on real clusters (time to 1000 pods, memory and CPU
## to synced caches on 10k pods; with --benchmarks endpoints, 1000 Services x 10 pods on kwok nodes: last pod Ready to
## last Endpoints/EndpointSlice write, writes per pod update in a rolling update, RSS and CPU; with --benchmarks
## statefulsets, 100 StatefulSets x 3 replicas on kwok nodes: time to all Ready, a rollout of every set, RSS and CPU;
## with --benchmarks nodes, 100 kwok nodes with 3000 pods of which 10 nodes stop heartbeating: time to their NoExecute
## taints and pods Ready=False, RSS and CPU while monitoring; with --benchmarks quotas, 1000 namespaces each with a
## ResourceQuota and 10 pods: time to every quota's status.used correct, then after deleting 1000 pods, RSS and CPU);
## BENCH_MANAGER_ARGS passes flags (go run ./cmd/kcm-bench --help), e.g. --runs 1, or --benchmarks endpoints
## --es-services 200, or --benchmarks statefulsets --sts-sets 10, or --benchmarks quotas --rq-namespaces 50.
BENCH_MANAGER_ARGS ?=
bench-manager:
	@mkdir -p bin && $(GO) build -o bin/kcm ./cmd/kcm
	$(GO) run ./cmd/kcm-bench --kcm bin/kcm --out bin/bench-manager.md $(BENCH_MANAGER_ARGS)

## compat: the real-apiserver engine tests (list, watch, WatchList and its fallback, WebSocket, 410 relist) and the
## manager smoke test against every supported Kubernetes release (testenv.Releases: each release's kube-apiserver and
## etcd built once, cached); prints the release × group matrix (also in bin/compat.md) and one line per failure naming
## the release and the test. Not part of `make test`. COMPAT_ARGS passes flags (go run ./cmd/kcm-compat --help), e.g.
## COMPAT_ARGS='--releases v1.35.4 --groups watchlist'.
COMPAT_ARGS ?=
compat:
	@mkdir -p bin
	$(GO) run ./cmd/kcm-compat --out bin/compat.md $(COMPAT_ARGS)

fmt:
	gofmt -w $$(git ls-files '*.go')

## e2e: upstream's e2e specs of kcm's controllers (k8s.io/kubernetes test/e2e) under kube-controller-manager alone,
## then under kcm, on test clusters with kube-scheduler, kwok nodes and a claim binder with a default StorageClass;
## writes docs/e2e/RESULTS.md. Not part of `make test`: a first run builds the e2e binary (minutes), and each run takes
## tens of minutes. E2E_ARGS passes flags (go run ./cmd/kcm-e2e --help), e.g. one group:
## E2E_ARGS="--focus '\[sig-apps\] StatefulSet ' --out docs/e2e/RESULTS-statefulset.md --workdir bin/e2e-sts".
E2E_ARGS ?=
e2e:
	@mkdir -p bin && $(GO) build -o bin/kcm ./cmd/kcm
	$(GO) run ./cmd/kcm-e2e --kcm bin/kcm --out docs/e2e/RESULTS.md $(E2E_ARGS)
