# `make test` runs every test from a fresh clone: it installs the Go modules and the
# end-to-end suite's npm packages (from the lockfile), then runs the Go tests with the
# race detector and the end-to-end suite against the real binary.
.PHONY: test go-test e2e-test example-test copilotkit-test lint static image fuzz bench npm

# static builds the binary exactly as the Dockerfile does: static, stripped, reproducible.
# VERSION=1.2.3 stamps the version --version prints; without it, the build info's.
OUT ?= agui-mock
VERSION ?=
static:
	CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags="-s -w$(if $(VERSION), -X github.com/agui-mock/agui-mock/internal/cmd.version=$(VERSION))" -o $(OUT) .

# npm cross-compiles the binary (as static does) for each platform of NPM_PLATFORMS into
# one npm package per platform, and writes agui-mock, the package whose bin runs the
# right one (npm/pack.mjs), all in NPM_DIR: `npm pack` or `npm publish` each directory.
NPM_VERSION ?= 0.0.0-dev
NPM_PLATFORMS ?= linux-x64 linux-arm64 darwin-x64 darwin-arm64 win32-x64
NPM_DIR ?= build/npm
npm:
	rm -rf $(NPM_DIR)
	for platform in $(NPM_PLATFORMS); do \
	  os=$${platform%-*}; cpu=$${platform#*-}; exe=agui-mock; \
	  goos=$$os; [ $$os = win32 ] && goos=windows && exe=agui-mock.exe; \
	  goarch=$$cpu; [ $$cpu = x64 ] && goarch=amd64; \
	  GOOS=$$goos GOARCH=$$goarch $(MAKE) --no-print-directory static OUT=$(NPM_DIR)/$$platform/bin/$$exe VERSION=$(NPM_VERSION) || exit 1; \
	done
	node npm/pack.mjs $(NPM_DIR) $(NPM_VERSION) $(NPM_PLATFORMS)

# image builds the Dockerfile's final stage offline as agui-mock:dev (see the Dockerfile):
# a single-stage copy of it, written into a small build context, whose base is a scratch
# image with the CA bundle and the nonroot user (65532) and whose binary is the one
# `make static` builds. Nothing is pulled, and any builder builds it: BuildKit through
# buildx where the plugin is installed, else the legacy builder, which a Docker 23+ CLI
# without buildx, or Debian's docker.io 20.10, still runs (DOCKER names another CLI).
IMAGE ?= agui-mock:dev
DOCKER ?= docker
IMAGE_CONTEXT = build/image
CA_BUNDLE ?= /etc/ssl/certs/ca-certificates.crt
image:
	rm -rf $(IMAGE_CONTEXT)
	mkdir -p $(IMAGE_CONTEXT)/out/scenarios $(IMAGE_CONTEXT)/rootfs/etc/ssl/certs $(IMAGE_CONTEXT)/rootfs/tmp
	$(MAKE) static OUT=$(IMAGE_CONTEXT)/out/agui-mock
	cp docker/passwd docker/group $(IMAGE_CONTEXT)/rootfs/etc/
	cp $(CA_BUNDLE) $(IMAGE_CONTEXT)/rootfs/etc/ssl/certs/ca-certificates.crt
	chmod 1777 $(IMAGE_CONTEXT)/rootfs/tmp
	{ printf 'FROM scratch\nCOPY rootfs/ /\n'; \
	  sed -n '/^FROM $${RUNTIME_IMAGE}$$/,$$p' Dockerfile | sed -e 1d -e 's|--from=build ||' -e 's| /out/| out/|'; \
	} > $(IMAGE_CONTEXT)/Dockerfile
	@if grep -q -e '--from=' -e '/out/' $(IMAGE_CONTEXT)/Dockerfile; then \
	  echo "make image: the Dockerfile's final stage must copy only --from=build /out/"; exit 1; fi
	if $(DOCKER) buildx version >/dev/null 2>&1; then \
	  $(DOCKER) buildx build --load -t $(IMAGE) $(IMAGE_CONTEXT); \
	else \
	  echo "make image: $(DOCKER) has no buildx plugin: building with the legacy builder" \
	    "(for BuildKit, install the buildx plugin: docker-buildx-plugin from Docker's apt repository)"; \
	  DOCKER_BUILDKIT=0 $(DOCKER) build -t $(IMAGE) $(IMAGE_CONTEXT); \
	fi

test: lint go-test fuzz bench e2e-test

# actionlint checks the workflows; pinned, and fetched through the Go module proxy.
ACTIONLINT = github.com/rhysd/actionlint/cmd/actionlint@v1.7.12
lint:
	go mod download
	go run $(ACTIONLINT) .github/workflows/*.yml
	@go mod tidy -diff || { echo "go.mod or go.sum is not tidy: run go mod tidy"; exit 1; }
	@unformatted="$$(gofmt -l .)"; if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	go vet ./...

# go-test runs every Go test. Four read the official AG-UI spec material, which a clone
# lacks: they skip (saying so) unless it is at ../shared/agui-spec or $AGUI_SPEC_DIR, and
# fail in CI (CI set), where it must be present.
go-test:
	@dir="$${AGUI_SPEC_DIR:-../shared/agui-spec}"; if [ ! -f "$$dir/1.1/schema.json" ]; then \
	  what="be skipped"; if [ -n "$$CI" ]; then what="FAIL, as CI is set"; fi; \
	  echo "go-test: WARNING: no AG-UI spec material at $$dir (set AGUI_SPEC_DIR): the schema and conformance tests will $$what"; fi
	go test -race -count=1 ./...

# bench runs every benchmark a few times, so they cannot rot. Its figures are not kept,
# but a failure prints everything the run said.
BENCH = go test -run XXX -bench . -benchtime 3x ./...
bench:
	@echo "$(BENCH)"
	@out="$$($(BENCH) 2>&1)" || { printf '%s\n' "$$out"; echo "bench: a benchmark failed"; exit 1; }

# fuzz runs every fuzz target briefly: a count of inputs rather than a time, since the
# fuzzing engine can fail a timed run with "context deadline exceeded" as its time ends
# (FUZZTIME=10m for a long run).
FUZZTIME ?= 20000x
fuzz:
	go test -run XXX -fuzz '^FuzzDecodeRunAgentInput$$' -fuzztime $(FUZZTIME) ./protocol
	go test -run XXX -fuzz '^FuzzDecodeJSONFast$$' -fuzztime $(FUZZTIME) ./protocol
	go test -run XXX -fuzz '^FuzzFrameReader$$' -fuzztime $(FUZZTIME) ./protocol
	go test -run XXX -fuzz '^FuzzProtoFrameReader$$' -fuzztime $(FUZZTIME) ./protocol
	go test -run XXX -fuzz '^FuzzAppendString$$' -fuzztime $(FUZZTIME) ./protocol
	go test -run XXX -fuzz '^FuzzFreezeThaw$$' -fuzztime $(FUZZTIME) ./protocol
	go test -run XXX -fuzz '^FuzzLoad$$' -fuzztime $(FUZZTIME) ./scenarios
	go test -run XXX -fuzz '^FuzzTemplates$$' -fuzztime $(FUZZTIME) ./scenarios
	go test -run XXX -fuzz '^FuzzRecordedTextReadsBackTheSame$$' -fuzztime $(FUZZTIME) ./scenarios

# e2e-test builds the TypeScript clients (the admin client, and the Testcontainers module
# and the Playwright kit that use it, and the CopilotKit runtime kit), installs the real agents the suite records from
# (e2e/agents, their own lockfile), and builds the image when a Docker daemon answers;
# without one, the container tests skip loudly (and fail in CI). Then the suite, then the
# example app.
e2e-test:
	cd clients/client && npm ci --no-audit --no-fund && npm run build
	cd clients/testcontainers && npm ci --no-audit --no-fund && npm run build
	cd clients/playwright && npm ci --no-audit --no-fund && npm run build
	cd clients/copilotkit && npm ci --no-audit --no-fund && npm run build
	cd e2e && npm ci --no-audit --no-fund
	cd e2e/agents && npm ci --no-audit --no-fund
	@if $(DOCKER) info >/dev/null 2>&1; then $(MAKE) image; else echo "e2e-test: no Docker daemon answers: the container tests will be skipped"; fi
	cd e2e && DOCKER=$(DOCKER) AGUI_MOCK_IMAGE=$(IMAGE) npm test
	$(MAKE) --no-print-directory example-test
	$(MAKE) --no-print-directory copilotkit-test

# copilotkit-test runs the CopilotKit browser suite (e2e/copilotkit-app, its own
# lockfile): a page on the real @copilotkit/react-core v2, driven by the real
# @playwright/test in the Chromium of @sparticuz/chromium, with its runtimeUrl at the real
# @copilotkit/runtime in front of the mock, at the mock's own runtime routes, and at a
# runtime of @agui-mock/copilotkit; against the binary static builds. It needs the
# clients e2e-test builds.
copilotkit-test:
	$(MAKE) --no-print-directory static OUT=build/agui-mock
	cd e2e/copilotkit-app && npm ci --no-audit --no-fund && MOCK_BIN=$(CURDIR)/build/agui-mock npm test

# example-test runs the example app's Playwright specs (examples/playwright-app, its own
# lockfile) with the real @playwright/test runner and the Chromium of @sparticuz/chromium,
# against the binary static builds; and type-checks the spec `agui-mock init` writes.
# It needs the clients e2e-test builds.
example-test:
	$(MAKE) --no-print-directory static OUT=build/agui-mock
	cd examples/playwright-app && npm ci --no-audit --no-fund && MOCK_BIN=$(CURDIR)/build/agui-mock npm test
