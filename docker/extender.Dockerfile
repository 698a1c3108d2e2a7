# extender.Dockerfile: the dagsched-extender image. Multi-stage: build with the Debian toolchain, then copy the
# binary onto debian-slim with only the shared libraries it links, running as a non-root user.
# Build from the repository root:  docker build -f docker/extender.Dockerfile -t dagsched/dagsched-extender .
FROM debian:bookworm AS build
RUN apt-get update && apt-get install -y --no-install-recommends \
      build-essential pkg-config libyaml-dev libjansson-dev libcurl4-openssl-dev \
      libwebsockets-dev libssl-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# The commit built (the build context has no .git): docker build --build-arg DAGSCHED_GIT=...
ARG DAGSCHED_GIT=unknown
RUN make bin/dagsched-extender DAGSCHED_GIT="$DAGSCHED_GIT"

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends \
      ca-certificates libyaml-0-2 libjansson4 libcurl4 libwebsockets17 libssl3 \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/bin/dagsched-extender /usr/bin/dagsched-extender
USER 65532:65532
ENTRYPOINT ["/usr/bin/dagsched-extender"]
