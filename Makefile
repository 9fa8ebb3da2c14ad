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

# npm writes every npm package of a release into NPM_DIR, all at NPM_VERSION: `npm pack`
# or `npm publish` each directory.
# - one package per platform of NPM_PLATFORMS, holding the binary cross-compiled as
#   static builds it, and agui-mock, the package whose bin runs the right one;
# - the clients of NPM_CLIENTS (client first: the others build against it), each built
#   with its own `npm ci` and `npm run build` in a copy of clients/ in NPM_CLIENTS_BUILD,
#   so that a build never rewrites the dist or node_modules that tests of this tree may
#   be reading at the time; their file:../client dependencies become NPM_VERSION, which
#   is what a project installing them from a registry or from their tarballs resolves.
# npm/pack.mjs writes the manifests.
NPM_VERSION ?= 0.0.0-dev
NPM_PLATFORMS ?= linux-x64 linux-arm64 darwin-x64 darwin-arm64 win32-x64
NPM_DIR ?= build/npm
NPM_CLIENTS = client playwright testcontainers copilotkit
NPM_CLIENTS_BUILD ?= $(NPM_DIR).clients
npm:
	rm -rf $(NPM_DIR) $(NPM_CLIENTS_BUILD)
	for platform in $(NPM_PLATFORMS); do \
	  os=$${platform%-*}; cpu=$${platform#*-}; exe=agui-mock; \
	  goos=$$os; [ $$os = win32 ] && goos=windows && exe=agui-mock.exe; \
	  goarch=$$cpu; [ $$cpu = x64 ] && goarch=amd64; \
	  GOOS=$$goos GOARCH=$$goarch $(MAKE) --no-print-directory static OUT=$(NPM_DIR)/$$platform/bin/$$exe VERSION=$(NPM_VERSION) || exit 1; \
	done
	mkdir -p $(NPM_CLIENTS_BUILD)
	tar -C clients --exclude=node_modules --exclude=dist -cf - $(NPM_CLIENTS) | tar -C $(NPM_CLIENTS_BUILD) -xf -
	for pkg in $(NPM_CLIENTS); do \
	  (cd $(NPM_CLIENTS_BUILD)/$$pkg && npm ci --no-audit --no-fund && npm run build) || exit 1; \
	done
	node npm/pack.mjs --clients $(NPM_CLIENTS_BUILD) $(NPM_DIR) $(NPM_VERSION) $(NPM_PLATFORMS)

# image builds the Dockerfile's final stage offline as agui-mock:dev (see the Dockerfile):
# a single-stage copy of it, written into a small build context, whose base is a scratch
# image with the CA bundle and the nonroot user (65532) and whose binary is the one
# `make static` builds. Nothing is pulled, and any builder builds it: BuildKit through
# buildx where the plugin is installed, else the legacy builder, which a Docker 23+ CLI
# without buildx, or Debian's docker.io 20.10, still runs (DOCKER names another CLI).
#
# BINARY=path builds it around a binary built elsewhere instead, with no Go toolchain:
# e.g. the one of the npm package @agui-mock/cli-linux-x64. The image runs it on an empty
# base, so it is checked first: a Linux ELF executable of the architecture the daemon
# builds for (IMAGE_ARCH, amd64 or arm64; asked of the daemon unless given), without an
# ELF interpreter, i.e. statically linked, as make static links it.
IMAGE ?= agui-mock:dev
DOCKER ?= docker
IMAGE_CONTEXT = build/image
# where Debian and Alpine, macOS, and Fedora keep the system's CA bundle
CA_BUNDLE ?= $(firstword $(wildcard /etc/ssl/certs/ca-certificates.crt /etc/ssl/cert.pem /etc/pki/tls/certs/ca-bundle.crt))
BINARY ?=
IMAGE_ARCH ?= $(shell $(DOCKER) version --format '{{.Server.Arch}}' 2>/dev/null)
image:
ifneq ($(BINARY),)
	@bin="$(BINARY)"; arch="$(IMAGE_ARCH)"; cpu=$$arch; [ "$$arch" = amd64 ] && cpu=x64; \
	fail() { echo "make image: BINARY=$$bin $$*" >&2; exit 1; }; \
	use="use the binary of @agui-mock/cli-linux-$${cpu:-x64} or cli-linux-arm64, for the daemon's architecture (docs/docker.md#building-the-image)"; \
	[ -z "$$arch" ] || use="use the binary of @agui-mock/cli-linux-$$cpu (docs/docker.md#building-the-image)"; \
	[ -f "$$bin" ] || fail "is not a file"; \
	head=$$(od -An -tx1 -N20 -v "$$bin" | tr -d ' \n'); \
	case $$head in \
	  7f454c46*) ;; \
	  cffaedfe*|cefaedfe*|cafebabe*) fail "is a macOS binary, but the image runs Linux: $$use";; \
	  4d5a*) fail "is a Windows binary, but the image runs Linux: $$use";; \
	  *) fail "is not an executable: $$use";; \
	esac; \
	[ -n "$$arch" ] || { echo "make image: no Docker daemon answers $(DOCKER) version, so the image's architecture is unknown: start Docker, or set IMAGE_ARCH=amd64 or arm64" >&2; exit 1; }; \
	case $$head in \
	  7f454c4602010100*3e00) got=amd64;; 7f454c4602010100*b700) got=arm64;; \
	  7f454c4602010109*) got=freebsd;; *) got="machine $$(printf %s "$$head" | cut -c33-40)";; \
	esac; \
	[ "$$got" = "$$arch" ] || fail "is an ELF binary for $$got, but the daemon builds linux/$$arch images: $$use"; \
	phoff=$$(od -An -tu8 -j32 -N8 "$$bin" | tr -d ' '); phent=$$(od -An -tu2 -j54 -N2 "$$bin" | tr -d ' '); \
	phnum=$$(od -An -tu2 -j56 -N2 "$$bin" | tr -d ' '); i=0; \
	while [ $$i -lt $$phnum ]; do \
	  [ "$$(od -An -tu4 -j$$((phoff + i * phent)) -N4 "$$bin" | tr -d ' ')" != 3 ] \
	    || fail "is dynamically linked, and the image has no libc: build it with CGO_ENABLED=0, as make static does, or $$use"; \
	  i=$$((i + 1)); \
	done
