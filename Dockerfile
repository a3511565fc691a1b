# A small image for running mcpconform where Docker is at hand:
#   docker build -t mcpconform . && docker run --rm mcpconform version
# The release's image is built without Docker by release/image from the
# release's Linux binaries, to the same shape: a static binary, no shell,
# a non-root user.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=0.1.0-dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.toolVersion=${VERSION}" -o /out/mcpconform ./cmd/mcpconform

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/mcpconform /usr/local/bin/mcpconform
USER 65532:65532
WORKDIR /work
ENTRYPOINT ["/usr/local/bin/mcpconform"]
