#!/usr/bin/env bash
# Builds the wasm-ccm image from the Dockerfile with buildah (vfs storage, chroot isolation: no container engine or
# daemon needed, as root) and writes it as an OCI image layout into the cache outside the work tree, keyed by a hash of
# the build context, the Dockerfile and the base, so a warm machine builds nothing (seconds). No registry can be
# pulled from here, so the Dockerfile's base (BASE_IMAGE) is built first from Debian's packages (debootstrap) and the
# Node binary the project pins (node_modules/node), laid out as the official node:<version>-bookworm-slim image, and
# kept in the cache's buildah storage keyed by its own recipe. buildah, runc, umoci, skopeo and debootstrap come from
# Debian's packages when missing. Idempotent; safe to run concurrently (one build at a time under a lock, the layout
# written to a temporary name and renamed). Progress goes to stderr; stdout is the layout's path alone.
#   --print-dir   print the layout directory for the current inputs and exit (builds nothing)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cache="${WASM_CCM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/wasm-ccm}"
dir="$cache/image"
suite=bookworm
mirror=http://deb.debian.org/debian
npm_version=11.19.1 # the npm of the base's /usr/local/lib/node_modules/npm (the build stage's `npm ci`)
debs=(buildah runc umoci skopeo debootstrap)
# What the build context holds (.dockerignore's allow-list), hashed as the key of the image.
context=(Dockerfile .dockerignore package.json package-lock.json tsconfig.json host plugin-sdk plugins scripts packages
  lab/controlplane lab/process)

die() { echo "build-image: $*" >&2; exit 1; }

pkg_version() { sed -n "s/^  \"version\": \"\\(.*\\)\",\$/\\1/p" "$root/package.json"; }
node_pin() { sed -n "s/^    \"node\": \"\\(.*\\)\",\$/\\1/p" "$root/package.json"; }
version=$(pkg_version)
node_version=$(node_pin)
[ -n "$version" ] && [ -n "$node_version" ] || die "cannot read the version and the node pin from package.json"
node_bin="$root/node_modules/node/bin/node"

