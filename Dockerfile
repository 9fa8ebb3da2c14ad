# syntax=docker/dockerfile:1
# A small, static, non-root image: the built-in scenarios are embedded, your own go in
# /scenarios (mounted and watched), and everything is configured by AGUI_MOCK_* variables.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# the same target CI builds and tests
RUN make static OUT=/out/agui-mock && mkdir -p /out/scenarios

FROM gcr.io/distroless/static-debian12:nonroot
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
