# Sourced by scripts/container-*.sh: buildah as this machine runs it without a Docker engine.
# vfs storage (no overlay mounts needed) in a folder of its own, chroot isolation (no namespaces
# needed; the container shares the host's network).
SHOPSYNC_BUILDAH_ROOT=${SHOPSYNC_BUILDAH_ROOT:-/var/tmp/shopsync-containers}
export BUILDAH_ISOLATION=chroot
bah() {
  buildah --root "$SHOPSYNC_BUILDAH_ROOT/storage" --runroot "$SHOPSYNC_BUILDAH_ROOT/run" --storage-driver vfs "$@"
}
