# Tambua. `make run` starts the server on the embedded default (SQLite and
# local files under ./data); `make test` runs the whole suite. Both call
# `make setup` first, which installs what a fresh machine lacks.
GO ?= go
DATA ?= data
ADDR ?= 127.0.0.1:8080
export TAMBUA_MODELS ?= $(CURDIR)/models
export TAMBUA_TESTDATA ?= $(abspath $(CURDIR)/../shared/testdata)

.PHONY: setup build run test lint bench fuzz generate train-liveness

setup:
	@./scripts/setup.sh

build: setup
	$(GO) build -o bin/tambua ./cmd/tambua

run: build
	./bin/tambua serve --addr $(ADDR) --data $(DATA)

test: setup
	./scripts/test.sh

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...

bench: setup
	$(GO) test -run '^$$' -bench . -benchmem ./...

# Every fuzz target for FUZZTIME each (default 60s; FUZZTIME=10m for the
# long campaign, FUZZ=regexp to pick targets). See docs/fuzzing.md.
FUZZTIME ?= 60s
FUZZ ?= .
fuzz: setup
	FUZZTIME=$(FUZZTIME) FUZZ='$(FUZZ)' ./scripts/fuzz.sh

generate:
	$(GO) generate ./...

# Regenerates the liveness classifier from the synthetic corpus (seeded, so
# the same file comes out; about 10 minutes on 2 cores).
train-liveness: setup
	$(GO) run ./cmd/tambua liveness train -out checks/liveness/model.json
