# Rhizome. Every target that builds or tests runs build/setup.sh first (it
# installs what is missing), even when invoked alone, and everything that
# depends on what setup installs is decided in recipes, after it: on a new
# machine the first `make run`, `make test` or `make bench` passes.
SHELL := /bin/bash
export PATH := /usr/local/go/bin:$(PATH)

BIN := build/bin/rhizome
FAKEMODEL := build/bin/fakemodel
SETUP := ./build/setup.sh
GO_SOURCES := $(shell find . -name '*.go' -not -path './frontend/*' 2>/dev/null) go.mod go.sum
FRONTEND_SOURCES := $(shell find frontend/src frontend/index.html frontend/package.json frontend/vite.config.ts -type f 2>/dev/null)

.PHONY: run test setup build frontend generate contract go-test frontend-test setup-test e2e window-test agents-test bench clean

run: build
	./$(BIN)

setup:
	@$(SETUP)

build: $(BIN)

frontend: frontend/dist/index.html

frontend/dist/index.html: $(FRONTEND_SOURCES) frontend/package-lock.json | setup
	cd frontend && npm run build

# The WebKitGTK build tag (webkit2_41 where only 4.1 is installed) is decided
# by build/tags.sh here, after setup, never when make reads this file.
$(BIN): frontend/dist/index.html $(GO_SOURCES) | setup
	tags=$$(./build/tags.sh) && go build -tags "$$tags" -ldflags "-w -s" -o $(BIN) .

# The browser suite (e2e) runs in the foreground; beside it run go vet and
# go test, at a lower priority (nice), and the frontend's unit tests, the
# Makefile's own test, the window's test and the coding agents' MCP test,
# one after the other. The browser suite mostly waits on software WebGL
# frames, the fake model and timers, and the others take the cores it
# leaves: one after the other they took 20 minutes on two cores. Each
# background lane's output is kept in a temporary file of its own
# (setup-test's `make -n test` runs this line too) and printed after the
# browser suite's.
test: contract build
	@golog=$$(mktemp); restlog=$$(mktemp); \
	nice -n 10 $(MAKE) --no-print-directory go-test > $$golog 2>&1 & gopid=$$!; \
	$(MAKE) --no-print-directory frontend-test setup-test window-test agents-test > $$restlog 2>&1 & restpid=$$!; \
	$(MAKE) --no-print-directory e2e; e2estatus=$$?; \
	wait $$restpid; rest=$$?; cat $$restlog; \
	wait $$gopid; gostatus=$$?; cat $$golog; rm -f $$golog $$restlog; \
	if [ $$gostatus -ne 0 ] || [ $$rest -ne 0 ] || [ $$e2estatus -ne 0 ]; then \
	  echo "make test: failed (browser suite: status $$e2estatus; frontend units, Makefile, window and agents: status $$rest; go vet and go test: status $$gostatus)"; exit 1; fi
	@echo "make test: all suites passed"

# The frontend's side of the contract, generated from the Go use cases and
# their types by Wails' binding generator (build/contract): the TypeScript
# types, each use case's signature and the method list, committed in
# frontend/src/lib/generated. `make generate` writes them; `make contract`
# (the first step of `make test`) fails, naming each stale file, when the
# committed ones are not what the Go types give.
generate: setup
	go run -tags bindings ./build/contract

contract: setup
	go run -tags bindings ./build/contract -check

# -timeout: a bound for a package that hangs, not a speed check; a loaded
# two-core machine took more than go test's default 10 minutes for app once,
# and with a CPU hog on both cores (this lane runs niced beside the browser
# suite) app took more than 30.
go-test: setup
	go vet ./...
	go test -timeout 90m ./...

frontend-test: setup
	cd frontend && npm test

# The Makefile itself: setup first for every target, the build tag decided
# after setup (WebKitGTK appearing during the run, as on a new machine).
setup-test: setup
	./build/setup-order-test.sh

# The fake model the end-to-end tests generate with: a command of its own,
# so that the release binary links no test server.
$(FAKEMODEL): $(GO_SOURCES) | setup
	go build -o $(FAKEMODEL) ./build/fakemodel

e2e: $(BIN) $(FAKEMODEL)
	cd frontend && RHIZOME_BIN=$(CURDIR)/$(BIN) RHIZOME_FAKEMODEL=$(CURDIR)/$(FAKEMODEL) npm run test:e2e

window-test: $(BIN)
	./build/window-test.sh $(BIN)

# The README's set-up lines for `rhizome mcp`, run with the real coding
# agents against scripted local model servers that call search, then get on
# a URI from the search result; two agents at a time (AGENTS_JOBS). The
# agents (build/agents, pinned in its package.json, about 1.5 GB) are
# installed here, for this test alone: `make run` does not need them.
agents-test: $(BIN)
	@if [ ! -f build/agents/node_modules/.package-lock.json ] || [ build/agents/package-lock.json -nt build/agents/node_modules/.package-lock.json ]; then \
	  echo "agents-test: installing the coding agents of the MCP test (build/agents)"; \
	  (cd build/agents && npm ci --no-audit --no-fund --loglevel=error) || exit 1; fi
	cd build/agents && RHIZOME_BIN=$(CURDIR)/$(BIN) npm test --silent

# Speed figures: import of a ~300 MB corpus against a bare encoding/json
# decode of the same bytes (same run), peak RSS, the import's CPU per MB of
# each newer agent's real sessions (Gemini CLI, Qwen Code, Copilot CLI,
# Cline) against pi's own, copied alike (build/bench/agents.go), and the Go
# benchmarks;
# search over the 258-session library and over 100,000 nodes against the
# designs they replace (store/search_bench_test.go), the backlinks of one
# item among 100,000 links against a scan of every link
# (store/links_bench_test.go), and a 10,000-node reasoning graph opened and
# walked through its history by the use cases against a bare decode of its
# snapshot (app, Reasoning*), and the frontend's lane layout of 10,000 nodes
# against a sort of them (frontend/src/**/*.bench.ts), in the same run; and
# the graph's cluster overview of 12,000 nodes in Chromium (make test draws
# 4,000, the same steps in a third of the time).
bench: build $(FAKEMODEL)
	go run ./build/bench --bin $(BIN) --mb $${BENCH_MB:-300}
	go test -run '^$$' -bench . -benchmem ./backend/...
	go test -run '^$$' -bench 'KeywordSearch|HybridSearch|Backlinks|ItemSearch' -benchtime 1x -timeout 60m -v ./store
	go test -run '^$$' -bench 'Reasoning|ImportClineReread5MB|ImportClineBareDecode5MB' -benchmem ./app/
	go test -run '^$$' -bench 'DeriveRelationsStored10k|BaselineReadRelationSegments10k' -benchtime 1x -v ./app
	cd frontend && npx vitest bench --run
	cd frontend && RHIZOME_E2E_CLUSTER_NODES=12000 RHIZOME_BIN=$(CURDIR)/$(BIN) RHIZOME_FAKEMODEL=$(CURDIR)/$(FAKEMODEL) npm run test:e2e -- graph-clusters

clean:
	rm -rf build/bin frontend/dist/assets frontend/dist/index.html
