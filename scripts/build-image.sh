#!/usr/bin/env bash
# npm run image: builds the Dockerfile into an image kept in the local engine's store, with whichever engine is here:
# docker (when its daemon answers), podman or buildah, tried in that order. Prints the image's name and how to run it.
#
#   npm run image                                   # policy-pool-sync:<version of package.json>
#   IMAGE=registry.example.com/pps:1 npm run image  # another name
#   ENGINE=podman npm run image                     # this engine, not the first that works
#   npm run image -- --build-arg NODE_IMAGE=...     # more arguments for the engine's build command
#
# podman and buildah build with --format docker: the OCI format has no HEALTHCHECK, and they would drop it silently.
# An image buildah builds is in the containers-storage podman reads: run it with podman. test/image/run.sh builds
# through this script, then runs the image and checks it.
set -euo pipefail
PROJECT=$(cd "$(dirname "$0")/.." && pwd)
VERSION=$(sed -n 's/^  "version": "\([^"]*\)",$/\1/p' "$PROJECT/package.json")
IMAGE=${IMAGE:-policy-pool-sync:${VERSION:?no version in package.json}}
fail() { echo "build-image: $*" >&2; exit 1; }

# Why an engine cannot build here; nothing when it can.
unusable() {
  command -v "$1" >/dev/null 2>&1 || { echo "$1 is not installed"; return; }
  case $1 in
    docker) docker info >/dev/null 2>&1 || echo "docker is installed, but its daemon does not answer (docker info fails): start it" ;;
    podman) podman info >/dev/null 2>&1 || echo "podman is installed, but podman info fails: $(podman info 2>&1 | tail -1)" ;;
    buildah) buildah version >/dev/null 2>&1 || echo "buildah is installed, but buildah version fails" ;;
    *) echo "$1 is not an engine this script knows: use docker, podman or buildah" ;;
  esac
}

if [ -n "${ENGINE:-}" ]; then
  why=$(unusable "$ENGINE")
  [ -z "$why" ] || fail "ENGINE=$ENGINE: $why"
else
  reasons=()
  for candidate in docker podman buildah; do
    why=$(unusable "$candidate")
    if [ -z "$why" ]; then ENGINE=$candidate; break; fi
    reasons+=("$why")
  done
  [ -n "${ENGINE:-}" ] || fail "no container engine can build here: $(IFS=';'; echo "${reasons[*]}" | sed 's/;/; /g'). Install one of docker, podman or buildah."
fi

echo "building $IMAGE with $ENGINE from $PROJECT" >&2
case $ENGINE in
  docker) docker build -t "$IMAGE" "$@" "$PROJECT" ;;
  podman) podman build --format docker -t "$IMAGE" "$@" "$PROJECT" ;;
  buildah) buildah build --format docker -t "$IMAGE" "$@" "$PROJECT" ;;
esac
run=$ENGINE
[ "$ENGINE" != buildah ] || run=podman
echo "built $IMAGE with $ENGINE; run it with: $run run --rm -p 9090:9090 $IMAGE" >&2
