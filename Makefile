# Rhizome. `make run` and `make test` install what is missing first.
SHELL := /bin/bash
export PATH := /usr/local/go/bin:$(PATH)

BIN := build/bin/rhizome
# WebKitGTK 4.0 on Debian 12; 4.1 on newer systems needs the webkit2_41 tag.
TAGS := desktop,production$(shell pkg-config --exists webkit2gtk-4.0 2>/dev/null || echo ,webkit2_41)
GO_SOURCES := $(shell find . -name '*.go' -not -path './frontend/*' 2>/dev/null) go.mod go.sum
FRONTEND_SOURCES := $(shell find frontend/src frontend/index.html frontend/package.json frontend/vite.config.ts -type f 2>/dev/null)

.PHONY: run test setup build frontend go-test frontend-test e2e window-test bench clean

run: setup build
	./$(BIN)

setup:
	@./build/setup.sh

build: $(BIN)

frontend: frontend/dist/index.html

frontend/dist/index.html: $(FRONTEND_SOURCES) frontend/package-lock.json
	cd frontend && npm run build
	touch frontend/dist/.gitkeep

$(BIN): frontend/dist/index.html $(GO_SOURCES)
	go build -tags $(TAGS) -ldflags "-w -s" -o $(BIN) .

test: setup build go-test frontend-test e2e window-test
	@echo "make test: all suites passed"

go-test:
	go vet ./...
	go test ./...

frontend-test:
	cd frontend && npm test

e2e: $(BIN)
	cd frontend && RHIZOME_BIN=$(CURDIR)/$(BIN) npm run test:e2e

window-test: $(BIN)
	./build/window-test.sh $(BIN)

# Speed figures: import of a ~300 MB corpus against a bare encoding/json
# decode of the same bytes (same run), peak RSS, and the Go benchmarks.
bench: setup build
	go run ./build/bench --bin $(BIN) --mb $${BENCH_MB:-300}
	go test -run '^$$' -bench . -benchmem ./backend/...

clean:
	rm -rf build/bin frontend/dist/assets frontend/dist/index.html
