# policy-pool-sync as a container: the daemon, configured by /config/default.yaml (mount your own over it).
# Build: docker build -t policy-pool-sync .        (npm run test:image builds and checks it with podman)
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
# git for git sources; ca-certificates for https remotes and the API; tini as PID 1.
# git pulls in perl (about 50 MB), which fetch and clone never run: it is removed.
RUN apt-get update \
 && apt-get install -y --no-install-recommends git ca-certificates tini \
 && dpkg --purge --force-depends perl perl-modules-5.36 libperl5.36 liberror-perl \
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
# Group 0 and group-writable: a platform that runs the image as an arbitrary uid in group 0 (OpenShift) can write it.
RUN mkdir -p /var/lib/policy-pool-sync \
 && chown node:0 /var/lib/policy-pool-sync \
 && chmod 2775 /var/lib/policy-pool-sync
USER node
EXPOSE 9090
# Asks /healthz on the port LISTEN_ADDRESS names.
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 CMD ["node", "dist/healthcheck.js"]
# tini is PID 1: it reaps orphaned processes (git helpers left by an aborted fetch; node does not reap them) and
# forwards SIGTERM to node, which finishes the changes under way and exits 0.
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/cli.js", "--config", "/config/default.yaml"]
