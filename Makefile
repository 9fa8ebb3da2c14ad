# `make test` runs every test from a fresh clone: it installs the Go modules and the
# end-to-end suite's npm packages (from the lockfile), then runs the Go tests with the
# race detector and the end-to-end suite against the real binary.
.PHONY: test go-test e2e-test lint static

# static builds the binary exactly as the Dockerfile does: static, stripped, reproducible.
OUT ?= agui-mock
static:
	CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags="-s -w" -o $(OUT) .

test: lint go-test e2e-test

lint:
	go mod download
	@unformatted="$$(gofmt -l .)"; if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	go vet ./...

go-test:
	go test -race -count=1 ./...

e2e-test:
	cd e2e && npm ci --no-audit --no-fund && npm test