# The base's recipe is this function's own text: changing it rebuilds the base, changing anything else does not.
build_base() {
  local name=$1 work
  work=$(mktemp -d "$dir/base.XXXXXX")
  local rootfs="$work/rootfs"
  echo "build-image: debootstrap $suite (minbase) from $mirror" >&2
  debootstrap --variant=minbase "$suite" "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 ||
    { tail -20 "$work/debootstrap.log" >&2; rm -rf "$work"; die "debootstrap $suite failed (is $mirror reachable?)"; }
  # As the official slim images: no documentation, manuals or translations, now or from later installs.
  printf '%s\n' 'path-exclude /usr/share/doc/*' 'path-include /usr/share/doc/*/copyright' \
    'path-exclude /usr/share/man/*' 'path-exclude /usr/share/info/*' 'path-exclude /usr/share/locale/*' \
    >"$rootfs/etc/dpkg/dpkg.cfg.d/slim"
  find "$rootfs/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
  rm -rf "$rootfs"/usr/share/{man,info,locale}/* "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin \
    "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/log/*.log "$rootfs"/var/cache/debconf/*-old
  # Nor do later installs keep their packages, package caches or translations (what the official images set).
  printf '%s\n' 'DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/*.bin || true"; };' \
    'Dir::Cache::pkgcache ""; Dir::Cache::srcpkgcache "";' 'Acquire::Languages "none";' \
    >"$rootfs/etc/apt/apt.conf.d/docker-clean"
  printf 'Types: deb\nURIs: %s\nSuites: %s %s-updates\nComponents: main\nSigned-By: %s\n\n' "$mirror" "$suite" \
    "$suite" /usr/share/keyrings/debian-archive-keyring.gpg >"$rootfs/etc/apt/sources.list.d/debian.sources"
  printf 'Types: deb\nURIs: http://deb.debian.org/debian-security\nSuites: %s-security\nComponents: main\nSigned-By: %s\n' \
    "$suite" /usr/share/keyrings/debian-archive-keyring.gpg >>"$rootfs/etc/apt/sources.list.d/debian.sources"
  : >"$rootfs/etc/apt/sources.list"
  # Node and npm where the official image has them.
  install -m 755 "$node_bin" "$rootfs/usr/local/bin/node"
  mkdir -p "$rootfs/usr/local/lib/node_modules/npm"
  (cd "$work" && npm pack --silent "npm@$npm_version" >/dev/null) || { rm -rf "$work"; die "npm pack npm@$npm_version failed"; }
  tar -xzf "$work/npm-$npm_version.tgz" -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  local ctr
  ctr=$(bah from scratch)
  cp -a "$rootfs/." "$(bah mount "$ctr")/"
  bah config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin --env NODE_VERSION="$node_version" \
    --cmd node --os linux --arch amd64 "$ctr"
  bah commit --quiet --rm "$ctr" "$name" >/dev/null
  rm -rf "$work"
}

bah() { buildah --root "$dir/storage" --runroot "$dir/run" --storage-driver vfs "$@"; }

base_hash=$( { declare -f build_base; echo "$suite $mirror node $node_version npm $npm_version"; } | sha256sum | cut -c1-10)
base="localhost/wasm-ccm-base:node$node_version-$suite-$base_hash"

context_hash() {
  git -C "$root" rev-parse --git-dir >/dev/null 2>&1 || die "$root is not a git work tree (the context is listed by git)"
  {
    echo "$base"
    declare -f build_image
    cd "$root" && git ls-files -co --exclude-standard -- "${context[@]}" | grep -v '\.test\.ts$' | sort |
      while IFS= read -r f; do [ -f "$f" ] && printf '%s\0' "$f"; done | xargs -0 sha256sum
  } | sha256sum | cut -c1-10
}

install_debs() {
  local missing=() p
  for p in "${debs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ "${#missing[@]}" -eq 0 ] && return 0
  [ "$(id -u)" -eq 0 ] || die "missing Debian packages ${missing[*]}: run this script as root once to install them"
  command -v apt-get >/dev/null 2>&1 || die "missing packages ${missing[*]} and no apt-get to install them"
  echo "build-image: installing ${missing[*]} from Debian" >&2
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null; } || die "apt-get install ${missing[*]} failed"
}

build_image() {
  local tag="localhost/wasm-ccm:$version-build" tmp="$out.tmp.$$"
  echo "build-image: building wasm-ccm $version on $base (a cold build takes minutes; output cached at $out)" >&2
  # Where this machine's Node trusts CAs of its own (NODE_EXTRA_CA_CERTS: an intercepting proxy's, say), so does the
  # build's npm: Node's roots and those in a global npmrc (/usr/local/etc) bound for the RUN steps only, so neither
  # the CAs nor the npmrc reach the image.
  local volumes=()
  if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f "$NODE_EXTRA_CA_CERTS" ]; then
    rm -rf "$dir/npm-etc" && mkdir -p "$dir/npm-etc"
    { "$node_bin" -p "require('node:tls').rootCertificates.join('\n')" && cat "$NODE_EXTRA_CA_CERTS"; } \
      >"$dir/npm-etc/ca.crt"
    echo "cafile=/usr/local/etc/ca.crt" >"$dir/npm-etc/npmrc"
    volumes=(--volume "$dir/npm-etc:/usr/local/etc:ro")
  fi
  bah rm --all >/dev/null # what an interrupted build left behind
  bah bud --isolation chroot --pull=never --build-arg "BASE_IMAGE=$base" --build-arg "NODE_VERSION=$node_version" \
    "${volumes[@]}" -t "$tag" -f "$root/Dockerfile" "$root" >"$dir/build.log" 2>&1 ||
    { tail -30 "$dir/build.log" >&2; die "buildah bud failed (the whole log: $dir/build.log)"; }
  rm -rf "$tmp"
  bah push --quiet "$tag" "oci:$tmp:$version" || { rm -rf "$tmp"; die "buildah push to $tmp failed"; }
  bah rmi "$tag" >/dev/null
  mv "$tmp" "$out"
}

# An image of sources that changed since is not used again: after a build, the newest three stay (other work trees
# may be a change or two behind), with the layers only older builds used.
prune_old_images() {
  ls -1dt "$dir"/wasm-ccm-*-*/ 2>/dev/null | tail -n +4 | while IFS= read -r old; do rm -rf "$old"; done
  bah rmi --prune >/dev/null 2>&1 || true
}

out="$dir/wasm-ccm-$version-$(context_hash)"
if [ "${1:-}" = "--print-dir" ]; then echo "$out"; exit 0; fi
[ -z "${1:-}" ] || die "unknown argument $1 (only --print-dir)"

cached() {
  [ -f "$out/index.json" ] || return 1
  ln -sfn "$(basename "$out")" "$dir/wasm-ccm"
  echo "build-image: wasm-ccm $version cached at $out" >&2
  echo "$out"
}
cached && exit 0

[ "$(id -u)" -eq 0 ] || die "buildah builds here as root (vfs storage, chroot isolation): run this script as root"
install_debs
[ -x "$node_bin" ] || die "missing $node_bin (the pinned Node): run npm ci"
[ "$("$node_bin" --version)" = "v$node_version" ] || die "$node_bin is not Node v$node_version (the package.json pin)"
mkdir -p "$dir"
exec 9>"$dir/.lock"
flock 9
cached && exit 0
start=$SECONDS
if ! bah inspect --type image "$base" >/dev/null 2>&1; then
  echo "build-image: building the base $base" >&2
  build_base "$base"
  echo "build-image: built the base in $((SECONDS - start)) s" >&2
fi
build_image
ln -sfn "$(basename "$out")" "$dir/wasm-ccm"
prune_old_images
echo "build-image: built wasm-ccm $version in $((SECONDS - start)) s ($(du -sh "$out" | cut -f1) compressed)" >&2
echo "$out"
