#!/usr/bin/env bash
# Builds the upstream cloud-controller-manager peer (k8s.io/cloud-provider with the test-only Go devcloud provider of
# lab/peers/devcloud-go) that the parity test runs wasm-ccm against. Test fixture only, never shipped. Cached outside the
# work tree keyed by cloud-provider version and the hash of the module's go.mod/go.sum and sources, so a warm
# machine never rebuilds. Idempotent; safe to run concurrently (written to a temp name and renamed).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
module="$root/lab/peers/devcloud-go"
cache="${WASM_CCM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/wasm-ccm}"
bin="$cache/bin"
version=v0.36.3 # k8s.io/cloud-provider, matching kube-apiserver v1.36.3
# The binary reports the Kubernetes release its libraries belong to, as a release build of a CCM does: component-base
# derives the emulated version from gitVersion, and a v0.x stamp makes every feature gate (and the JSON log format,
# itself gated) "PreAlpha at emulated version 0.36", so the peer would refuse them.
stamp=v1.36.3

die() { echo "build-peer: $*" >&2; exit 1; }

# shellcheck source=lib/go-build.sh
. "$root/scripts/lib/go-build.sh"
require_go "the upstream CCM peer (k8s.io/cloud-provider $version)"
grep -q "k8s.io/cloud-provider $version\$" "$module/go.mod" || die "$module/go.mod does not require k8s.io/cloud-provider $version"
mkdir -p "$bin"

# The provider's sources are part of the key too: editing them must rebuild.
# The stamp is part of the key as well, so changing it rebuilds.
h=$( (echo "gitVersion=$stamp"; cd "$module" && cat go.mod go.sum $(find . -name '*.go' | LC_ALL=C sort)) | sha256sum | cut -c1-10)
out="$bin/upstream-ccm-$version-$h"
if [ -x "$out" ]; then
  echo "build-peer: upstream-ccm $version cached at $out"
else
  echo "build-peer: building upstream-ccm $version (a cold build takes minutes; output cached at $out)"
  start=$SECONDS tmp="$out.tmp.$$"
  (cd "$module" && go build -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=$stamp" -o "$tmp" .) ||
    { rm -f "$tmp"; die "building the upstream CCM peer failed (is the Go module proxy reachable? GOPROXY=$(go env GOPROXY))"; }
  mv -f "$tmp" "$out"
  echo "build-peer: built upstream-ccm in $((SECONDS - start)) s"
fi
ln -sfn "$(basename "$out")" "$bin/upstream-ccm"
echo "build-peer: ready: $bin/upstream-ccm"
