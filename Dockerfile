# syntax=docker/dockerfile:1
# The icount image: the static icount of the release archive (make dist) on
# Debian trixie-slim, whose C library, loader and shell let dynamically
# linked programs (and the scripts they run) run under icount; nothing of
# the build (no Go, no compiler, no Unicorn). arm64 programs that are
# dynamically linked need their libraries too: add them and name them with
# --sysroot.
#
#   docker build --build-arg VERSION=$(git describe --tags --always) -t icount .
#   docker run --rm -v "$PWD:/work" icount run ./bench

ARG GO_VERSION=1.26

# The build: Debian trixie's Unicorn 2.1.1 (its static library) and the
# release archive's packaging, with its checks that the binary is static.
FROM golang:${GO_VERSION}-trixie AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends libunicorn-dev pkg-config file \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=devel
RUN make static ICOUNT_VERSION="$VERSION" \
 && scripts/dist.sh bin/icount-static "$VERSION" /dist \
 && mkdir -p /out/bin /out/doc \
 && tar -xzf "/dist/icount-$VERSION-linux-amd64.tar.gz" -C /out/doc --strip-components=1 \
 && mv /out/doc/icount /out/bin/icount

FROM debian:trixie-slim
COPY --from=build /out/bin/icount /usr/local/bin/icount
COPY --from=build /out/doc /usr/local/share/doc/icount
WORKDIR /work
ENTRYPOINT ["icount"]
CMD ["help"]
