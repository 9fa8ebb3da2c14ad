# A small, static, non-root image: the built-in scenarios are embedded, your own go in
# /scenarios (mounted and watched), and everything is configured by AGUI_MOCK_* variables.
#
# `docker build .` is the release recipe: the binary is compiled in a Go image and runs on
# distroless static as user nonroot (65532). It needs BuildKit (Docker's default builder
# since 23.0, through the buildx plugin): the legacy builder would build every stage and
# cannot read --platform=$BUILDPLATFORM, so the first stage, which BuildKit never builds,
# stops it with a message saying what to run.
#
# `make image` builds the final stage of this file offline, with any builder: it writes
# a single-stage copy of it whose base is a scratch image holding what distroless gives
# the server (CA bundle, nonroot user, /tmp) and whose binary is the one `make static`
# built. Keep the final stage's COPY lines reading --from=build /out/.
ARG BUILDER_IMAGE=golang:1.26
ARG RUNTIME_IMAGE=gcr.io/distroless/static-debian12:nonroot

FROM scratch AS needs-buildkit
COPY ["this Dockerfile needs BuildKit: run docker buildx build . (Docker 23+ with the buildx plugin), or DOCKER_BUILDKIT=1 docker build . (Docker 18.09 to 22), or make image, which builds with any builder", "/"]

FROM --platform=$BUILDPLATFORM ${BUILDER_IMAGE} AS build
ARG TARGETOS TARGETARCH
# the release's version, which --version prints; unset, the build info's
ARG VERSION
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# the same target CI builds and tests; cross-compiled, so an arm64 image needs no emulator
RUN GOOS=$TARGETOS GOARCH=$TARGETARCH make static OUT=/out/agui-mock VERSION=$VERSION && mkdir -p /out/scenarios

FROM ${RUNTIME_IMAGE}
ARG VERSION=dev
LABEL org.opencontainers.image.title=agui-mock \
      org.opencontainers.image.description="A mock AG-UI agent for frontend development and end-to-end tests" \
      org.opencontainers.image.source=https://github.com/agui-mock/agui-mock \
      org.opencontainers.image.version=$VERSION
COPY --from=build /out/agui-mock /usr/local/bin/agui-mock
COPY --from=build --chown=65532:65532 /out/scenarios /scenarios
ENV AGUI_MOCK_ADDR=0.0.0.0:8000 \
    AGUI_MOCK_SCENARIOS=/scenarios \
    AGUI_MOCK_LOG_FORMAT=json
EXPOSE 8000
USER 65532:65532
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD ["/usr/local/bin/agui-mock", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/agui-mock"]
CMD ["serve"]
