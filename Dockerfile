# Container images of the operator and the API server, one recipe:
#
#   docker build --target operator -t ghcr.io/telark/protectionplans-operator:main .
#   docker build --target server   -t ghcr.io/telark/protectionplans-server:main .
#
# Static binaries (CGO_ENABLED=0) on a distroless base with no shell, run
# as a numeric non-root user (Kubernetes' runAsNonRoot can only check a
# number). The zone database is in the binaries (import _ "time/tzdata"),
# so plans' windows never depend on the image's /usr/share/zoneinfo.
# test/install's TestDockerfile runs the build line below and checks the
# binaries; no image is built in CI (no container engine there).

FROM golang:1.26 AS build
WORKDIR /src
# The library and the examples module (which replaces it with ../).
COPY go.mod go.sum ./
COPY examples/go.mod examples/go.sum examples/
RUN cd examples && go mod download
COPY . .
ARG TARGETOS=linux
ARG TARGETARCH=amd64
RUN cd examples && CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH go build -trimpath -ldflags=-s -o /out/ ./operator ./server

FROM gcr.io/distroless/static-debian12:nonroot AS operator
COPY --from=build /out/operator /operator
USER 65532:65532
ENTRYPOINT ["/operator"]

FROM gcr.io/distroless/static-debian12:nonroot AS server
COPY --from=build /out/server /server
USER 65532:65532
ENTRYPOINT ["/server"]
