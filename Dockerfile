# A small, static, non-root image: the built-in scenarios are embedded, your own go in
# /scenarios (mounted and watched), and everything is configured by AGUI_MOCK_* variables.
#
# `docker build .` is the release recipe: the binary is compiled in a Go image and runs on
# distroless static as user nonroot (65532). `make image` builds this same file offline:
# the binary `make static` built and a scratch base holding what distroless gives the
# server (CA bundle, nonroot user, /tmp), so the image the tests run differs from the
# release only there. Both need BuildKit (Docker's default builder since 23.0), which
# builds only the stages the image uses: the legacy builder would build every stage.
ARG BUILDER_IMAGE=golang:1.26
ARG RUNTIME_IMAGE=gcr.io/distroless/static-debian12:nonroot
# the stage whose /out the image takes: build (compiled here) or prebuilt (by make image)
ARG BINARY=build

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

FROM scratch AS prebuilt
COPY out/ /out/

FROM scratch AS scratch-nonroot
COPY rootfs/ /

FROM ${BINARY} AS binary

FROM ${RUNTIME_IMAGE}
ARG VERSION=dev
LABEL org.opencontainers.image.title=agui-mock \
      org.opencontainers.image.description="A mock AG-UI agent for frontend development and end-to-end tests" \
      org.opencontainers.image.source=https://github.com/agui-mock/agui-mock \
      org.opencontainers.image.version=$VERSION
COPY --from=binary /out/agui-mock /usr/local/bin/agui-mock
COPY --from=binary --chown=65532:65532 /out/scenarios /scenarios
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