endif
	@[ -n "$(CA_BUNDLE)" ] || { echo "make image: no CA bundle where the system keeps one: set CA_BUNDLE=path" >&2; exit 1; }
	rm -rf $(IMAGE_CONTEXT)
	mkdir -p $(IMAGE_CONTEXT)/out/scenarios $(IMAGE_CONTEXT)/rootfs/etc/ssl/certs $(IMAGE_CONTEXT)/rootfs/tmp
ifeq ($(BINARY),)
	$(MAKE) static OUT=$(IMAGE_CONTEXT)/out/agui-mock
else
	cp "$(BINARY)" $(IMAGE_CONTEXT)/out/agui-mock
	chmod 755 $(IMAGE_CONTEXT)/out/agui-mock
endif
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
# fail in CI (CI set), where it must be present. The tests that count allocations
# (named ...WithoutAllocating) run again without the race detector, whose sync.Pool
# drops items at random: under it they skip.
go-test:
	@dir="$${AGUI_SPEC_DIR:-../shared/agui-spec}"; if [ ! -f "$$dir/1.1/schema.json" ]; then \
	  what="be skipped"; if [ -n "$$CI" ]; then what="FAIL, as CI is set"; fi; \
	  echo "go-test: WARNING: no AG-UI spec material at $$dir (set AGUI_SPEC_DIR): the schema and conformance tests will $$what"; fi
	go test -race -count=1 ./...
	go test -count=1 -run 'WithoutAllocating' ./...

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
