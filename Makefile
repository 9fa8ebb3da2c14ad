# `make test` runs every test from a fresh clone: it installs the Go modules and the
# end-to-end suite's npm packages (from the lockfile), then runs the Go tests with the
# race detector and the end-to-end suite against the real binary.
.PHONY: test go-test e2e-test lint static fuzz bench

# static builds the binary exactly as the Dockerfile does: static, stripped, reproducible.
OUT ?= agui-mock
static:
	CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags="-s -w" -o $(OUT) .

test: lint go-test fuzz bench e2e-test

lint:
	go mod download
	@go mod tidy -diff || { echo "go.mod or go.sum is not tidy: run go mod tidy"; exit 1; }
	@unformatted="$$(gofmt -l .)"; if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	go vet ./...

go-test:
	go test -race -count=1 ./...

# bench runs every benchmark a few times, so they cannot rot.
bench:
	go test -run XXX -bench . -benchtime 3x ./... > /dev/null

# fuzz runs every fuzz target briefly (FUZZTIME=10m for a long run).
FUZZTIME ?= 5s
fuzz:
	go test -run XXX -fuzz '^FuzzDecodeRunAgentInput$$' -fuzztime $(FUZZTIME) ./protocol
	go test -run XXX -fuzz '^FuzzFrameReader$$' -fuzztime $(FUZZTIME) ./protocol
	go test -run XXX -fuzz '^FuzzLoad$$' -fuzztime $(FUZZTIME) ./scenarios
	go test -run XXX -fuzz '^FuzzTemplates$$' -fuzztime $(FUZZTIME) ./scenarios

e2e-test:
	cd e2e && npm ci --no-audit --no-fund && npm test
