# kcm — the two commands are `make test` and `make dev`; see README.md.
GO       ?= go
PKGS     ?= ./...
TESTARGS ?=

.PHONY: test dev vet prepare bench fmt

## test: vet, build the real test cluster (cached), run every test with -race.
test: vet prepare
	$(GO) test -race -count=1 -timeout 45m $(TESTARGS) $(PKGS)

## dev: start a local real etcd + kube-apiserver and run kcm against it.
dev:
	@mkdir -p bin && $(GO) build -o bin/kcm ./cmd/kcm
	@bin/kcm dev || test $$? -eq 130

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet $(PKGS)

prepare:
	$(GO) run ./cmd/kcm dev --build-only

## bench: the side-by-side benchmarks (bench/ is its own module); `cd bench && go run ./cmd/report` tabulates them.
bench:
	cd bench && $(GO) test -run '^$$' -bench . -benchmem -timeout 60m

fmt:
	gofmt -w $$(git ls-files '*.go')
