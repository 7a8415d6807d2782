# syntax=docker/dockerfile:1
# policy-pool-sync as a container: the daemon, configured by /config/default.yaml (mount your own over it).
# Build: docker build -t policy-pool-sync .
# Run:   docker run --rm -p 9090:9090 policy-pool-sync           (embedded emulator: nothing real is changed)

ARG NODE_IMAGE=node:22-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: the package's prepare script would build before the sources are copied; the build is the next step.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
RUN npm run build

FROM ${NODE_IMAGE} AS runtime
# git for git sources; ca-certificates for https remotes and the API.
RUN apt-get update \
 && apt-get install -y --no-install-recommends git ca-certificates \
 && rm -rf /var/lib/apt/lists/*
# Under a memory limit Node sizes its heap to it; with none, V8 lets garbage grow toward the host's memory, which
# this cap prevents (see the README's memory sizing).
ENV NODE_ENV=production \
    NODE_OPTIONS=--max-old-space-size=192 \
    LISTEN_ADDRESS=0.0.0.0:9090 \
    STATE_DIR=/var/lib/policy-pool-sync
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && npm cache clean --force
COPY --from=build /app/dist ./dist
# The config schema is read at run time; the example repo serves the default (embedded) config.
COPY schemas ./schemas
COPY examples ./examples
COPY config/default.yaml /config/default.yaml
RUN mkdir -p /var/lib/policy-pool-sync \
 && chown node:node /var/lib/policy-pool-sync
USER node
EXPOSE 9090
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:9090/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node is PID 1 and handles SIGTERM itself: it stops taking triggers, finishes the pass in flight and exits 0.
CMD ["node", "dist/cli.js", "--config", "/config/default.yaml"]
