# syntax=docker/dockerfile:1
# The wasm-ccm image: `docker build -t wasm-ccm:0.1.0 .` from the repository root; manifests/ runs it.
#
# Base: the official Node image, Debian bookworm slim, at the exact Node version the project builds and tests with
# (the `node` devDependency in package.json; a unit test keeps the two equal). Chosen over distroless nodejs24 for
# that pin (distroless tracks its own Node patch release), for a shell to debug with (`kubectl exec`), and for one
# base in every stage (the glibc and Node that install the dependencies are the ones that run them). The runtime
# stage drops npm, npx, corepack and yarn, which it does not need and which are most of the base's CVE surface
# beyond Node itself.
ARG NODE_VERSION=24.21.0
# Any image laid out as the official one (node, npm and npx in /usr/local/bin, Debian bookworm, apt) may stand in:
# scripts/build-image.sh builds one from Debian's packages and the pinned Node where no registry can be pulled from.
ARG BASE_IMAGE=node:${NODE_VERSION}-bookworm-slim

# Build: compile the host (tsc -> dist/) and the reference plugins, with the dev dependencies.
FROM ${BASE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY host ./host
COPY plugin-sdk ./plugin-sdk
COPY plugins ./plugins
COPY scripts ./scripts
# tsconfig.json compiles scripts/, and scripts/pack/ imports the packages' sources; `wasm-ccm dev` (packages/) starts
# the lab's control plane.
COPY packages ./packages
COPY lab/controlplane ./lab/controlplane
COPY lab/process ./lab/process
RUN npm run build && npm run build:plugins

# Runtime dependencies only (no compiler, test runner or linter); none of them has an install script.
FROM ${BASE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

FROM ${BASE_IMAGE}
# libjemalloc2: the allocator LD_PRELOAD names below (~0.8 MB).
RUN rm -rf /usr/local/lib/node_modules /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack \
      /usr/local/bin/yarn /usr/local/bin/yarnpkg /opt/yarn-* \
  && apt-get update \
  && apt-get install -y --no-install-recommends libjemalloc2 \
  && rm -rf /var/lib/apt/lists/* \
  && groupadd --gid 65532 nonroot \
  && useradd --uid 65532 --gid 65532 --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin nonroot
WORKDIR /app
ENV NODE_ENV=production
# jemalloc instead of glibc's malloc (by its bare name: the loader finds it in any architecture's library directory).
# A burst of LoadBalancer syncs grows the plugin pool to ~10 worker threads for a minute; glibc keeps what they and the
# main thread malloc'd resident after they are gone, jemalloc gives it back: steady RSS at 5,000 Nodes / 10,000
# Services after 1,000 LBs 317 -> 231 MB, idle +4-7 MB (lab/ccm/image.ts has the numbers; benchmarks use the same
# environment, IMAGE_ENV, and a unit test keeps the two equal).
ENV LD_PRELOAD=libjemalloc.so.2
# jemalloc purges freed pages on an arena's own allocator activity only: what a plugin worker freed stays resident
# after the worker exits, since no thread uses its arena any more. A background thread purges them after the decay
# time (10 s). Plugin pool burst from 2 to 11 workers and back: 92 -> 197 -> 114 MB without, -> 92 MB with it.
# Purging at every free instead (dirty_decay_ms:0) also returned it, but cost 25-100% more CPU per HTTP request.
ENV MALLOC_CONF=background_thread:true
# package.json: "type": "module" makes Node load dist/ as ES modules.
COPY --from=deps /app/package.json ./package.json
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /src/dist/host ./dist/host
# The reference plugins (devcloud, example, aws, openstack), for the conformance kit and for trying the image; a
# cluster loads its plugin from the ConfigMap mounted at /etc/wasm-ccm/plugins (manifests/) or from this folder.
COPY --from=build /src/plugins/*/build/*.wasm /usr/lib/wasm-ccm/plugins/
USER 65532:65532
EXPOSE 10258
# Node runs as PID 1 without an init: the kernel gives PID 1 no default signal actions, but wasm-ccm installs its own
# SIGTERM/SIGINT handlers (graceful stop: in-flight calls finish, the Lease is released, exit 0), and it starts no
# child processes (plugins run in worker threads), so there are no zombies to reap. No tini needed.
# No HEALTHCHECK: Kubernetes probes /livez and /readyz on port 10258 (manifests/deployment.yaml).
# --max-semi-space-size=1: a 1 MiB nursery for the main thread's short-lived JSON garbage keeps RSS ~50 MB lower at
# 5,000 Nodes / 10,000 Services for no measurable CPU. --heap-growing-percent=100: a full GC once the old generation
# has doubled, as Go's GOGC=100 for the upstream CCM (lab/ccm/image.ts has the numbers; benchmarks use the same).
ENTRYPOINT ["node", "--max-semi-space-size=1", "--heap-growing-percent=100", "dist/host/src/main.js"]
