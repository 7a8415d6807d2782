# policy-pool-sync as a container: the daemon from the committed bundle, what `npm start` and `npm install -g` run,
# configured by /config/default.yaml (mount your own over it).
# Build: npm run image (docker, podman or buildah, whichever is here), or docker build -t policy-pool-sync .
#        (npm run test:image builds it through npm run image with podman, then checks it)
# Run:   docker run --rm -p 9090:9090 policy-pool-sync           (embedded emulator: nothing real is changed)

ARG NODE_IMAGE=node:22-bookworm-slim

# The root file system, assembled in a Debian stage (scripts/image-rootfs.sh): node, tini, git for fetch and clone,
# dash as /bin/sh, the CA bundle and the libraries they load, with a dpkg status entry for each Debian package whose
# files are copied. Then the bundle, the schemas, the config and the example repo the default config serves. No npm,
# no node_modules, no build: the bundle is committed and kept in step with the sources by the tests.
FROM ${NODE_IMAGE} AS rootfs
RUN apt-get update \
 && apt-get install -y --no-install-recommends git ca-certificates tini binutils \
 && rm -rf /var/lib/apt/lists/*
COPY scripts/image-rootfs.sh /usr/local/sbin/image-rootfs.sh
# The state dir belongs to group 0 and is group-writable: a platform that runs the image as an arbitrary uid in
# group 0 (OpenShift) can write it. (COPY --from keeps owners and modes.)
RUN sh /usr/local/sbin/image-rootfs.sh /rootfs \
 && mkdir -p /rootfs/var/lib/policy-pool-sync \
 && chown 1000:0 /rootfs/var/lib/policy-pool-sync \
 && chmod 2775 /rootfs/var/lib/policy-pool-sync
COPY bundle /rootfs/app/bundle
COPY schemas /rootfs/app/schemas
COPY config /rootfs/app/config
COPY config/default.yaml /rootfs/config/default.yaml
COPY examples/declared /rootfs/app/examples/declared

FROM scratch
COPY --from=rootfs /rootfs /
# Under a memory limit Node sizes its heap to it; with none, V8 lets garbage grow toward the host's memory, which
# the old-space cap prevents. The young generation is capped at 8 MiB a semi-space: a pass over 20,000 policies then
# peaks at 247 MiB, not 258 (docs/daemon.md, "Sizing").
ENV PATH=/usr/local/bin:/usr/bin \
    NODE_ENV=production \
    NODE_OPTIONS="--max-old-space-size=192 --max-semi-space-size=8" \
    LISTEN_ADDRESS=0.0.0.0:9090 \
    STATE_DIR=/var/lib/policy-pool-sync
WORKDIR /app
# Numeric, so that Kubernetes can verify runAsNonRoot.
USER 1000:1000
EXPOSE 9090
# Asks /healthz on the port LISTEN_ADDRESS names.
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 CMD ["node", "bundle/healthcheck.mjs"]
# tini is PID 1: it reaps orphaned processes (git helpers left by an aborted fetch; node does not reap them) and
# forwards SIGTERM to node, which finishes the changes under way and exits 0.
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "bundle/policy-pool-sync.mjs", "--config", "/config/default.yaml"]
